package io.pgward.wire.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.auth.ScramServerExchange;
import io.pgward.wire.codec.StartupDecoder;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.pool.BackendConnector;
import io.pgward.wire.pool.BackendPool;
import io.pgward.wire.session.LocalDatabase;
import io.pgward.wire.session.StatementGate;
import io.pgward.wire.tls.ServerTls;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pgward server: accepts PostgreSQL clients on the configured address and relays each session to the
 * configured PostgreSQL. One event loop per core serves both sides of every session it accepted.
 */
public final class PgwardServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PgwardServer.class);

    private final PgwardConfig config;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final ServerContext context;
    private final int ioThreads;
    private final AtomicLong connections = new AtomicLong();
    private Channel listener;

    private PgwardServer(PgwardConfig config, Function<PgwardConfig.Login, StatementGate> gates,
                         Map<String, LocalDatabase> localDatabases, int threads) {
        this.config = config;
        this.ioThreads = threads;
        Transport transport = Transport.best();
        this.boss = transport.newGroup(1, new DefaultThreadFactory("pgward-accept", true));
        this.workers = transport.newGroup(threads, new DefaultThreadFactory("pgward-io", true));
        SslContext ssl = config.tls().mode() == PgwardConfig.TlsMode.DISABLE ? null : ServerTls.forClients(config.tls());
        BackendPool pool = new BackendPool(new BackendConnector(config.backend(), transport), config.pool());
        this.context = new ServerContext(config, ssl, new LoginDirectory(config.logins()), pool, new CancelRegistry(),
                gates, ScramServerExchange.newMockSecret(), switch (config.audit().target()) {
                    case STDOUT -> AuditLog.to(System.out);
                    case FILE -> AuditLog.toFile(config.audit().file());
                    case OFF -> null;
                }, Map.copyOf(localDatabases));
        if (gates instanceof Gates standard) {
            standard.auditTo(context.audit());
        }
        log.info("pgward using {} transport with {} I/O threads", transport.name(), threads);
    }

    /** Starts serving with every guard layer ({@link Gates#standard}). */
    public static PgwardServer start(PgwardConfig config) {
        return start(config, Gates.standard(config));
    }

    /**
     * Starts serving. {@code gates} decides which {@link StatementGate} each login's sessions use; when it is
     * {@link AutoCloseable}, closing the server closes it.
     *
     * @throws IllegalStateException when the address cannot be bound
     */
    public static PgwardServer start(PgwardConfig config, Function<PgwardConfig.Login, StatementGate> gates) {
        return start(config, gates, Map.of());
    }

    /**
     * Starts serving, with databases pgward answers itself: a client that asks for one of these database names
     * talks to the {@link LocalDatabase} instead of PostgreSQL.
     */
    public static PgwardServer start(PgwardConfig config, Function<PgwardConfig.Login, StatementGate> gates,
                                     Map<String, LocalDatabase> localDatabases) {
        PgwardServer server = new PgwardServer(config, gates, localDatabases,
                Math.max(2, Runtime.getRuntime().availableProcessors()));
        server.bind();
        return server;
    }

    private void bind() {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(Transport.best().serverSocketChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("startup-decoder", new StartupDecoder())
                                .addLast("startup", new FrontendStartup(context, "c" + connections.incrementAndGet()));
                    }
                });
        try {
            listener = bootstrap.bind(config.listen().host(), config.listen().port()).syncUninterruptibly().channel();
        } catch (Exception e) { // BindException arrives unchecked from Netty's future
            close();
            throw new IllegalStateException("cannot listen on " + config.listen() + ": " + e.getMessage(), e);
        }
        log.info("pgward listening on {}, forwarding to {}", address(), context.pool().connector().address());
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    public int port() {
        return address().getPort();
    }

    /** The pool, for tests and metrics. */
    public BackendPool pool() {
        return context.pool();
    }

    public int ioThreads() {
        return ioThreads;
    }

    /** Sessions currently holding a cancel key, i.e. connected and past startup. */
    public int sessions() {
        return context.cancelKeys().size();
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
        context.pool().closeIdle();
        if (context.audit() != null) {
            context.audit().close();
        }
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        if (context.gates() instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                log.warn("closing the statement gates failed: {}", e.toString());
            }
        }
    }
}
