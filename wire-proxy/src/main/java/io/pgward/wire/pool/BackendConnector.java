package io.pgward.wire.pool;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.pgward.wire.codec.BackendDecoder;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.net.Transport;
import io.pgward.wire.net.BackendTls;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens authenticated connections to the configured PostgreSQL, on the event loop of the client session that
 * will use them, so that relaying never crosses threads.
 *
 * <p>With {@code sslmode} require or verify-full the connection starts with SSLRequest; PostgreSQL answers one
 * byte, and any byte after it before the TLS handshake is refused (the server must not be able to inject
 * plaintext into the encrypted session).
 */
public final class BackendConnector {

    /** How long a cancel waits for the server to close its connection before giving up on it. */
    static final Duration CANCEL_WAIT = Duration.ofSeconds(2);

    private final PgwardConfig.Backend backend;
    private final SslContext sslContext;
    private final Transport transport;
    /** Cancels sent and not yet answered: stopping pgward waits for them, or their statements would run on. */
    private final Set<CompletableFuture<Void>> cancelling = ConcurrentHashMap.newKeySet();

    public BackendConnector(PgwardConfig.Backend backend, Transport transport) {
        this.backend = backend;
        this.sslContext = BackendTls.forBackend(backend);
        this.transport = transport;
    }

    public String address() {
        return backend.host() + ":" + backend.port();
    }

    Future<BackendConnection> connect(EventLoop loop, BackendTarget target) {
        Promise<BackendConnection> promise = loop.newPromise();
        BackendStartup startup = new BackendStartup(target, promise);
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("decoder", new BackendDecoder()).addLast("startup", startup);
                        if (sslContext != null) {
                            ch.pipeline().addFirst("ssl-negotiation", new SslNegotiation(startup));
                        }
                    }
                });
        ChannelFuture connected = bootstrap.connect(backend.host(), backend.port());
        connected.addListener(f -> {
            if (!f.isSuccess()) {
                promise.tryFailure(new BackendException(PgError.fatal(SqlState.CONNECTION_FAILURE,
                        "pgward could not connect to the database server at " + address() + ": "
                                + f.cause().getMessage())));
            } else if (sslContext == null) {
                startup.start(connected.channel().pipeline().context(startup));
            }
        });
        return promise;
    }

    /**
     * Sends a CancelRequest for the connection's running statement. The returned stage completes (on
     * {@code loop}) once the server has closed the cancel connection, which it does after signalling the
     * backend, or when that cannot happen (connect failure, no answer within {@link #CANCEL_WAIT}).
     */
    public CompletableFuture<Void> cancel(EventLoop loop, BackendConnection connection) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        cancelling.add(done);
        done.whenComplete((ignored, e) -> cancelling.remove(done));
        new Bootstrap().group(loop).channel(transport.socketChannel())
                .handler(new ChannelInboundHandlerAdapter())
                .connect(backend.host(), backend.port())
                .addListener((ChannelFuture f) -> {
                    if (!f.isSuccess()) {
                        done.complete(null);
                        return;
                    }
                    Channel channel = f.channel();
                    channel.closeFuture().addListener(c -> done.complete(null));
                    channel.writeAndFlush(Messages.cancelRequest(channel.alloc(), connection.processId(),
                            connection.secretKey()));
                    loop.schedule(() -> channel.close(), CANCEL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                });
        return done;
    }

    /**
     * Waits, at most {@link #CANCEL_WAIT} and a little, until the cancels sent so far are answered: the event loops
     * that carry them must not stop before (a cancel whose connection is closed unsent leaves its statement
     * running on the server after pgward has gone).
     */
    public void awaitCancels() {
        CompletableFuture<?>[] pending = cancelling.toArray(CompletableFuture<?>[]::new);
        try {
            CompletableFuture.allOf(pending).get(CANCEL_WAIT.toMillis() + 500, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // Each cancel gives up on its own after CANCEL_WAIT; nothing more to wait for.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SSLRequest, the server's one-byte answer, then the TLS handshake before the startup packet. */
    private final class SslNegotiation extends ChannelInboundHandlerAdapter {
        private final BackendStartup startup;

        SslNegotiation(BackendStartup startup) {
            this.startup = startup;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(Messages.sslRequest(ctx.alloc()));
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                if (in.readableBytes() != 1 || in.getByte(in.readerIndex()) != 'S') {
                    String reason = in.readableBytes() == 1 && in.getByte(in.readerIndex()) == 'N'
                            ? "the database server does not accept TLS, and backend.sslmode is "
                              + backend.sslmode().name().toLowerCase().replace('_', '-')
                            : "the database server sent unexpected data in answer to SSLRequest";
                    ctx.fireExceptionCaught(new IllegalStateException(reason));
                    return;
                }
                SslHandler ssl = BackendTls.handler(sslContext, ctx.alloc(), backend);
                ctx.pipeline().replace(this, "ssl", ssl);
                ssl.handshakeFuture().addListener(h -> {
                    if (h.isSuccess()) {
                        startup.start(ctx.pipeline().context(startup));
                    } else {
                        ctx.pipeline().fireExceptionCaught(new IllegalStateException(
                                "TLS handshake with the database server failed: " + h.cause().getMessage()));
                    }
                });
            } finally {
                ReferenceCountUtil.release(in);
            }
        }
    }
}
