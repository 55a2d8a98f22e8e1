package io.pgward.wire.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Reads the body of a client message field by field as PostgreSQL's {@code pqformat.c} reads it, and fails where it
 * fails, with its texts: a client that sends a malformed message gets the same ERROR from pgward as from PostgreSQL.
 */
public final class MessageBody {

    private MessageBody() {
    }

    /** {@code pq_getmsgbyte}: one byte, unsigned. */
    public static int readByte(ByteBuf body) throws MalformedMessage {
        if (!body.isReadable()) {
            throw new MalformedMessage("no data left in message");
        }
        return body.readUnsignedByte();
    }

    /** {@code pq_getmsgint(msg, 2)}: unsigned, as PostgreSQL reads every int16 count. */
    public static int readUnsignedShort(ByteBuf body) throws MalformedMessage {
        requireBytes(body, 2);
        return body.readUnsignedShort();
    }

    /** {@code pq_getmsgint(msg, 4)}. */
    public static int readInt(ByteBuf body) throws MalformedMessage {
        requireBytes(body, 4);
        return body.readInt();
    }

    /** {@code pq_getmsgbytes}: {@code length} bytes, as a slice of the body. */
    public static ByteBuf readSlice(ByteBuf body, int length) throws MalformedMessage {
        requireBytes(body, length);
        return body.readSlice(length);
    }

    /** {@code pq_getmsgstring}: a NUL-terminated UTF-8 string. */
    public static String readString(ByteBuf body) throws MalformedMessage {
        int end = body.indexOf(body.readerIndex(), body.writerIndex(), (byte) 0);
        if (end < 0) {
            throw new MalformedMessage("invalid string in message");
        }
        String text = body.toString(body.readerIndex(), end - body.readerIndex(), StandardCharsets.UTF_8);
        body.readerIndex(end + 1);
        return text;
    }

    /** {@code pq_getmsgend}: the body must end here. */
    public static void end(ByteBuf body) throws MalformedMessage {
        if (body.isReadable()) {
            throw new MalformedMessage("invalid message format");
        }
    }

    private static void requireBytes(ByteBuf body, int length) throws MalformedMessage {
        if (length < 0 || length > body.readableBytes()) {
            throw new MalformedMessage("insufficient data left in message");
        }
    }
}
