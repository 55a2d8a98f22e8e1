package io.pgward.wire.relay;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.pgward.wire.audit.ConnectionLog;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link Session}'s handler on the backend channel: decoded backend output in, and the server's going away. */
final class BackendSide extends ChannelInboundHandlerAdapter {

    /** Lines about a session's connections are logged as the session's. */
    private static final Logger log = LoggerFactory.getLogger(Session.class);

    private final Session session;
    private final Channel client;
    private final String connection;

    BackendSide(Session session, Channel client, String connection) {
        this.session = session;
        this.client = client;
        this.connection = connection;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (session.ended()) {
            ReferenceCountUtil.release(msg instanceof BackendMessage m ? m.bytes() : msg);
            return;
        }
        session.fromBackend((BackendMessage) msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        client.flush();
        ctx.channel().flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        session.readClientIfAllowed();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // A FATAL the server sent before closing has been forwarded already and says it all.
        client.flush();
        session.end(session.backendSentFatal() ? null : PgError.fatal(SqlState.CONNECTION_FAILURE,
                "pgward lost the connection to the database server"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionLog.warn(log, connection, "backend connection failed: {}", cause.toString());
        ctx.close();
    }
}
