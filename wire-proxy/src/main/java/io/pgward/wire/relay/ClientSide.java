package io.pgward.wire.relay;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.pgward.wire.audit.ConnectionLog;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.SqlState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link Session}'s handler on the client channel: decoded client messages in, and the client's going away. */
final class ClientSide extends ChannelInboundHandlerAdapter {

    /** Lines about a session's connections are logged as the session's. */
    private static final Logger log = LoggerFactory.getLogger(Session.class);

    private final Session session;
    private final Channel backend;
    private final String connection;

    ClientSide(Session session, Channel backend, String connection) {
        this.session = session;
        this.backend = backend;
        this.connection = connection;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        session.fromClient((FrontendMessage) msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        backend.flush();
        // A local answer is written while reading the client, with nothing coming from the backend to flush it.
        ctx.channel().flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // Once the session ended, the backend belongs to its reset or to another session: a client that left
        // while unwritable must not stop it being read.
        if (!session.ended()) {
            backend.config().setAutoRead(ctx.channel().isWritable());
            session.clientWritabilityChanged();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        session.end(null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        session.end(fatal(cause));
    }

    /** A protocol violation is told to the client as what it is; any other fault as a closed connection. */
    private PgError fatal(Throwable cause) {
        if (cause instanceof DecoderException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof ProtocolException p) {
            return PgError.fatal(p.sqlState(), p.getMessage());
        }
        ConnectionLog.warn(log, connection, "client connection failed: {}", cause.toString());
        return PgError.fatal(SqlState.PROTOCOL_VIOLATION, "pgward closed the connection: " + cause.getMessage());
    }
}
