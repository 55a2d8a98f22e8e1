package io.pgward.guard.lexer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The literal buffer of scan.l, in bytes: octal and hex escapes of E'' strings add single bytes, so the value is
 * only text once PostgreSQL's pg_verifymbstr has accepted it as UTF-8 (no NUL, no overlong forms, no surrogates,
 * nothing above U+10FFFF).
 */
final class Utf8Builder {

    private byte[] bytes = new byte[32];
    private int size;

    void append(char c) {
        appendCodePoint(c);
    }

    void appendCodePoint(int codePoint) {
        if (codePoint < 0x80) {
            appendByte(codePoint);
        } else if (codePoint >= 0xD800 && codePoint <= 0xDFFF) {
            // A lone surrogate cannot come from UTF-8 on the wire; keep the value decodable.
            appendCodePoint(0xFFFD);
        } else {
            for (byte b : new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8)) {
                appendByte(b);
            }
        }
    }

    void appendByte(int b) {
        if (size == bytes.length) {
            bytes = Arrays.copyOf(bytes, size * 2);
        }
        bytes[size++] = (byte) b;
    }

    /** The bytes as text; only valid when no raw byte was appended (they all came from whole characters). */
    @Override
    public String toString() {
        return new String(bytes, 0, size, StandardCharsets.UTF_8);
    }

    /** pg_verifymbstr for UTF8, then the text; the error names the offending bytes as PostgreSQL does. */
    String toVerifiedString(int position) throws LexerException {
        int i = 0;
        while (i < size) {
            int length = validSequenceLength(i);
            if (length == 0) {
                int shown = Math.min(Math.max(expectedLength(bytes[i] & 0xFF), 1), size - i);
                StringBuilder hex = new StringBuilder();
                for (int k = 0; k < shown; k++) {
                    hex.append(k == 0 ? "" : " ").append(String.format("0x%02x", bytes[i + k] & 0xFF));
                }
                throw new LexerException("invalid byte sequence for encoding \"UTF8\": " + hex, position);
            }
            i += length;
        }
        return toString();
    }

    /** pg_utf8_islegal: the length of the well-formed sequence at {@code i}, or 0. */
    private int validSequenceLength(int i) {
        int lead = bytes[i] & 0xFF;
        int length = expectedLength(lead);
        if (lead == 0 || length == 0 || i + length > size) {
            return 0;
        }
        int second = length > 1 ? bytes[i + 1] & 0xFF : 0;
        int low = 0x80;
        int high = 0xBF;
        switch (lead) {
            case 0xE0 -> low = 0xA0;
            case 0xED -> high = 0x9F;
            case 0xF0 -> low = 0x90;
            case 0xF4 -> high = 0x8F;
            default -> { }
        }
        if (length > 1 && (second < low || second > high)) {
            return 0;
        }
        for (int k = 2; k < length; k++) {
            int b = bytes[i + k] & 0xFF;
            if (b < 0x80 || b > 0xBF) {
                return 0;
            }
        }
        return length;
    }

    private static int expectedLength(int lead) {
        if (lead < 0x80) {
            return 1;
        }
        if (lead >= 0xC2 && lead <= 0xDF) {
            return 2;
        }
        if (lead >= 0xE0 && lead <= 0xEF) {
            return 3;
        }
        if (lead >= 0xF0 && lead <= 0xF4) {
            return 4;
        }
        return 0;
    }
}
