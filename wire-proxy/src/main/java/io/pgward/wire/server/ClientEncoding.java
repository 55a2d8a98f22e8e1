package io.pgward.wire.server;

import java.util.Locale;
import java.util.Set;

/**
 * The client encodings pgward can read statements in exactly as the server does. pgward reads SQL as UTF-8,
 * which finds every quote, backslash and semicolon correctly for UTF-8 and for the encodings in which a byte
 * below 0x80 is always that ASCII character. The client-only encodings below break that rule: a quote or
 * backslash byte can be the second half of a two-byte character, the classic way to hide a statement from a
 * filter that reads the bytes differently from the server.
 */
final class ClientEncoding {

    /** PostgreSQL's names and aliases for them, cleaned as the server cleans them (lower case, letters and digits). */
    private static final Set<String> ASCII_UNSAFE = Set.of("sjis", "shiftjis", "mskanji", "win932", "cp932",
            "shiftjis2004", "big5", "win950", "cp950", "gbk", "win936", "cp936", "gb18030", "uhc", "win949", "cp949",
            "johab");

    private ClientEncoding() {
    }

    static boolean readable(String name) {
        return name == null || !ASCII_UNSAFE.contains(clean(name));
    }

    private static String clean(String name) {
        StringBuilder cleaned = new StringBuilder();
        for (char c : name.toLowerCase(Locale.ROOT).toCharArray()) {
            if (Character.isLetterOrDigit(c)) {
                cleaned.append(c);
            }
        }
        return cleaned.toString();
    }
}
