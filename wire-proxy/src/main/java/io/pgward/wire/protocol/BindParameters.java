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
     * @param frame the whole Bind message, type and length included
     * @throws ProtocolException when the format codes do not match the values
     */
    public static List<Value> read(ByteBuf frame) {
        ByteBuf body = frame.slice(frame.readerIndex() + 5, frame.readableBytes() - 5);
        Wire.readCString(body);
        Wire.readCString(body);
        int formatCount = body.readUnsignedShort();
        int[] formats = new int[formatCount];
        for (int i = 0; i < formatCount; i++) {
            formats[i] = body.readUnsignedShort();
        }
        int count = body.readUnsignedShort();
        if (formatCount > 1 && formatCount != count) {
            throw new ProtocolException("bind message has " + formatCount + " parameter formats but " + count
                    + " parameters");
        }
        List<Value> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = body.readInt();
            ByteBuf value = length < 0 ? null : body.readSlice(length);
            boolean binary = (formatCount == 1 ? formats[0] : formatCount == 0 ? 0 : formats[i]) != 0;
            values.add(new Value(value, binary));
        }
        return values;
    }
}
