package io.pgward.wire.pool;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;
import io.pgward.wire.auth.BackendAuthenticator;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.Wire;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Logs in to PostgreSQL as the target's role: StartupMessage, the authentication exchange the server asks
 * for, then ParameterStatus and BackendKeyData until the first ReadyForQuery.
 *
 * <pre>
 *   pgward                          PostgreSQL
 *     StartupMessage(user, database, params) ─▶
 *                                   ◀─ AuthenticationSASL / MD5Password / CleartextPassword
 *     SASLInitialResponse / PasswordMessage  ─▶       (repeated as the method needs)
 *                                   ◀─ AuthenticationOk, ParameterStatus*, BackendKeyData
 *                                   ◀─ ReadyForQuery(I)  → promise completes
 * </pre>
 */
final class BackendStartup extends ChannelInboundHandlerAdapter {

    private final BackendTarget target;
    private final Promise<BackendConnection> promise;
    private final BackendAuthenticator authenticator;
    private final Map<String, String> parameters = new LinkedHashMap<>();
    private int processId;
    private int secretKey;

    BackendStartup(BackendTarget target, Promise<BackendConnection> promise) {
        this.target = target;
        this.promise = promise;
        this.authenticator = new BackendAuthenticator(target.user(),
                target.password() == null ? null : target.password().value());
    }

    /** Called once the transport (and TLS, when used) is ready. */
    void start(ChannelHandlerContext ctx) {
        Map<String, String> startup = new LinkedHashMap<>();
        startup.put("user", target.user());
        startup.put("database", target.database());
        startup.putAll(target.parameters());
        ctx.writeAndFlush(Messages.startupMessage(ctx.alloc(), startup));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (!(msg instanceof BackendMessage.Frame frame)) {
                // Notices during startup are for the server log of a session that does not exist yet.
                return;
            }
            ByteBuf body = frame.body();
            switch (frame.type()) {
                case 'R' -> authenticate(ctx, body);
                case 'S' -> parameters.put(Wire.readCString(body), Wire.readCString(body));
                case 'K' -> {
                    processId = body.readInt();
                    secretKey = body.readInt();
                }
                case 'E' -> fail(ctx, fromServer(body));
                case 'Z' -> {
                    ctx.pipeline().remove(this);
                    promise.trySuccess(new BackendConnection(ctx.channel(), target, processId, secretKey, parameters));
                }
                default -> { }
            }
        } catch (RuntimeException e) {
            fail(ctx, PgError.fatal(SqlState.CONNECTION_FAILURE,
                    "pgward could not log in to the database server as \"" + target.user() + "\": " + e.getMessage()));
        } finally {
            ReferenceCountUtil.release(msg instanceof BackendMessage m ? m.bytes() : msg);
        }
    }

    private void authenticate(ChannelHandlerContext ctx, ByteBuf body) {
        int code = body.readInt();
        byte[] payload = new byte[body.readableBytes()];
        body.readBytes(payload);
        if (authenticator.onRequest(code, payload) instanceof BackendAuthenticator.Respond respond) {
            ctx.writeAndFlush(Messages.authenticationResponse(ctx.alloc(), respond.payload()));
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail(ctx, PgError.fatal(SqlState.CONNECTION_FAILURE,
                "the database server closed the connection while pgward was logging in"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, PgError.fatal(SqlState.CONNECTION_FAILURE,
                "pgward could not connect to the database server: " + cause.getMessage()));
    }

    private void fail(ChannelHandlerContext ctx, PgError error) {
        if (promise.tryFailure(new BackendException(error))) {
            ctx.close();
        }
    }

    static PgError fromServer(ByteBuf body) {
        Map<Character, String> fields = PgError.fields(body);
        return new PgError(fields.getOrDefault('V', fields.getOrDefault('S', "FATAL")),
                fields.getOrDefault('C', SqlState.CONNECTION_FAILURE), fields.getOrDefault('M', "unknown error"),
                fields.get('D'), fields.get('H'), 0);
    }
}
