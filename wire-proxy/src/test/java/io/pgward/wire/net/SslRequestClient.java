package io.pgward.wire.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.pgward.wire.config.PgwardConfig.Backend;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLException;

/**
 * For tests: connects to PostgreSQL, asks for TLS the way libpq does, and starts it with {@link BackendTls}.
 *
 * <pre>
 * pgward                                  PostgreSQL
 *   | SSLRequest: int32 8 | int32 80877103    |
 *   |---------------------------------------->|
 *   |          'S' (one byte, nothing more)   |
 *   |<----------------------------------------|
 *   | TLS handshake (ClientHello, SNI ...)    |
 *   |<=======================================>|
 *   | StartupMessage, now inside TLS          |
 * </pre>
 *
 * <p>{@code 'N'} means the server does not do TLS. Any byte after {@code 'S'} that arrives before the
 * handshake was not protected by it, and is refused (CVE-2021-23222).
 */
final class SslRequestClient {

    /** The SSLRequest code: 1234 in the high 16 bits, 5679 in the low 16 bits. */
    static final int SSL_REQUEST_CODE = 80877103;

    private SslRequestClient() {
    }

    /**
     * Completes with the channel once the TLS handshake succeeded; {@code afterTls} then sits behind the
     * {@link SslHandler} and sees plaintext.
     */
    static CompletableFuture<Channel> connect(EventLoopGroup group, SocketAddress address, Backend backend,
                                              SslContext context, ChannelHandler afterTls) {
        CompletableFuture<Channel> result = new CompletableFuture<>();
        new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new SslRequestHandler(backend, context, afterTls, result));
                    }
                })
                .connect(address)
                .addListener(connected -> {
                    if (!connected.isSuccess()) {
                        result.completeExceptionally(connected.cause());
                    }
                });
        return result;
    }

    private static final class SslRequestHandler extends ChannelInboundHandlerAdapter {
        private final Backend backend;
        private final SslContext context;
        private final ChannelHandler afterTls;
        private final CompletableFuture<Channel> result;

        SslRequestHandler(Backend backend, SslContext context, ChannelHandler afterTls,
                          CompletableFuture<Channel> result) {
            this.backend = backend;
            this.context = context;
            this.afterTls = afterTls;
            this.result = result;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.writeAndFlush(ctx.alloc().buffer(8).writeInt(8).writeInt(SSL_REQUEST_CODE));
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                if (!in.isReadable()) {
                    return;
                }
                byte answer = in.readByte();
                if (answer != 'S') {
                    fail(ctx, answer == 'N' ? "PostgreSQL does not accept TLS (answered 'N')"
                            : "PostgreSQL answered the SSLRequest with 0x" + Integer.toHexString(answer & 0xff));
                } else if (in.isReadable()) {
                    fail(ctx, "PostgreSQL sent " + in.readableBytes() + " bytes after 'S', before TLS protected them");
                } else {
                    SslHandler tls = BackendTls.handler(context, ctx.alloc(), backend);
                    ctx.pipeline().replace(this, "tls", tls);
                    ctx.pipeline().addLast(afterTls);
                    tls.handshakeFuture().addListener(handshake -> {
                        if (handshake.isSuccess()) {
                            result.complete(ctx.channel());
                        } else {
                            result.completeExceptionally(handshake.cause());
                        }
                    });
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            fail(ctx, "PostgreSQL closed the connection before answering the SSLRequest");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            result.completeExceptionally(cause);
            ctx.close();
        }

        private void fail(ChannelHandlerContext ctx, String message) {
            result.completeExceptionally(new SSLException(message));
            ctx.close();
        }
    }
}
