package io.pgward.wire.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Encoders for the messages pgward writes itself, named as in the protocol chapter. */
public final class Messages {

    private Messages() {
    }

    /** Wire: {@code 'R' | int32 8 | int32 0}. */
    public static ByteBuf authenticationOk(ByteBufAllocator alloc) {
        return authentication(alloc, 0, null);
    }

    /** Wire: {@code 'R' | int32 len | int32 code | payload}. */
    public static ByteBuf authentication(ByteBufAllocator alloc, int code, byte[] payload) {
        return Wire.message(alloc, 'R', buf -> {
            buf.writeInt(code);
            if (payload != null) {
                buf.writeBytes(payload);
            }
        });
    }

    /** AuthenticationSASL. Wire: {@code 'R' | int32 len | int32 10 | (cstring mechanism)* | 0}. */
    public static ByteBuf authenticationSasl(ByteBufAllocator alloc, List<String> mechanisms) {
        return Wire.message(alloc, 'R', buf -> {
            buf.writeInt(10);
            mechanisms.forEach(m -> Wire.writeCString(buf, m));
            buf.writeByte(0);
        });
    }

    /** Wire: {@code 'S' | int32 len | cstring name | cstring value}. */
    public static ByteBuf parameterStatus(ByteBufAllocator alloc, String name, String value) {
        return Wire.message(alloc, 'S', buf -> {
            Wire.writeCString(buf, name);
            Wire.writeCString(buf, value);
        });
    }

    /** Wire: {@code 'K' | int32 12 | int32 pid | int32 secret}. */
    public static ByteBuf backendKeyData(ByteBufAllocator alloc, int processId, int secretKey) {
        return Wire.message(alloc, 'K', buf -> buf.writeInt(processId).writeInt(secretKey));
    }

    /** Wire: {@code 'Z' | int32 5 | byte status} with status 'I', 'T' or 'E'. */
    public static ByteBuf readyForQuery(ByteBufAllocator alloc, char status) {
        return Wire.message(alloc, 'Z', buf -> buf.writeByte(status));
    }

    /** Wire: {@code 'v' | int32 len | int32 newest minor | int32 n | cstring option * n}. */
    public static ByteBuf negotiateProtocolVersion(ByteBufAllocator alloc, int minor, List<String> unrecognized) {
        return Wire.message(alloc, 'v', buf -> {
            buf.writeInt(minor);
            buf.writeInt(unrecognized.size());
            unrecognized.forEach(o -> Wire.writeCString(buf, o));
        });
    }

    /** Wire: {@code 'Q' | int32 len | cstring sql}. */
    public static ByteBuf query(ByteBufAllocator alloc, String sql) {
        return Wire.message(alloc, 'Q', buf -> Wire.writeCString(buf, sql));
    }

    /**
     * The first column of the first DataRow among consecutive backend messages, read as UTF-8 text; null when
     * there is none or it is NULL.
     */
    public static String firstTextValue(ByteBuf messages) {
        int at = messages.readerIndex();
        while (messages.writerIndex() - at >= 5) {
            int length = messages.getInt(at + 1);
            if (messages.getByte(at) == 'D' && messages.getUnsignedShort(at + 5) > 0) {
                int valueLength = messages.getInt(at + 7);
                return valueLength < 0 ? null
                        : messages.toString(at + 11, valueLength, StandardCharsets.UTF_8);
            }
            at += 1 + length;
        }
        return null;
    }

    /** Wire: {@code 'P' | int32 len | cstring name | cstring sql | int16 0}. */
    public static ByteBuf parse(ByteBufAllocator alloc, String statement, String sql) {
        return Wire.message(alloc, 'P', buf -> {
            Wire.writeCString(buf, statement);
            Wire.writeCString(buf, sql);
            buf.writeShort(0);
        });
    }

    /** Wire: {@code 'P' | int32 len | cstring name | cstring sql | int16 n | int32 type * n}. */
    public static ByteBuf parse(ByteBufAllocator alloc, String statement, String sql, int[] parameterTypes) {
        return Wire.message(alloc, 'P', buf -> {
            Wire.writeCString(buf, statement);
            Wire.writeCString(buf, sql);
            buf.writeShort(parameterTypes.length);
            for (int type : parameterTypes) {
                buf.writeInt(type);
            }
        });
    }

    /**
     * A Bind without parameters whose result columns all come in text. Wire: {@code 'B' | int32 len | cstring portal
     * | cstring statement | int16 0 (parameter formats) | int16 0 (values) | int16 0 (result formats)}.
     */
    public static ByteBuf bind(ByteBufAllocator alloc, String portal, String statement) {
        return Wire.message(alloc, 'B', buf -> {
            Wire.writeCString(buf, portal);
            Wire.writeCString(buf, statement);
            buf.writeShort(0).writeShort(0).writeShort(0);
        });
    }

    /** An Execute of every row. Wire: {@code 'E' | int32 len | cstring portal | int32 0 (no row limit)}. */
    public static ByteBuf execute(ByteBufAllocator alloc, String portal) {
        return Wire.message(alloc, 'E', buf -> {
            Wire.writeCString(buf, portal);
            buf.writeInt(0);
        });
    }

    /** Wire: {@code 'C' | int32 len | byte 'S' (statement) or 'P' (portal) | cstring name}. */
    public static ByteBuf close(ByteBufAllocator alloc, char kind, String name) {
        return Wire.message(alloc, 'C', buf -> {
            buf.writeByte(kind);
            Wire.writeCString(buf, name);
        });
    }

    /** Wire: {@code 'S' | int32 4}. */
    public static ByteBuf sync(ByteBufAllocator alloc) {
        return Wire.message(alloc, 'S', buf -> { });
    }

    /** Wire: {@code 'H' | int32 4}. */
    public static ByteBuf flush(ByteBufAllocator alloc) {
        return Wire.message(alloc, 'H', buf -> { });
    }

    /** Wire: {@code 'f' | int32 len | cstring reason}. */
    public static ByteBuf copyFail(ByteBufAllocator alloc, String reason) {
        return Wire.message(alloc, 'f', buf -> Wire.writeCString(buf, reason));
    }

    /** Whether consecutive backend messages hold a DataRow of one column whose text is {@code value}. */
    public static boolean hasOneColumnRow(ByteBuf messages, String value) {
        byte[] wanted = value.getBytes(StandardCharsets.UTF_8);
        int at = messages.readerIndex();
        while (messages.writerIndex() - at >= 5) {
            int length = messages.getInt(at + 1);
            if (messages.getByte(at) == 'D' && length == 4 + 2 + 4 + wanted.length && messages.getUnsignedShort(at + 5) == 1
                    && messages.getInt(at + 7) == wanted.length
                    && ByteBufUtil.equals(messages, at + 11, Unpooled.wrappedBuffer(wanted), 0, wanted.length)) {
                return true;
            }
            at += 1 + length;
        }
        return false;
    }

    /** Wire: {@code 'X' | int32 4}. */
    public static ByteBuf terminate(ByteBufAllocator alloc) {
        return Wire.message(alloc, 'X', buf -> { });
    }

    /** Wire: {@code 'p' | int32 len | payload}: PasswordMessage, SASLInitialResponse or SASLResponse. */
    public static ByteBuf authenticationResponse(ByteBufAllocator alloc, byte[] payload) {
        return Wire.message(alloc, 'p', buf -> buf.writeBytes(payload));
    }

    /** Wire: {@code int32 len | int32 196608 | (cstring name, cstring value)* | 0}. */
    public static ByteBuf startupMessage(ByteBufAllocator alloc, Map<String, String> parameters) {
        return Wire.untypedMessage(alloc, buf -> {
            buf.writeInt(StartupPacket.PROTOCOL_3_0);
            parameters.forEach((name, value) -> {
                Wire.writeCString(buf, name);
                Wire.writeCString(buf, value);
            });
            buf.writeByte(0);
        });
    }

    /** Wire: {@code int32 8 | int32 80877103}. */
    public static ByteBuf sslRequest(ByteBufAllocator alloc) {
        return Wire.untypedMessage(alloc, buf -> buf.writeInt(StartupPacket.SSL_REQUEST_CODE));
    }

    /** Wire: {@code int32 16 | int32 80877102 | int32 pid | int32 secret}. */
    public static ByteBuf cancelRequest(ByteBufAllocator alloc, int processId, int secretKey) {
        return Wire.untypedMessage(alloc, buf -> buf.writeInt(StartupPacket.CANCEL_REQUEST_CODE)
                .writeInt(processId).writeInt(secretKey));
    }
}
