package io.pgward.wire.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.Wire;
import java.util.List;

/**
 * Splits the client's byte stream into {@link FrontendMessage}s ({@code byte type | int32 len | body}).
 *
 * <p>Every length is checked before anything is buffered: at most 10,000 bytes per message until the client
 * is authenticated; afterwards, as PostgreSQL's {@code PQ_SMALL_MESSAGE_LIMIT} / {@code PQ_LARGE_MESSAGE_LIMIT},
 * 10,000 bytes for messages that carry only names and 1 GiB for those that carry SQL, parameters or COPY data.
 * An unknown type is a protocol violation, as in PostgreSQL. While a message above {@link InboundBudget#LARGE} bytes
 * arrives, the bytes of it held count against the budget all connections share ({@link InboundBudget}); one that
 * does not fit ends the connection with 53200 out_of_memory, as a backend that cannot allocate a message does.
 */
public final class FrontendDecoder extends ByteToMessageDecoder {

    private static final int SMALL_LIMIT = 10_000;
    private static final int LARGE_LIMIT = (1 << 30) - 1;

    private final InboundBudget budget;
    private boolean authenticated;
    /** Bytes this connection holds of the budget for the message it is receiving. */
    private long taken;

    public FrontendDecoder() {
        this(InboundBudget.SHARED);
    }

    FrontendDecoder(InboundBudget budget) {
        this.budget = budget;
    }

    /** From now on the post-authentication limits apply. */
    public void authenticated() {
        this.authenticated = true;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= 5) {
            int start = in.readerIndex();
            char type = (char) (in.getByte(start) & 0xff);
            int length = in.getInt(start + 1);
            int limit = limit(type);
            if (length < 4 || length > limit) {
                throw new ProtocolException("invalid message length");
            }
            if (in.readableBytes() < length + 1) {
                // What has arrived counts, not what the header announces: a header alone holds nothing.
                long held = in.readableBytes();
                if (length >= InboundBudget.LARGE && held > taken) {
                    if (!budget.take(held - taken)) {
                        throw new ProtocolException(SqlState.OUT_OF_MEMORY, "pgward is receiving too many large "
                                + "messages at once to hold more of one of " + length + " bytes; send it again later");
                    }
                    taken = held;
                }
                return;
            }
            giveBack();
            ByteBuf frame = in.readRetainedSlice(length + 1);
            try {
                out.add(decode(type, frame));
            } catch (RuntimeException e) {
                frame.release();
                throw e;
            }
        }
    }

    private void giveBack() {
        if (taken > 0) {
            budget.giveBack(taken);
            taken = 0;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        giveBack();
    }

    private int limit(char type) {
        if (!authenticated) {
            return SMALL_LIMIT;
        }
        return switch (type) {
            case 'Q', 'P', 'B', 'F', 'd', 'f', 'p' -> LARGE_LIMIT;
            case 'D', 'E', 'C', 'S', 'H', 'X', 'c' -> SMALL_LIMIT;
            default -> throw new ProtocolException("invalid frontend message type " + (int) type);
        };
    }

    private static FrontendMessage decode(char type, ByteBuf frame) {
        ByteBuf body = frame.slice(5, frame.readableBytes() - 5);
        return switch (type) {
            case 'Q' -> new FrontendMessage.Query(Wire.readCString(body), frame);
            case 'P' -> parse(body, frame);
            case 'B' -> new FrontendMessage.Bind(Wire.readCString(body), Wire.readCString(body), frame);
            case 'D' -> new FrontendMessage.Describe(kind(body), Wire.readCString(body), frame);
            case 'E' -> new FrontendMessage.Execute(Wire.readCString(body), readInt(body), frame);
            case 'C' -> new FrontendMessage.Close(kind(body), Wire.readCString(body), frame);
            case 'S' -> new FrontendMessage.Sync(frame);
            case 'H' -> new FrontendMessage.Flush(frame);
            case 'X' -> new FrontendMessage.Terminate(frame);
            case 'F' -> new FrontendMessage.FunctionCall(readInt(body), frame);
            case 'p' -> new FrontendMessage.AuthenticationResponse(frame);
            case 'd', 'c', 'f' -> new FrontendMessage.Copy(type, frame);
            default -> throw new ProtocolException("invalid frontend message type " + (int) type);
        };
    }

    private static FrontendMessage.Parse parse(ByteBuf body, ByteBuf frame) {
        String name = Wire.readCString(body);
        String sql = Wire.readCString(body);
        if (body.readableBytes() < 2) {
            throw new ProtocolException("invalid message format");
        }
        // Unsigned, as PostgreSQL reads every int16 count: a Parse may give up to 65,535 parameter types.
        int count = body.readUnsignedShort();
        if (body.readableBytes() < count * 4) {
            throw new ProtocolException("invalid message format");
        }
        int[] types = new int[count];
        for (int i = 0; i < count; i++) {
            types[i] = body.readInt();
        }
        return new FrontendMessage.Parse(name, sql, types, frame);
    }

    private static char kind(ByteBuf body) {
        if (!body.isReadable()) {
            throw new ProtocolException("invalid message format");
        }
        char kind = (char) body.readByte();
        if (kind != 'S' && kind != 'P') {
            throw new ProtocolException("invalid DESCRIBE/CLOSE message subtype " + (int) kind);
        }
        return kind;
    }

    private static int readInt(ByteBuf body) {
        if (body.readableBytes() < 4) {
            throw new ProtocolException("invalid message format");
        }
        return body.readInt();
    }
}
