package io.pgward.wire.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.ProtocolException;
import java.util.List;

/**
 * Splits the backend's byte stream into {@link BackendMessage}s without copying: consecutive messages pgward
 * only forwards become one {@link BackendMessage.Run} (a retained slice of what arrived), so a large result
 * crosses pgward as a handful of buffers, not one object per row. Inspected types come as single frames.
 */
public final class BackendDecoder extends ByteToMessageDecoder {

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int runStart = in.readerIndex();
        int runEnd = runStart;
        int dataRows = 0;
        while (in.writerIndex() - runEnd >= 5) {
            char type = (char) (in.getByte(runEnd) & 0xff);
            int length = in.getInt(runEnd + 1);
            // PostgreSQL never sends a message of 1 GiB or more; a larger length is corruption, not data.
            if (length < 4 || length >= 1 << 30) {
                throw new ProtocolException("invalid message length from the server");
            }
            if (in.writerIndex() - runEnd < length + 1) {
                break;
            }
            if (BackendMessage.inspected(type)) {
                if (runEnd > runStart) {
                    out.add(new BackendMessage.Run(in.readRetainedSlice(runEnd - runStart), dataRows));
                    dataRows = 0;
                }
                out.add(new BackendMessage.Frame(type, in.readRetainedSlice(length + 1)));
                runStart = in.readerIndex();
                runEnd = runStart;
            } else {
                if (type == 'D') {
                    dataRows++;
                }
                runEnd += length + 1;
            }
        }
        if (runEnd > runStart) {
            out.add(new BackendMessage.Run(in.readRetainedSlice(runEnd - runStart), dataRows));
        }
    }
}
