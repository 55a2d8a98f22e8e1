package io.pgward.wire.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.pgward.guard.Verdict;
import io.pgward.wire.protocol.BindParameters;
import io.pgward.wire.protocol.MalformedMessage;
import io.pgward.wire.protocol.Wire;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text values of some parameters of a Bind message, for {@link TypeNameStatements}' checks. A value that is
 * NULL, a regtype value in binary format (an OID: nothing is looked up for it) or not valid UTF-8 (the server fails
 * the Bind on its encoding, whatever it names) is null: the server's own answer for it needs no check. A text
 * parameter's value in binary format is its text's bytes, read as in text format.
 */
final class BoundValues {

    private BoundValues() {
    }

    /**
     * @param frame the whole Bind message, type and length included
     * @param wanted the parameters wanted
     * @throws MalformedMessage when the Bind does not hold the values it announces
     */
    static Map<Integer, String> text(ByteBuf frame, List<Verdict.TypeNameParameter> wanted)
            throws MalformedMessage {
        List<BindParameters.Value> parameters = BindParameters.read(frame);
        Map<Integer, String> values = new LinkedHashMap<>();
        for (Verdict.TypeNameParameter w : wanted) {
            if (w.number() > parameters.size()) {
                continue;
            }
            BindParameters.Value p = parameters.get(w.number() - 1);
            values.put(w.number(), p.bytes() == null || p.binary() && !w.text() ? null : utf8(p.bytes()));
        }
        return values;
    }

    /**
     * A type name nothing has, standing in for a refused value: {@code token}, padded with type modifiers (which the
     * server never reads for a name it cannot find) to at least the value's length, so that the server's CONTEXT line
     * shows as much of it as it would of the value ({@link #context}).
     */
    static String standIn(String token, String value) {
        return standIn(token, value, false);
    }

    /**
     * As {@link #standIn(String, String)}; {@code inSchema}: the token names the type's schema ({@code token.t}), so
     * that the server fails on the schema, as for a value whose schema is hidden.
     */
    static String standIn(String token, String value, boolean inSchema) {
        StringBuilder name = new StringBuilder(token).append(inSchema ? ".t" : "");
        int length = value.getBytes(StandardCharsets.UTF_8).length;
        if (name.length() < length) {
            name.append("(0");
            while (name.length() + 1 < length) {
                name.append(",0");
            }
            name.append(')');
        }
        return name.toString();
    }

    /** The Bind with parameter {@code number}'s value replaced by {@code value} in text format. */
    static ByteBuf replacing(ByteBufAllocator alloc, ByteBuf frame, int number, String value) {
        ByteBuf body = frame.slice(frame.readerIndex() + 5, frame.readableBytes() - 5);
        String portal = Wire.readCString(body);
        String statement = Wire.readCString(body);
        int formatCount = body.readUnsignedShort();
        ByteBuf formats = body.readSlice(formatCount * 2);
        int count = body.readUnsignedShort();
        return Wire.message(alloc, 'B', buf -> {
            Wire.writeCString(buf, portal);
            Wire.writeCString(buf, statement);
            buf.writeShort(formatCount);
            buf.writeBytes(formats, formats.readerIndex(), formats.readableBytes());
            buf.writeShort(count);
            for (int i = 1; i <= count; i++) {
                int length = body.readInt();
                ByteBuf old = length < 0 ? null : body.readSlice(length);
                if (i == number) {
                    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                    buf.writeInt(bytes.length);
                    buf.writeBytes(bytes);
                } else {
                    buf.writeInt(length);
                    if (old != null) {
                        buf.writeBytes(old, old.readerIndex(), old.readableBytes());
                    }
                }
            }
            buf.writeBytes(body, body.readerIndex(), body.readableBytes());
        });
    }

    /**
     * The server's CONTEXT line for the stand-in ({@code unnamed portal parameter $1 = '<shown>'}) as it would read
     * for {@code value}: the server shows a value whole, or cut to log_parameter_max_length_on_error bytes with
     * {@code ...} after it; how much it showed of the stand-in, which is no shorter than the value, tells the length.
     */
    static String context(String context, String standIn, String value) {
        int line = context.lastIndexOf(" parameter $");
        int open = line < 0 ? -1 : context.indexOf(" = '", line);
        int close = open < 0 ? -1 : context.indexOf('\'', open + 4);
        if (close < 0) {
            return context.replace(standIn, value);
        }
        String shown = context.substring(open + 4, close);
        String quoted;
        if (shown.equals(standIn)) {
            quoted = value;
        } else if (shown.endsWith("...") && standIn.startsWith(shown.substring(0, shown.length() - 3))) {
            quoted = clipped(value, shown.length() - 3);
        } else {
            quoted = "...";
        }
        return context.substring(0, open + 4) + quoted.replace("'", "''") + context.substring(close);
    }

    /** {@code value} cut to at most {@code bytes} UTF-8 bytes at a character boundary, with "..." when cut. */
    private static String clipped(String value, int bytes) {
        if (value.getBytes(StandardCharsets.UTF_8).length <= bytes) {
            return value;
        }
        int used = 0;
        int end = 0;
        while (end < value.length()) {
            int cp = value.codePointAt(end);
            int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (used + size > bytes) {
                break;
            }
            used += size;
            end += Character.charCount(cp);
        }
        return value.substring(0, end) + "...";
    }

    private static String utf8(ByteBuf value) {
        if (value.indexOf(value.readerIndex(), value.writerIndex(), (byte) 0) >= 0) {
            return null;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(io.netty.buffer.ByteBufUtil.getBytes(value))).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
