package io.pgward.wire.relay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.pgward.wire.protocol.BindParameters;
import io.pgward.wire.protocol.MalformedMessage;
import io.pgward.wire.protocol.Wire;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The values a Bind gives to the parameters of {@code pgward.*} calls ({@link TypeNameStatements.Calls}), as text:
 * in text format as they are; in binary format a text-like parameter's bytes (text, varchar, name, or a type the
 * client left to the server, which pgward's statement infers as text) and an integer's number. Anything else the
 * client must send as text.
 */
final class CallValues {

    private static final int INT2 = 21;
    private static final int INT4 = 23;
    private static final int INT8 = 20;
    private static final List<Integer> TEXT_LIKE = List.of(0, 25, 1043, 19, 705, 1042);
    /** A question or relation name longer than this is not one: it is refused before anything is computed. */
    static final int MAX_VALUE_BYTES = 64 * 1024;

    private CallValues() {
    }

    /** Why a value cannot be read; the message is the client's error. */
    static final class Unreadable extends Exception {
        Unreadable(String message) {
            super(message);
        }
    }

    /**
     * @param frame the whole Bind message
     * @throws Unreadable a value too long, not UTF-8, or in a binary format pgward does not read
     * @throws MalformedMessage the Bind does not hold the values it announces
     */
    static Map<Integer, String> read(ByteBuf frame, TypeNameStatements.Calls calls) throws Unreadable,
            MalformedMessage {
        List<BindParameters.Value> values = BindParameters.read(frame);
        Map<Integer, String> read = new HashMap<>();
        for (int number : calls.parameters()) {
            if (number > values.size()) {
                // The server fails the Bind for its parameter count; the computed statement has the same count.
                continue;
            }
            BindParameters.Value value = values.get(number - 1);
            if (value.bytes() == null) {
                read.put(number, null);
                continue;
            }
            if (value.bytes().readableBytes() > MAX_VALUE_BYTES) {
                throw new Unreadable("the value bound to $" + number + " is longer than the " + MAX_VALUE_BYTES
                        + " bytes a pgward function argument may have");
            }
            int type = number <= calls.parameterTypes().length ? calls.parameterTypes()[number - 1] : 0;
            read.put(number, value.binary() ? binary(number, type, value.bytes()) : utf8(number, value.bytes()));
        }
        return read;
    }

    private static String binary(int number, int type, ByteBuf bytes) throws Unreadable {
        int length = bytes.readableBytes();
        if (type == INT2 && length == 2) {
            return Short.toString(bytes.getShort(bytes.readerIndex()));
        }
        if (type == INT4 && length == 4) {
            return Integer.toString(bytes.getInt(bytes.readerIndex()));
        }
        if (type == INT8 && length == 8) {
            return Long.toString(bytes.getLong(bytes.readerIndex()));
        }
        if (TEXT_LIKE.contains(type)) {
            return utf8(number, bytes);
        }
        throw new Unreadable("the value bound to $" + number + " of a pgward function must be sent in text format");
    }

    private static String utf8(int number, ByteBuf bytes) throws Unreadable {
        if (bytes.indexOf(bytes.readerIndex(), bytes.writerIndex(), (byte) 0) >= 0) {
            throw new Unreadable("invalid byte sequence for encoding \"UTF8\": 0x00");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(io.netty.buffer.ByteBufUtil.getBytes(bytes))).toString();
        } catch (CharacterCodingException e) {
            throw new Unreadable("the value bound to $" + number + " is not valid UTF-8");
        }
    }

    /** The Bind with its statement name replaced by {@code statement}; everything else as it came. */
    static ByteBuf renamed(ByteBufAllocator alloc, ByteBuf frame, String statement) {
        ByteBuf body = frame.slice(frame.readerIndex() + 5, frame.readableBytes() - 5);
        String portal = Wire.readCString(body);
        Wire.readCString(body);
        return Wire.message(alloc, 'B', buf -> {
            Wire.writeCString(buf, portal);
            Wire.writeCString(buf, statement);
            buf.writeBytes(body, body.readerIndex(), body.readableBytes());
        });
    }
}
