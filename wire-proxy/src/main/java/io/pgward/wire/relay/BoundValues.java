package io.pgward.wire.relay;

import io.netty.buffer.ByteBuf;
import io.pgward.wire.protocol.ProtocolException;
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
 * NULL, in binary format (an OID: nothing is looked up for it) or not valid UTF-8 (the server fails the Bind on its
 * encoding, whatever it names) is null: the server's own answer for it needs no check.
 */
final class BoundValues {

    private BoundValues() {
    }

    /**
     * @param frame the whole Bind message, type and length included
     * @param numbers the parameters wanted, 1-based
     */
    static Map<Integer, String> text(ByteBuf frame, List<Integer> numbers) {
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
        Map<Integer, String> values = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int length = body.readInt();
            ByteBuf value = length < 0 ? null : body.readSlice(length);
            int number = i + 1;
            if (!numbers.contains(number)) {
                continue;
            }
            boolean binary = (formatCount == 1 ? formats[0] : formatCount == 0 ? 0 : formats[i]) != 0;
            values.put(number, value == null || binary ? null : utf8(value));
        }
        return values;
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
