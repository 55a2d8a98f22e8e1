package io.pgward.wire.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/** The parameter values of a Bind message as it carries them: their bytes and format, before any reading. */
public final class BindParameters {

    /**
     * One value.
     *
     * @param bytes a slice of the message, or null for SQL NULL
     * @param binary sent in binary format
     */
    public record Value(ByteBuf bytes, boolean binary) {
    }

    private BindParameters() {
    }

    /**
     * Reads the values as PostgreSQL's exec_bind_message reads them, with its errors for a message that does not
     * hold what it announces.
     *
     * @param frame the whole Bind message, type and length included
     * @throws MalformedMessage when the message does not hold what it announces, or its format codes do not match
     *         its values
     */
    public static List<Value> read(ByteBuf frame) throws MalformedMessage {
        ByteBuf body = frame.slice(frame.readerIndex() + 5, frame.readableBytes() - 5);
        MessageBody.readString(body);
        MessageBody.readString(body);
        int formatCount = MessageBody.readUnsignedShort(body);
        int[] formats = new int[formatCount];
        for (int i = 0; i < formatCount; i++) {
            formats[i] = MessageBody.readUnsignedShort(body);
        }
        int count = MessageBody.readUnsignedShort(body);
        if (formatCount > 1 && formatCount != count) {
            throw new MalformedMessage("bind message has " + formatCount + " parameter formats but " + count
                    + " parameters");
        }
        List<Value> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = MessageBody.readInt(body);
            // -1 is NULL; any other negative length PostgreSQL refuses as data the message does not hold.
            ByteBuf value = length == -1 ? null : MessageBody.readSlice(body, length);
            boolean binary = (formatCount == 1 ? formats[0] : formatCount == 0 ? 0 : formats[i]) != 0;
            values.add(new Value(value, binary));
        }
        return values;
    }
}
