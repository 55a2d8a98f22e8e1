package io.pgward.wire.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

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
        int at = firstInvalid(buf, from, to);
        if (at < 0) {
            return null;
        }
        StringBuilder bytes = new StringBuilder();
        int shown = Math.min(Math.min(sequenceLength(buf.getByte(at) & 0xff), to - at), 8);
        for (int i = 0; i < shown; i++) {
            bytes.append(i == 0 ? "" : " ").append(String.format("0x%02x", buf.getByte(at + i) & 0xff));
        }
        return bytes.toString();
    }

    /**
     * {@code buf[from, to)} as text where every byte that is not part of a valid UTF-8 character is shown as
     * {@code \xNN}, so that a log shows what was sent rather than replacement characters; null when all of it is
     * valid.
     */
    public static String escapedIfInvalid(ByteBuf buf, int from, int to) {
        int at = firstInvalid(buf, from, to);
        if (at < 0) {
            return null;
        }
        StringBuilder text = new StringBuilder(to - from + 16);
        text.append(buf.toString(from, at - from, StandardCharsets.UTF_8));
        while (at < to) {
            int valid = validLength(buf, at, to);
            if (valid == 0) {
                text.append(String.format("\\x%02x", buf.getByte(at) & 0xff));
                at++;
            } else {
                text.append(buf.toString(at, valid, StandardCharsets.UTF_8));
                at += valid;
            }
        }
        return text.toString();
    }

    /** The index of the first byte of the first invalid sequence, or -1. */
    private static int firstInvalid(ByteBuf buf, int from, int to) {
        int at = asciiEnd(buf, from, to);
        while (at < to) {
            int length = validLength(buf, at, to);
            if (length == 0) {
                return at;
            }
            at += length;
        }
        return -1;
    }

    /**
     * Where the run of ASCII bytes from {@code from} ends: SQL text is mostly ASCII, and every read-only statement is
     * checked, so eight bytes are tested at a time.
     */
    private static int asciiEnd(ByteBuf buf, int from, int to) {
        int at = from;
        while (to - at >= Long.BYTES && (buf.getLong(at) & 0x8080808080808080L) == 0) {
            at += Long.BYTES;
        }
        while (at < to && buf.getByte(at) >= 0) {
            at++;
        }
        return at;
    }

    /** The length of the valid run of characters starting at {@code at} (at most 64 KiB), 0 if it starts invalid. */
    private static int validLength(ByteBuf buf, int at, int to) {
        int start = at;
        while (at < to && at - start < 65536) {
            int lead = buf.getByte(at) & 0xff;
            int length = sequenceLength(lead);
            if (lead >= 0x80 && (to - at < length || !legal(buf, at, length))) {
                break;
            }
            at += length;
        }
        return at - start;
    }

    private static int sequenceLength(int lead) {
        return lead < 0x80 ? 1 : (lead & 0xe0) == 0xc0 ? 2 : (lead & 0xf0) == 0xe0 ? 3 : (lead & 0xf8) == 0xf0 ? 4 : 1;
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
