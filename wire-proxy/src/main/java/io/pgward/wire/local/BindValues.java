package io.pgward.wire.local;

import io.netty.buffer.ByteBuf;
import io.pgward.wire.protocol.BindParameters;
import io.pgward.wire.protocol.MalformedMessage;
import io.pgward.wire.protocol.SqlState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The parameter values of a Bind message as text, for statements pgward runs itself. Text-format values are
 * taken as they are; binary ones are read for the types clients send in binary (integers, floats, booleans,
 * text), and any other binary value is refused rather than guessed.
 */
final class BindValues {

    private BindValues() {
    }

    /**
     * @param frame the whole Bind message, type and length included
     * @param parameterTypes the types given at Parse, 0 where unspecified
     * @throws MalformedMessage when the Bind does not hold the values it announces
     */
    static List<String> read(ByteBuf frame, int[] parameterTypes) throws MalformedMessage {
        List<BindParameters.Value> parameters = BindParameters.read(frame);
        List<String> values = new ArrayList<>(parameters.size());
        for (int i = 0; i < parameters.size(); i++) {
            BindParameters.Value p = parameters.get(i);
            int type = i < parameterTypes.length ? parameterTypes[i] : 0;
            values.add(p.bytes() == null ? null : p.binary() ? binary(p.bytes(), type, i + 1)
                    : p.bytes().toString(StandardCharsets.UTF_8));
        }
        return values;
    }

    private static String binary(ByteBuf value, int type, int number) {
        return switch (type) {
            case 16 -> value.readableBytes() == 1 ? (value.getByte(value.readerIndex()) != 0 ? "t" : "f") : bad(number);
            case 20 -> value.readableBytes() == 8 ? Long.toString(value.getLong(value.readerIndex())) : bad(number);
            case 21 -> value.readableBytes() == 2 ? Short.toString(value.getShort(value.readerIndex())) : bad(number);
            case 23 -> value.readableBytes() == 4 ? Integer.toString(value.getInt(value.readerIndex())) : bad(number);
            case 700 -> value.readableBytes() == 4 ? Float.toString(value.getFloat(value.readerIndex())) : bad(number);
            case 701 -> value.readableBytes() == 8 ? Double.toString(value.getDouble(value.readerIndex())) : bad(number);
            case 0, 25, 705, 1043, 114, 3802 -> value.toString(StandardCharsets.UTF_8);
            default -> throw LocalDatabaseException.error(SqlState.FEATURE_NOT_SUPPORTED,
                    "binary format is not supported for parameter $" + number + " of type " + type);
        };
    }

    private static String bad(int number) {
        throw LocalDatabaseException.error(SqlState.INVALID_BINARY_REPRESENTATION, "incorrect binary data format in bind parameter " + number);
    }
}
