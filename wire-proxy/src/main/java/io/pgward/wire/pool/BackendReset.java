package io.pgward.wire.pool;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.Wire;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * Makes a backend connection clean for the next client, whatever state its last client left it in. Only a
 * connection that reached a clean {@code ReadyForQuery(I)} after {@code DISCARD ALL} returns to the pool; any
 * error then, any ParameterStatus that contradicts the target's {@link PinnedSettings}, a closed connection or
 * the pool's {@link BackendPool#resetTimeout() reset bound} passing closes it, so that a session can never keep a
 * pool slot, however it ended, longer than a client waiting for that slot is told to wait.
 *
 * <p>A client may leave in the middle of anything: an extended-protocol batch without its Sync (after an error
 * the server then skips every message until a Sync), a COPY FROM STDIN, a statement still running, an open or
 * failed transaction. So the reset first <b>synchronizes</b>, in one write:
 * <pre>
 *   CopyFail                 ends an abandoned COPY FROM STDIN; the server ignores it in every other state
 *   Sync                     ends a batch, also one being skipped after an error
 *   ROLLBACK                 ends an open or failed transaction (a WARNING when there is none)
 *   SELECT 'pgward_reset_N'  N random: its row marks the end of everything the old client caused
 * </pre>
 * Everything before that row is the old client's (or the answer to it) and is dropped unread, errors included;
 * no client can forge the row, as no client sees N. Then {@code DISCARD ALL} (which refuses to run inside a
 * transaction block, hence the ROLLBACK) returns the session to its startup state.
 */
public final class BackendReset extends ChannelInboundHandlerAdapter {

    private static final SecureRandom RANDOM = new SecureRandom();

    private enum Phase { SYNCHRONIZING, SYNCHRONIZED, DISCARDING }

    private final BackendPool pool;
    private final BackendConnection connection;
    private final String marker = "pgward_reset_" + HexFormat.of().toHexDigits(RANDOM.nextLong());
    private Phase phase = Phase.SYNCHRONIZING;
    private boolean failed;
    private boolean done;
    private ScheduledFuture<?> timeout;

    private BackendReset(BackendPool pool, BackendConnection connection) {
        this.pool = pool;
        this.connection = connection;
    }

    /** Takes over a connection whose client left; from here it goes back to the pool or is closed. */
    public static void start(BackendPool pool, BackendConnection connection) {
        BackendReset reset = new BackendReset(pool, connection);
        var channel = connection.channel();
        channel.pipeline().addLast("reset", reset);
        channel.config().setAutoRead(true);
        reset.timeout = channel.eventLoop().schedule(reset::timedOut, pool.resetTimeout().toMillis(),
                TimeUnit.MILLISECONDS);
        var alloc = channel.alloc();
        channel.write(Messages.copyFail(alloc, "the client of this connection left"));
        channel.write(Messages.sync(alloc));
        channel.write(Messages.query(alloc, "ROLLBACK"));
        channel.writeAndFlush(Messages.query(alloc, "SELECT '" + reset.marker + "'"));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            switch (msg) {
                case BackendMessage.Run run when phase == Phase.SYNCHRONIZING -> {
                    if (Messages.hasOneColumnRow(run.bytes(), marker)) {
                        phase = Phase.SYNCHRONIZED;
                    }
                }
                case BackendMessage.Frame frame -> frame(ctx, frame);
                default -> { }
            }
        } finally {
            ReferenceCountUtil.release(msg instanceof BackendMessage m ? m.bytes() : msg);
        }
    }

    private void frame(ChannelHandlerContext ctx, BackendMessage.Frame frame) {
        switch (frame.type()) {
            case 'S' -> {
                var body = frame.body();
                String name = Wire.readCString(body);
                String value = Wire.readCString(body);
                connection.parameters().put(name, value);
                // DISCARD ALL returns to the startup values; a pinned setting reported otherwise means the
                // connection is not what pgward opened it as.
                PinnedSettings pins = connection.target().pins();
                failed |= pins != null && pins.violation(name, value) != null;
            }
            case 'E' -> failed |= phase == Phase.DISCARDING;
            case 'Z' -> readyForQuery(ctx, (char) frame.body().getByte(0));
            default -> { }
        }
    }

    private void readyForQuery(ChannelHandlerContext ctx, char status) {
        connection.transactionStatus(status);
        switch (phase) {
            case SYNCHRONIZING -> { }
            case SYNCHRONIZED -> {
                phase = Phase.DISCARDING;
                if (failed || status != 'I') {
                    finish(ctx, false);
                } else {
                    ctx.writeAndFlush(Messages.query(ctx.alloc(), "DISCARD ALL"));
                }
            }
            case DISCARDING -> finish(ctx, !failed && status == 'I');
        }
    }

    private void finish(ChannelHandlerContext ctx, boolean clean) {
        done = true;
        timeout.cancel(false);
        ctx.pipeline().remove(this);
        if (clean) {
            pool.release(connection);
        } else {
            pool.discard(connection);
        }
    }

    /** The old client's statement is still running (or the server stopped answering): cancel it and close. */
    private void timedOut() {
        if (!done) {
            done = true;
            pool.connector().cancel(connection.channel().eventLoop(), connection);
            pool.discard(connection);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!done) {
            done = true;
            timeout.cancel(false);
            pool.discard(connection);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
