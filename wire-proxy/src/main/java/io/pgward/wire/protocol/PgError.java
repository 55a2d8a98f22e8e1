package io.pgward.wire.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An ErrorResponse or NoticeResponse. Wire: {@code 'E' | int32 len | (byte field, cstring value)* | 0}.
 *
 * @param severity ERROR, FATAL, NOTICE, ...
 * @param position 1-based character position in the statement, or 0 for none
 */
public record PgError(String severity, String sqlState, String message, String detail, String hint, int position) {

    public static PgError error(String sqlState, String message) {
        return new PgError("ERROR", sqlState, message, null, null, 0);
    }

    public static PgError fatal(String sqlState, String message) {
        return new PgError("FATAL", sqlState, message, null, null, 0);
    }

    public ByteBuf encode(ByteBufAllocator alloc) {
        return encode(alloc, 'E');
    }

    /** As a NoticeResponse ('N') instead of an ErrorResponse. */
    public ByteBuf encode(ByteBufAllocator alloc, char type) {
        return Wire.message(alloc, type, buf -> {
            field(buf, 'S', severity);
            field(buf, 'V', severity);
            field(buf, 'C', sqlState);
            field(buf, 'M', message);
            field(buf, 'D', detail);
            field(buf, 'H', hint);
            field(buf, 'P', position > 0 ? Integer.toString(position) : null);
            buf.writeByte(0);
        });
    }

    private static void field(ByteBuf buf, char code, String value) {
        if (value != null) {
            buf.writeByte(code);
            Wire.writeCString(buf, value);
        }
    }

    /**
     * The server's ErrorResponse (its body, after type and length) with {@code from} replaced by {@code to} in the
     * message and the position set to {@code position}; every other field is copied as the bytes that arrived. Both
     * strings are ASCII, so the replacement is the same in every client encoding.
     */
    public static ByteBuf replacing(ByteBufAllocator alloc, ByteBuf body, String from, String to, int position) {
        return Wire.message(alloc, 'E', buf -> {
            int i = body.readerIndex();
            while (i < body.writerIndex()) {
                byte code = body.getByte(i);
                int end = code == 0 ? -1 : body.indexOf(i + 1, body.writerIndex(), (byte) 0);
                if (end < 0) {
                    break;
                }
                if (code == 'M') {
                    String message = body.toString(i + 1, end - i - 1, StandardCharsets.ISO_8859_1);
                    buf.writeByte(code);
                    buf.writeCharSequence(message.replace(from, to), StandardCharsets.ISO_8859_1);
                    buf.writeByte(0);
                } else if (code == 'P') {
                    field(buf, 'P', Integer.toString(position));
                } else {
                    buf.writeBytes(body, i, end - i + 1);
                }
                i = end + 1;
            }
            buf.writeByte(0);
        });
    }

    /**
     * The server's ErrorResponse (its body, after type and length) with the fields of {@code replaced} set to their
     * values there (UTF-8, the pinned client encoding); every other field is copied as the bytes that arrived.
     */
    public static ByteBuf withFields(ByteBufAllocator alloc, ByteBuf body, Map<Character, String> replaced) {
        return Wire.message(alloc, 'E', buf -> {
            int i = body.readerIndex();
            while (i < body.writerIndex()) {
                byte code = body.getByte(i);
                int end = code == 0 ? -1 : body.indexOf(i + 1, body.writerIndex(), (byte) 0);
                if (end < 0) {
                    break;
                }
                String value = replaced.get((char) code);
                if (value != null) {
                    buf.writeByte(code);
                    buf.writeCharSequence(value, StandardCharsets.UTF_8);
                    buf.writeByte(0);
                } else {
                    buf.writeBytes(body, i, end - i + 1);
                }
                i = end + 1;
            }
            buf.writeByte(0);
        });
    }

    /** The fields of an ErrorResponse or NoticeResponse body (after type and length), by field code. */
    public static Map<Character, String> fields(ByteBuf body) {
        Map<Character, String> fields = new LinkedHashMap<>();
        int i = body.readerIndex();
        while (i < body.writerIndex()) {
            byte code = body.getByte(i);
            if (code == 0) {
                break;
            }
            int end = body.indexOf(i + 1, body.writerIndex(), (byte) 0);
            if (end < 0) {
                break;
            }
            fields.put((char) code, body.toString(i + 1, end - i - 1, StandardCharsets.UTF_8));
            i = end + 1;
        }
        return fields;
    }
}
