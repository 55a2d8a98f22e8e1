package io.pgward.wire.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.MalformedMessage;
import io.pgward.wire.protocol.MessageBody;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.SqlState;
import java.util.List;

/**
 * Splits the client's byte stream into {@link FrontendMessage}s ({@code byte type | int32 len | body}).
 *
 * <p>Every length is checked before anything is buffered: at most 10,000 bytes per message until the client
 * is authenticated; afterwards, as PostgreSQL's {@code PQ_SMALL_MESSAGE_LIMIT} / {@code PQ_LARGE_MESSAGE_LIMIT},
 * 10,000 bytes for messages that carry only names and 1 GiB for those that carry SQL, parameters or COPY data.
 * A length outside these limits or an unknown type ends the connection with a FATAL 08P01; a body that does not
 * read as its type's layout does not ({@link FrontendMessage.Malformed}). While a message above {@link
 * InboundBudget#LARGE} bytes arrives, the bytes of it held count against the budget all connections share ({@link
 * InboundBudget}); one that does not fit ends the connection with 53200 out_of_memory, as a backend that cannot
 * allocate a message does.
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

    /**
     * The message a complete frame holds. A body that does not read as its type's layout gives a {@link
     * FrontendMessage.Malformed}: PostgreSQL answers it with an ERROR and goes on, so the session does too. The
     * fields are read in PostgreSQL's order, so that a body with several faults gets the error PostgreSQL gives.
     */
    private static FrontendMessage decode(char type, ByteBuf frame) {
        ByteBuf body = frame.slice(5, frame.readableBytes() - 5);
        try {
            return switch (type) {
                case 'Q' -> query(body, frame);
                case 'P' -> parse(body, frame);
                // The rest of a Bind is the server's to read: it reports an absent statement before a bad value.
                case 'B' -> new FrontendMessage.Bind(MessageBody.readString(body), MessageBody.readString(body),
                        frame);
                case 'D', 'C' -> describeOrClose(type, body, frame);
                case 'E' -> execute(body, frame);
                case 'S' -> new FrontendMessage.Sync(frame);
                case 'H' -> new FrontendMessage.Flush(frame);
                case 'X' -> new FrontendMessage.Terminate(frame);
                // As for a Bind, the arguments are read by the server, after it has looked the function up.
                case 'F' -> new FrontendMessage.FunctionCall(MessageBody.readInt(body), frame);
                case 'p' -> new FrontendMessage.AuthenticationResponse(frame);
                case 'd', 'c', 'f' -> new FrontendMessage.Copy(type, frame);
                default -> throw new ProtocolException("invalid frontend message type " + (int) type);
            };
        } catch (MalformedMessage e) {
            return new FrontendMessage.Malformed(type, e.getMessage(), frame);
        }
    }

    /** Wire: {@code cstring sql}. */
    private static FrontendMessage.Query query(ByteBuf body, ByteBuf frame) throws MalformedMessage {
        String sql = MessageBody.readString(body);
        MessageBody.end(body);
        return new FrontendMessage.Query(sql, frame);
    }

    /** Wire: {@code cstring name | cstring sql | int16 n | int32 oid * n}. */
    private static FrontendMessage.Parse parse(ByteBuf body, ByteBuf frame) throws MalformedMessage {
        String name = MessageBody.readString(body);
        String sql = MessageBody.readString(body);
        int count = MessageBody.readUnsignedShort(body);
        int[] types = new int[count];
        for (int i = 0; i < count; i++) {
            types[i] = MessageBody.readInt(body);
        }
        MessageBody.end(body);
        return new FrontendMessage.Parse(name, sql, types, frame);
    }

    /**
     * Wire: {@code byte 'S'/'P' | cstring name}. PostgreSQL reads the whole body before it looks at the kind, and
     * names the message in its error for another kind.
     */
    private static FrontendMessage describeOrClose(char type, ByteBuf body, ByteBuf frame) throws MalformedMessage {
        int kind = MessageBody.readByte(body);
        String name = MessageBody.readString(body);
        MessageBody.end(body);
        if (kind != 'S' && kind != 'P') {
            String messageName = type == 'D' ? "DESCRIBE" : "CLOSE";
            throw new MalformedMessage("invalid " + messageName + " message subtype " + kind);
        }
        return type == 'D' ? new FrontendMessage.Describe((char) kind, name, frame)
                : new FrontendMessage.Close((char) kind, name, frame);
    }

    /** Wire: {@code cstring portal | int32 maxRows}. */
    private static FrontendMessage.Execute execute(ByteBuf body, ByteBuf frame) throws MalformedMessage {
        String portal = MessageBody.readString(body);
        int maxRows = MessageBody.readInt(body);
        MessageBody.end(body);
        return new FrontendMessage.Execute(portal, maxRows, frame);
    }
}
