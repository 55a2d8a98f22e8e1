package io.pgward.guard.lexer;

/**
 * Unicode escapes of U&amp;'...' and U&amp;"..." literals, resolved after scanning as PostgreSQL's grammar filter
 * does (parser.c: check_uescapechar, str_udeescape): {@code \XXXX}, {@code \+XXXXXX} and a doubled escape
 * character, with the escape character chosen by an optional {@code UESCAPE 'c'}.
 */
final class UnicodeEscapes {

    private UnicodeEscapes() {
    }

    /** check_uescapechar: one single-byte character that is no hex digit, +, quote, double quote or space. */
    static boolean isValidEscapeCharacter(String escape) {
        if (escape.length() != 1) {
            return false;
        }
        char c = escape.charAt(0);
        return c < 0x80 && !QuotedLiterals.isHexDigit(c) && c != '+' && c != '\'' && c != '"' && !Scanner.isSpace(c);
    }

    /**
     * str_udeescape.
     *
     * @param body the literal between its quotes, doubled quotes already collapsed
     * @param tokenStart offset of the U in U&amp;; PostgreSQL reports errors at tokenStart + 3 + offset in body
     */
    static String resolve(String body, char escape, int tokenStart) throws LexerException {
        StringBuilder out = new StringBuilder(body.length());
        int pairFirst = 0;
        int i = 0;
        while (i < body.length()) {
            char c = body.charAt(i);
            int position = tokenStart + 3 + i;
            if (c != escape) {
                if (pairFirst != 0) {
                    throw new LexerException("invalid Unicode surrogate pair", position);
                }
                out.append(c);
                i++;
                continue;
            }
            int codePoint;
            if (i + 1 < body.length() && body.charAt(i + 1) == escape) {
                if (pairFirst != 0) {
                    throw new LexerException("invalid Unicode surrogate pair", position);
                }
                out.append(escape);
                i += 2;
                continue;
            } else if (QuotedLiterals.hexDigits(body, i + 1, 4) == 4) {
                codePoint = Integer.parseInt(body.substring(i + 1, i + 5), 16);
                i += 5;
            } else if (i + 1 < body.length() && body.charAt(i + 1) == '+'
                    && QuotedLiterals.hexDigits(body, i + 2, 6) == 6) {
                codePoint = Integer.parseInt(body.substring(i + 2, i + 8), 16);
                i += 8;
            } else {
                throw new LexerException("invalid Unicode escape", position);
            }
            if (!isValidCodePoint(codePoint)) {
                throw new LexerException("invalid Unicode escape value", position);
            }
            if (pairFirst != 0) {
                if (!isSurrogateSecond(codePoint)) {
                    throw new LexerException("invalid Unicode surrogate pair", position);
                }
                out.appendCodePoint(Character.toCodePoint((char) pairFirst, (char) codePoint));
                pairFirst = 0;
            } else if (isSurrogateSecond(codePoint)) {
                throw new LexerException("invalid Unicode surrogate pair", position);
            } else if (isSurrogateFirst(codePoint)) {
                pairFirst = codePoint;
            } else {
                out.appendCodePoint(codePoint);
            }
        }
        if (pairFirst != 0) {
            throw new LexerException("invalid Unicode surrogate pair", tokenStart + 3 + body.length());
        }
        return out.toString();
    }

    /** is_valid_unicode_codepoint. */
    static boolean isValidCodePoint(long c) {
        return c > 0 && c <= 0x10FFFF;
    }

    static boolean isSurrogateFirst(long c) {
        return c >= 0xD800 && c <= 0xDBFF;
    }

    static boolean isSurrogateSecond(long c) {
        return c >= 0xDC00 && c <= 0xDFFF;
    }
}
