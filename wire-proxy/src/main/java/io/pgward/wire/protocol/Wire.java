package io.pgward.wire.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Low-level pieces of the v3 protocol: every message is {@code byte type | int32 length | body}, where the
 * length counts itself and the body but not the type. Messages are built with {@link #message}, which writes
 * type and length once so no caller counts bytes by hand.
 */
public final class Wire {

    private Wire() {
    }

    /** Builds one message: the type, a length patched in after {@code body} wrote the rest. */
    public static ByteBuf message(ByteBufAllocator alloc, char type, Consumer<ByteBuf> body) {
        ByteBuf buf = alloc.buffer();
        buf.writeByte(type);
        int lengthAt = buf.writerIndex();
        buf.writeInt(0);
        body.accept(buf);
        buf.setInt(lengthAt, buf.writerIndex() - lengthAt);
        return buf;
    }

    /** Builds a message without a type byte (startup-phase packets: StartupMessage, CancelRequest, SSLRequest). */
    public static ByteBuf untypedMessage(ByteBufAllocator alloc, Consumer<ByteBuf> body) {
        ByteBuf buf = alloc.buffer();
        buf.writeInt(0);
        body.accept(buf);
        buf.setInt(0, buf.writerIndex());
        return buf;
    }

    public static void writeCString(ByteBuf buf, String text) {
        buf.writeCharSequence(text, StandardCharsets.UTF_8);
        buf.writeByte(0);
    }

    /**
     * Reads a NUL-terminated UTF-8 string; a missing terminator is a protocol violation that ends the connection.
     * A client message that PostgreSQL answers with an ERROR instead is read with {@link MessageBody#readString}.
     */
    public static String readCString(ByteBuf buf) {
        try {
            return MessageBody.readString(buf);
        } catch (MalformedMessage e) {
            throw new ProtocolException(e.getMessage());
        }
    }
}
