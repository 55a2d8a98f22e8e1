package io.pgward.wire.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.ProtocolException;

/**
 * Splits the backend's byte stream into {@link BackendMessage}s without copying: consecutive messages pgward
 * only forwards become one {@link BackendMessage.Run}, a retained slice of the buffer that was read, so a large
 * result crosses pgward as a handful of buffers, not one object per row. Inspected types come as single frames.
 *
 * <p>Not a {@code ByteToMessageDecoder}: slices of its cumulation buffer would pin that buffer while they wait
 * to be written, forcing a copy of it on every read. Here each read buffer is sliced and released on its own;
 * only a message cut by the end of a read is copied, into {@code partial}, until it is complete.
 */
public final class BackendDecoder extends ChannelInboundHandlerAdapter {

    /** The start of a message that the last read ended in the middle of; owned, null when none. */
    private ByteBuf partial;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (partial != null && !completePartial(ctx, in)) {
                return;
            }
            splitRead(ctx, in);
        } catch (ProtocolException e) {
            throw new DecoderException(e);
        } finally {
            in.release();
        }
    }

    /** Moves bytes from {@code in} into {@code partial}; true once the message was complete and passed on. */
    private boolean completePartial(ChannelHandlerContext ctx, ByteBuf in) {
        if (partial.readableBytes() < 5) {
            partial.writeBytes(in, Math.min(5 - partial.readableBytes(), in.readableBytes()));
            if (partial.readableBytes() < 5) {
                return false;
            }
        }
        int total = length(partial, partial.readerIndex()) + 1;
        partial.ensureWritable(total - partial.readableBytes());
        partial.writeBytes(in, Math.min(total - partial.readableBytes(), in.readableBytes()));
        if (partial.readableBytes() < total) {
            return false;
        }
        ByteBuf message = partial;
        partial = null;
        char type = (char) (message.getByte(message.readerIndex()) & 0xff);
        ctx.fireChannelRead(BackendMessage.inspected(type) ? new BackendMessage.Frame(type, message)
                : new BackendMessage.Run(message, BackendMessage.isRow(type) ? 1 : 0));
        return true;
    }

    private void splitRead(ChannelHandlerContext ctx, ByteBuf in) {
        int runStart = in.readerIndex();
        int at = runStart;
        int dataRows = 0;
        while (in.writerIndex() - at >= 5) {
            char type = (char) (in.getByte(at) & 0xff);
            int length = length(in, at);
            if (in.writerIndex() - at < length + 1) {
                break;
            }
            if (BackendMessage.inspected(type)) {
                if (at > runStart) {
                    ctx.fireChannelRead(new BackendMessage.Run(in.retainedSlice(runStart, at - runStart), dataRows));
                    dataRows = 0;
                }
                ctx.fireChannelRead(new BackendMessage.Frame(type, in.retainedSlice(at, length + 1)));
                at += length + 1;
                runStart = at;
            } else {
                if (BackendMessage.isRow(type)) {
                    dataRows++;
                }
                at += length + 1;
            }
        }
        if (at > runStart) {
            ctx.fireChannelRead(new BackendMessage.Run(in.retainedSlice(runStart, at - runStart), dataRows));
        }
        if (at < in.writerIndex()) {
            int rest = in.writerIndex() - at;
            if (rest >= 5) {
                length(in, at);
            }
            partial = ctx.alloc().buffer(Math.max(rest, 64));
            partial.writeBytes(in, at, rest);
        }
    }

    /** The message length at {@code at}; PostgreSQL never sends 1 GiB or more, so that is corruption. */
    private static int length(ByteBuf buf, int at) {
        int length = buf.getInt(at + 1);
        if (length < 4 || length >= 1 << 30) {
            throw new ProtocolException("invalid message length from the server");
        }
        return length;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releasePartial();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePartial();
        ctx.fireChannelInactive();
    }

    private void releasePartial() {
        if (partial != null) {
            partial.release();
            partial = null;
        }
    }
}
