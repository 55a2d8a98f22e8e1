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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
 *
 * <p>For a target with {@link PinnedSettings} (a read-only login) the connection is checked once before anyone
 * uses it: every ParameterStatus report must agree with the pins, and after the first ReadyForQuery pgward runs
 * {@link PinnedSettings#CHECK_QUERY} and compares the session's effective values (statement_timeout is not
 * reported, and a login event trigger or a pooler in between could have changed any of them). A mismatch fails
 * the promise and closes the connection, so it never reaches a client or the pool.
 *
 * <pre>
 *                                   ◀─ ReadyForQuery(I)
 *     Query(CHECK_QUERY)                     ─▶
 *                                   ◀─ RowDescription, DataRow, CommandComplete, ReadyForQuery(I) → checked
 * </pre>
 */
final class BackendStartup extends ChannelInboundHandlerAdapter {

    private final BackendTarget target;
    private final Promise<BackendConnection> promise;
    private final BackendAuthenticator authenticator;
    private final Map<String, String> parameters = new LinkedHashMap<>();
    private int processId;
    private int secretKey;
    /** The check query of a pinned target is running. */
    private boolean checking;
    private List<String> checkedRow;

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
                // Notices during startup are for the server log of a session that does not exist yet; the one
                // row worth reading is the check query's.
                if (checking && checkedRow == null && msg instanceof BackendMessage.Run run) {
                    checkedRow = firstRow(run.bytes());
                }
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
                case 'E' -> fail(ctx, checking ? mismatch("the check of its settings failed: "
                        + fromServer(body).message()) : fromServer(body));
                case 'Z' -> readyForQuery(ctx);
                default -> { }
            }
        } catch (RuntimeException e) {
            fail(ctx, PgError.fatal(SqlState.CONNECTION_FAILURE,
                    "pgward could not log in to the database server as \"" + target.user() + "\": " + e.getMessage()));
        } finally {
            ReferenceCountUtil.release(msg instanceof BackendMessage m ? m.bytes() : msg);
        }
    }

    private void readyForQuery(ChannelHandlerContext ctx) {
        PinnedSettings pins = target.pins();
        if (pins != null) {
            String violation = parameters.entrySet().stream().map(e -> pins.violation(e.getKey(), e.getValue()))
                    .filter(java.util.Objects::nonNull).findFirst().orElse(null);
            if (violation == null && !checking) {
                checking = true;
                ctx.writeAndFlush(Messages.query(ctx.alloc(), PinnedSettings.CHECK_QUERY));
                return;
            }
            if (violation == null) {
                violation = pins.checkViolation(checkedRow);
            }
            if (violation != null) {
                fail(ctx, mismatch(violation));
                return;
            }
        }
        ctx.pipeline().remove(this);
        promise.trySuccess(new BackendConnection(ctx.channel(), target, processId, secretKey, parameters));
    }

    private PgError mismatch(String violation) {
        return PgError.fatal(SqlState.INSUFFICIENT_PRIVILEGE, "pgward will not use the new connection to the "
                + "database server as \"" + target.user() + "\": its session does not have the settings the read-only "
                + "policy pins (" + violation + ")");
    }

    /** The text values of the first DataRow in a run of messages (the check query returns text). */
    static List<String> firstRow(ByteBuf messages) {
        int at = messages.readerIndex();
        while (messages.writerIndex() - at >= 5) {
            int length = messages.getInt(at + 1);
            if (messages.getByte(at) == 'D') {
                List<String> row = new ArrayList<>();
                int columns = messages.getUnsignedShort(at + 5);
                int field = at + 7;
                for (int i = 0; i < columns; i++) {
                    int size = messages.getInt(field);
                    row.add(size < 0 ? null : messages.toString(field + 4, size, StandardCharsets.UTF_8));
                    field += 4 + Math.max(size, 0);
                }
                return row;
            }
            at += 1 + length;
        }
        return null;
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
