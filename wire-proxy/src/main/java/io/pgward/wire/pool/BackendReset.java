package io.pgward.wire.pool;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.Wire;

/**
 * Makes a backend connection clean for the next client: {@code ROLLBACK} when a transaction is open, then
 * {@code DISCARD ALL} (which refuses to run inside a transaction block, hence two steps). Only a clean
 * {@code ReadyForQuery(I)} after both returns the connection to the pool; any error, and any ParameterStatus that
 * contradicts the target's {@link PinnedSettings}, closes it.
 */
public final class BackendReset extends ChannelInboundHandlerAdapter {

    private final BackendPool pool;
    private final BackendConnection connection;
    private boolean rollingBack;
    private boolean failed;

    private BackendReset(BackendPool pool, BackendConnection connection) {
        this.pool = pool;
        this.connection = connection;
    }

    /** Takes over a connection whose client left with no request outstanding. */
    public static void start(BackendPool pool, BackendConnection connection) {
        BackendReset reset = new BackendReset(pool, connection);
        connection.channel().pipeline().addLast("reset", reset);
        connection.channel().config().setAutoRead(true);
        reset.rollingBack = connection.transactionStatus() != 'I';
        connection.channel().writeAndFlush(Messages.query(connection.channel().alloc(),
                reset.rollingBack ? "ROLLBACK" : "DISCARD ALL"));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof BackendMessage.Frame frame) {
                switch (frame.type()) {
                    case 'E' -> failed = true;
                    case 'S' -> {
                        var body = frame.body();
                        String name = Wire.readCString(body);
                        String value = Wire.readCString(body);
                        connection.parameters().put(name, value);
                        // DISCARD ALL returns to the startup values; a pinned setting reported otherwise means
                        // the connection is not what pgward opened it as.
                        PinnedSettings pins = connection.target().pins();
                        failed |= pins != null && pins.violation(name, value) != null;
                    }
                    case 'Z' -> readyForQuery(ctx, (char) frame.body().getByte(0));
                    default -> { }
                }
            }
        } finally {
            ReferenceCountUtil.release(msg instanceof BackendMessage m ? m.bytes() : msg);
        }
    }

    private void readyForQuery(ChannelHandlerContext ctx, char status) {
        connection.transactionStatus(status);
        if (failed || status != 'I') {
            ctx.pipeline().remove(this);
            pool.discard(connection);
        } else if (rollingBack) {
            rollingBack = false;
            ctx.writeAndFlush(Messages.query(ctx.alloc(), "DISCARD ALL"));
        } else {
            ctx.pipeline().remove(this);
            pool.release(connection);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        pool.discard(connection);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
