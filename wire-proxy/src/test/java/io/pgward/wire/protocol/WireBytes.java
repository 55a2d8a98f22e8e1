package io.pgward.wire.protocol;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Golden bytes written out as they appear on the wire, and the one assertion that compares them.
 *
 * <p>Lengths in golden bytes are counted by hand on purpose: a test that computed them with the code under
 * test would agree with any mistake it makes.
 */
public final class WireBytes {

    private WireBytes() {
    }

    /**
     * Concatenates {@code parts}: a {@link Character} or {@link Integer} is one byte (an int must be a byte
     * value, -128..255), a {@link String} its UTF-8 bytes without a terminator, a {@code byte[]} itself.
     */
    public static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            switch (part) {
                case Character c -> out.write(c);
                case Integer i -> {
                    if (i < -128 || i > 255) {
                        throw new IllegalArgumentException(i + " is not a byte; use int32() or int16()");
                    }
                    out.write(i);
                }
                case String s -> out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
                case byte[] b -> out.writeBytes(b);
                default -> throw new IllegalArgumentException("not a wire part: " + part);
            }
        }
        return out.toByteArray();
    }

    /** Big-endian int32, as every length and code on the wire. */
    public static byte[] int32(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    /** Big-endian int16. */
    public static byte[] int16(int value) {
        return new byte[] {(byte) (value >>> 8), (byte) value};
    }

    /** Asserts that the readable bytes of {@code actual} are {@code expected}, failing with both hex dumps. */
    public static void assertBytes(byte[] expected, ByteBuf actual) {
        byte[] got = ByteBufUtil.getBytes(actual);
        if (!Arrays.equals(expected, got)) {
            fail("bytes differ at offset " + Arrays.mismatch(expected, got)
                    + "\nexpected:\n" + ByteBufUtil.prettyHexDump(Unpooled.wrappedBuffer(expected))
                    + "\nactual:\n" + ByteBufUtil.prettyHexDump(actual));
        }
    }

    /** {@link #assertBytes}, then releases {@code actual}: for buffers the test has been handed. */
    public static void assertBytesAndRelease(byte[] expected, ByteBuf actual) {
        try {
            assertBytes(expected, actual);
        } finally {
            actual.release();
        }
    }
}
