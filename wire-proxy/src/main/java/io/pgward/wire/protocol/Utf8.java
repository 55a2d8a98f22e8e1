package io.pgward.wire.protocol;

import io.netty.buffer.ByteBuf;

/**
 * UTF-8 validity exactly as PostgreSQL checks text from a client whose encoding is UTF8
 * ({@code pg_utf_mblen}, {@code pg_utf8_islegal} and {@code report_invalid_encoding} in wchar.c / mbutils.c):
 * no overlong forms, no surrogates, nothing above U+10FFFF, no truncated character. pgward decodes SQL text with
 * replacement characters, so a text that is not valid UTF-8 is not the text the server would read; for sessions
 * pinned to UTF8 it is refused with the server's own error instead of being judged.
 */
public final class Utf8 {

    /** PostgreSQL's SQLSTATE for it: character_not_in_repertoire. */
    public static final String INVALID_SQLSTATE = SqlState.CHARACTER_NOT_IN_REPERTOIRE;

    private Utf8() {
    }

    /**
     * The first invalid sequence in {@code buf[from, to)}, described as PostgreSQL describes it
     * ({@code 0xc3 0x27}), or null when all of it is valid.
     */
    public static String invalidSequence(ByteBuf buf, int from, int to) {
        int at = from;
        while (at < to) {
            int lead = buf.getByte(at) & 0xff;
            if (lead < 0x80) {
                at++;
                continue;
            }
            int length = (lead & 0xe0) == 0xc0 ? 2 : (lead & 0xf0) == 0xe0 ? 3 : (lead & 0xf8) == 0xf0 ? 4 : 1;
            if (to - at < length || !legal(buf, at, length)) {
                StringBuilder bytes = new StringBuilder();
                int shown = Math.min(Math.min(length, to - at), 8);
                for (int i = 0; i < shown; i++) {
                    bytes.append(i == 0 ? "" : " ").append(String.format("0x%02x", buf.getByte(at + i) & 0xff));
                }
                return bytes.toString();
            }
            at += length;
        }
        return null;
    }

    /** The message of PostgreSQL's error for it. */
    public static String invalidMessage(String sequence) {
        return "invalid byte sequence for encoding \"UTF8\": " + sequence;
    }

    /** {@code pg_utf8_islegal}. */
    private static boolean legal(ByteBuf buf, int at, int length) {
        int lead = buf.getByte(at) & 0xff;
        for (int i = length - 1; i >= 2; i--) {
            int b = buf.getByte(at + i) & 0xff;
            if (b < 0x80 || b > 0xbf) {
                return false;
            }
        }
        if (length >= 2) {
            int second = buf.getByte(at + 1) & 0xff;
            boolean ok = switch (lead) {
                case 0xe0 -> second >= 0xa0 && second <= 0xbf;
                case 0xed -> second >= 0x80 && second <= 0x9f;
                case 0xf0 -> second >= 0x90 && second <= 0xbf;
                case 0xf4 -> second >= 0x80 && second <= 0x8f;
                default -> second >= 0x80 && second <= 0xbf;
            };
            if (!ok) {
                return false;
            }
        }
        return !(lead >= 0x80 && lead < 0xc2) && lead <= 0xf4;
    }
}
