package io.pgward.wire.pool;

import io.netty.channel.Channel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.net.Transport;
import java.time.Duration;
import java.util.Map;

/**
 * Backend connections over a channel the test drives (an {@code EmbeddedChannel} playing PostgreSQL), for
 * session tests without a database server. Lives in this package because the connection's constructor is
 * package-private: in production only {@link BackendStartup} makes connections, after a real login.
 */
public final class BackendConnections {

    private BackendConnections() {
    }

    /** An authenticated connection as role {@code user} to {@code database}, transaction status idle. */
    public static BackendConnection over(Channel channel, String user, String database) {
        return new BackendConnection(channel, new BackendTarget(user, null, database, Map.of()), 4711, 1234,
                Map.of("server_version", "17.6", "TimeZone", "UTC", "client_encoding", "UTF8"));
    }

    /** As {@link #over}, for a read-only login whose backend settings are pinned. */
    public static BackendConnection pinned(Channel channel, String user, String database, PinnedSettings pins) {
        return new BackendConnection(channel, new BackendTarget(user, null, database, pins.startupParameters(), pins),
                4711, 1234, Map.of("server_version", "17.6", "client_encoding", "UTF8"));
    }

    /**
     * A pool whose connector points at 127.0.0.1:1, where nothing listens. Sessions need a pool to hand their
     * connection back to; tests that use this one never make it connect.
     */
    public static BackendPool unconnectablePool() {
        Transport nio = new Transport("nio", NioIoHandler.newFactory(), NioSocketChannel.class,
                NioServerSocketChannel.class);
        BackendConnector connector = new BackendConnector(
                new PgwardConfig.Backend("127.0.0.1", 1, PgwardConfig.SslMode.DISABLE, null), nio);
        return new BackendPool(connector, new PgwardConfig.Pool(2, Duration.ofSeconds(5)));
    }
}
