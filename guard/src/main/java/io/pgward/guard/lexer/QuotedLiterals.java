package io.pgward.guard.lexer;

import io.pgward.guard.lexer.Lexeme.Form;
import io.pgward.guard.lexer.Token.Kind;

/**
 * The quoted states of scan.l: strings (xq standard, xe escape, xb bit, xh hex, xus Unicode, with the xqs
 * look-ahead that glues literals separated by whitespace holding a newline) and quoted identifiers (xd, xui).
 */
final class QuotedLiterals {

    /** Which exclusive state of scan.l reads the string body. */
    enum Mode {
        /** xq: '' is a quote, a backslash is just a backslash. */
        STANDARD("unterminated quoted string"),
        /** xe: E'...', and '...' when standard_conforming_strings is off. */
        ESCAPE("unterminated quoted string"),
        /** xb: B'...', no '' doubling. */
        BIT("unterminated bit string literal"),
        /** xh: X'...', no '' doubling. */
        HEX("unterminated hexadecimal string literal"),
        /** xus: U&amp;'...', Unicode escapes resolved later by {@link UnicodeEscapes}. */
        UNICODE("unterminated quoted string");

        final String unterminated;

        Mode(String unterminated) {
            this.unterminated = unterminated;
        }
    }

    private QuotedLiterals() {
    }

    /**
     * A string literal.
     *
     * @param tokenStart where the token starts (its prefix letter, if any); errors point here
     * @param quote the opening quote
     */
    static Lexeme string(String sql, int tokenStart, int quote, Mode mode, Form form) throws LexerException {
        Utf8Builder value = new Utf8Builder();
        boolean doubling = mode != Mode.BIT && mode != Mode.HEX;
        int length = sql.length();
        int i = quote + 1;
        while (true) {
            if (i >= length) {
                throw new LexerException(mode.unterminated, tokenStart);
            }
            char c = sql.charAt(i);
            if (c == '\'') {
                if (doubling && i + 1 < length && sql.charAt(i + 1) == '\'') {
                    value.append('\'');
                    i += 2;
                    continue;
                }
                int continued = continuation(sql, i + 1);
                if (continued < 0) {
                    String text = mode == Mode.ESCAPE ? value.toVerifiedString(tokenStart) : value.toString();
                    return new Lexeme(Kind.STRING, form, tokenStart, i + 1, text);
                }
                i = continued + 1;
            } else if (c == '\\' && mode == Mode.ESCAPE) {
                i = escape(sql, i, value);
            } else {
                int codePoint = sql.codePointAt(i);
                value.appendCodePoint(codePoint);
                i += Character.charCount(codePoint);
            }
        }
    }

    /**
     * {quotecontinue}: after a closing quote, whitespace and -- comments that include at least one newline, then
     * a quote, continue the same literal. Returns that quote's index, or -1. Slash-star comments do not count.
     */
    private static int continuation(String sql, int from) {
        int length = sql.length();
        boolean newline = false;
        int i = from;
        while (i < length) {
            char c = sql.charAt(i);
            if (Scanner.isNewline(c)) {
                newline = true;
                i++;
            } else if (Scanner.isSpace(c)) {
                i++;
            } else if (c == '-' && i + 1 < length && sql.charAt(i + 1) == '-') {
                i += 2;
                while (i < length && !Scanner.isNewline(sql.charAt(i))) {
                    i++;
                }
            } else {
                break;
            }
        }
        return newline && i < length && sql.charAt(i) == '\'' ? i : -1;
    }

    /**
     * One backslash sequence of state xe at {@code backslash}; returns the index after it. Longest match decides:
     * \\ooo octal, \\xHH hex, \\uXXXX and \\UXXXXXXXX Unicode (a \\u or \\U without all its digits is an error,
     * {xeunicodefail} beating {xeescape}), otherwise the next character with b f n r t v translated.
     */
    private static int escape(String sql, int backslash, Utf8Builder value) throws LexerException {
        int length = sql.length();
        if (backslash + 1 >= length) {
            value.append('\\');
            return backslash + 1;
        }
        char c = sql.charAt(backslash + 1);
        if (c >= '0' && c <= '7') {
            int end = backslash + 2;
            while (end < length && end < backslash + 4 && sql.charAt(end) >= '0' && sql.charAt(end) <= '7') {
                end++;
            }
            value.appendByte(Integer.parseInt(sql.substring(backslash + 1, end), 8));
            return end;
        }
        if (c == 'x' && hexDigits(sql, backslash + 2, 2) > 0) {
            int end = backslash + 2 + hexDigits(sql, backslash + 2, 2);
            value.appendByte(Integer.parseInt(sql.substring(backslash + 2, end), 16));
            return end;
        }
        if (c == 'u' || c == 'U') {
            return unicodeEscape(sql, backslash, value);
        }
        int codePoint = sql.codePointAt(backslash + 1);
        value.appendCodePoint(switch (codePoint) {
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'v' -> '\u000B';
            default -> codePoint;
        });
        return backslash + 1 + Character.charCount(codePoint);
    }

    /** {xeunicode}, with the xeu state for a UTF-16 surrogate pair written as two escapes. */
    private static int unicodeEscape(String sql, int backslash, Utf8Builder value) throws LexerException {
        int digits = sql.charAt(backslash + 1) == 'u' ? 4 : 8;
        if (hexDigits(sql, backslash + 2, digits) < digits) {
            throw new LexerException("invalid Unicode escape", backslash);
        }
        int end = backslash + 2 + digits;
        long codePoint = Long.parseLong(sql.substring(backslash + 2, end), 16);
        if (UnicodeEscapes.isSurrogateSecond(codePoint)) {
            throw new LexerException("invalid Unicode surrogate pair", backslash);
        }
        if (UnicodeEscapes.isSurrogateFirst(codePoint)) {
            int second = end;
            if (second + 1 >= sql.length() || sql.charAt(second) != '\\'
                    || (sql.charAt(second + 1) != 'u' && sql.charAt(second + 1) != 'U')) {
                throw new LexerException("invalid Unicode surrogate pair", second);
            }
            int secondDigits = sql.charAt(second + 1) == 'u' ? 4 : 8;
            if (hexDigits(sql, second + 2, secondDigits) < secondDigits) {
                throw new LexerException("invalid Unicode escape", second);
            }
            end = second + 2 + secondDigits;
            long low = Long.parseLong(sql.substring(second + 2, end), 16);
            if (!UnicodeEscapes.isSurrogateSecond(low)) {
                throw new LexerException("invalid Unicode surrogate pair", second);
            }
            codePoint = Character.toCodePoint((char) codePoint, (char) low);
            backslash = second;
        }
        if (!UnicodeEscapes.isValidCodePoint(codePoint)) {
            throw new LexerException("invalid Unicode escape value", backslash);
        }
        value.appendCodePoint((int) codePoint);
        return end;
    }

    /** How many ASCII hex digits (at most {@code max}) start at {@code from}. */
    static int hexDigits(String sql, int from, int max) {
        int count = 0;
        while (count < max && from + count < sql.length() && isHexDigit(sql.charAt(from + count))) {
            count++;
        }
        return count;
    }

    static boolean isHexDigit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    /**
     * A quoted identifier: "" is a quote, an empty name is an error. Plain ones are cut to 63 bytes here;
     * U&amp;"..." keeps its raw body, since PostgreSQL cuts only after resolving the escapes.
     */
    static Lexeme identifier(String sql, int tokenStart, int quote, boolean unicode) throws LexerException {
        StringBuilder value = new StringBuilder();
        int length = sql.length();
        int i = quote + 1;
        while (true) {
            if (i >= length) {
                throw new LexerException("unterminated quoted identifier", tokenStart);
            }
            char c = sql.charAt(i);
            if (c == '"') {
                if (i + 1 < length && sql.charAt(i + 1) == '"') {
                    value.append('"');
                    i += 2;
                    continue;
                }
                break;
            }
            value.append(c);
            i++;
        }
        if (value.isEmpty()) {
            throw new LexerException("zero-length delimited identifier", tokenStart);
        }
        return unicode
                ? new Lexeme(Kind.QUOTED_IDENTIFIER, Form.UNICODE_IDENTIFIER, tokenStart, i + 1, value.toString())
                : new Lexeme(Kind.QUOTED_IDENTIFIER, Form.PLAIN, tokenStart, i + 1,
                        Scanner.truncateIdentifier(value.toString()));
    }
}
