package io.pgward.wire.startup;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.pgward.wire.audit.ConnectionLog;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL 17's direct TLS ({@code sslnegotiation=direct}): the client starts with a TLS ClientHello instead of
 * an SSLRequest. Like PostgreSQL's {@code ProcessSSLStartup}, the first byte decides: 0x16 (a TLS handshake record;
 * as the first byte of a startup packet's length it would mean a packet hundreds of megabytes long) starts TLS,
 * anything else is the usual startup. This handler sits first in a new connection's pipeline and leaves it after
 * that byte; bytes it holds go on to what replaces it (the TLS handler, or the startup decoder).
 *
 * <p>As in PostgreSQL, a direct connection must negotiate the ALPN protocol {@code postgresql} (checked by
 * {@link FrontendStartup} once the startup message arrives, when the handshake is over), and one that pgward
 * cannot serve (TLS is off) is closed without an answer: the client expects TLS, not a PostgreSQL message.
 */
final class DirectTls extends ByteToMessageDecoder {

    /** Told to the startup handler before any decrypted byte reaches it. */
    static final Object STARTED = new Object();

    private static final Logger log = LoggerFactory.getLogger(DirectTls.class);
    private static final int TLS_HANDSHAKE_RECORD = 0x16;

    private final ServerContext server;
    private final String connection;

    DirectTls(ServerContext server, String connection) {
        this.server = server;
        this.connection = connection;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!in.isReadable()) {
            return;
        }
        if (in.getUnsignedByte(in.readerIndex()) != TLS_HANDSHAKE_RECORD) {
            ctx.pipeline().remove(this);
            return;
        }
        if (server.sslContext() == null) {
            ConnectionLog.info(log, connection, "closed a direct TLS connection: TLS is not enabled");
            in.skipBytes(in.readableBytes());
            ctx.close();
            return;
        }
        SslHandler tls = server.sslContext().newHandler(ctx.alloc());
        ctx.fireUserEventTriggered(STARTED);
        // Netty hands the bytes this decoder buffered to the handler that replaces it.
        ctx.pipeline().replace(this, "tls", tls);
    }
}
