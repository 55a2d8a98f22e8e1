package io.pgward.guard.classify;

import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import io.pgward.guard.lexer.Token.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * TEST ONLY: a small stand-in for the guard's lexer ({@code io.pgward.guard.lexer.SqlLexer}, written separately), so
 * that the classifier's tests do not depend on it. It follows PostgreSQL's scanner closely enough for the tests and
 * the corpus: {@code --} comments (ending at CR or LF), nested block comments, standard strings (backslash is
 * literal), E'' with backslash escapes, U&amp;'' and U&amp;"" with UESCAPE, B'' X'' N'', dollar quotes, quoted
 * identifiers, numbers, $n parameters, operators (with PostgreSQL's rule for a trailing + or -) and punctuation.
 * {@link #split} cuts at every {@code ;} token and drops empty statements. Errors throw IllegalArgumentException.
 */
final class TestLexer {

    private static final String OPERATOR_CHARS = "+-*/<>=~!@#%^&|`?";
    private static final String PUNCTUATION = "()[],;.:";

    private final String in;
    private int pos;
    private final List<Token> tokens = new ArrayList<>();

    private TestLexer(String in) {
        this.in = in;
    }

    /** The statements of {@code sql}, split where PostgreSQL splits them. */
    static List<StatementText> split(String sql) {
        List<Token> all = new TestLexer(sql).run();
        List<StatementText> statements = new ArrayList<>();
        List<Token> current = new ArrayList<>();
        for (Token t : all) {
            if (t.kind() == Kind.PUNCTUATION && t.text().equals(";")) {
                add(sql, current, statements);
                current = new ArrayList<>();
            } else {
                current.add(t);
            }
        }
        add(sql, current, statements);
        return statements;
    }

    /** Exactly one statement; fails the test otherwise. */
    static StatementText one(String sql) {
        List<StatementText> all = split(sql);
        if (all.size() != 1) {
            throw new IllegalArgumentException("expected one statement, got " + all.size() + ": " + sql);
        }
        return all.get(0);
    }

    private static void add(String sql, List<Token> tokens, List<StatementText> out) {
        if (!tokens.isEmpty()) {
            int start = tokens.get(0).start();
            out.add(new StatementText(sql.substring(start, tokens.get(tokens.size() - 1).end()), start, tokens));
        }
    }

    private List<Token> run() {
        while (pos < in.length()) {
            char c = in.charAt(pos);
            int start = pos;
            if (Character.isWhitespace(c)) {
                pos++;
            } else if (in.startsWith("--", pos)) {
                while (pos < in.length() && in.charAt(pos) != '\n' && in.charAt(pos) != '\r') {
                    pos++;
                }
            } else if (in.startsWith("/*", pos)) {
                blockComment();
            } else if (c == '\'') {
                emit(Kind.STRING, start, standardString());
            } else if ((c == 'e' || c == 'E') && next(1) == '\'') {
                pos++;
                emit(Kind.STRING, start, escapeString());
            } else if ((c == 'b' || c == 'B' || c == 'x' || c == 'X' || c == 'n' || c == 'N') && next(1) == '\'') {
                pos++;
                emit(Kind.STRING, start, standardString());
            } else if ((c == 'u' || c == 'U') && next(1) == '&' && (next(2) == '\'' || next(2) == '"')) {
                pos += 2;
                boolean string = in.charAt(pos) == '\'';
                String raw = string ? standardString() : quotedIdentifier();
                emit(string ? Kind.STRING : Kind.QUOTED_IDENTIFIER, start, unicode(raw, uescape()));
            } else if (c == '"') {
                emit(Kind.QUOTED_IDENTIFIER, start, quotedIdentifier());
            } else if (c == '$' && Character.isDigit(next(1))) {
                pos++;
                while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
                    pos++;
                }
                emit(Kind.PARAMETER, start, in.substring(start + 1, pos));
            } else if (c == '$') {
                emit(Kind.STRING, start, dollarString());
            } else if (Character.isDigit(c) || (c == '.' && Character.isDigit(next(1)))) {
                number();
                emit(Kind.NUMBER, start, in.substring(start, pos));
            } else if (Character.isLetter(c) || c == '_' || c > 127) {
                while (pos < in.length() && (Character.isLetterOrDigit(in.charAt(pos)) || in.charAt(pos) == '_'
                        || in.charAt(pos) == '$' || in.charAt(pos) > 127)) {
                    pos++;
                }
                emit(Kind.WORD, start, asciiLower(in.substring(start, pos)));
            } else if (c == ':' && next(1) == ':') {
                pos += 2;
                emit(Kind.OPERATOR, start, "::");
            } else if (PUNCTUATION.indexOf(c) >= 0) {
                pos++;
                emit(Kind.PUNCTUATION, start, String.valueOf(c));
            } else if (OPERATOR_CHARS.indexOf(c) >= 0) {
                operator();
                emit(Kind.OPERATOR, start, in.substring(start, pos));
            } else {
                throw new IllegalArgumentException("unexpected character " + c + " at " + pos);
            }
        }
        return tokens;
    }

    private char next(int ahead) {
        return pos + ahead < in.length() ? in.charAt(pos + ahead) : '\0';
    }

    private void emit(Kind kind, int start, String value) {
        tokens.add(new Token(kind, in.substring(start, pos), value, start, pos));
    }

    private void blockComment() {
        int depth = 0;
        do {
            if (in.startsWith("/*", pos)) {
                depth++;
                pos += 2;
            } else if (in.startsWith("*/", pos)) {
                depth--;
                pos += 2;
            } else if (pos >= in.length()) {
                throw new IllegalArgumentException("unterminated comment");
            } else {
                pos++;
            }
        } while (depth > 0);
    }

    /** '...' with '' for a quote; backslash is an ordinary character (standard_conforming_strings on). */
    private String standardString() {
        StringBuilder value = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= in.length()) {
                throw new IllegalArgumentException("unterminated string");
            }
            char c = in.charAt(pos++);
            if (c == '\'') {
                if (pos < in.length() && in.charAt(pos) == '\'') {
                    value.append('\'');
                    pos++;
                } else {
                    return value.toString();
                }
            } else {
                value.append(c);
            }
        }
    }

    private String escapeString() {
        StringBuilder value = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= in.length()) {
                throw new IllegalArgumentException("unterminated string");
            }
            char c = in.charAt(pos++);
            if (c == '\'') {
                if (pos < in.length() && in.charAt(pos) == '\'') {
                    value.append('\'');
                    pos++;
                } else {
                    return value.toString();
                }
            } else if (c == '\\' && pos < in.length()) {
                char e = in.charAt(pos++);
                switch (e) {
                    case 'n' -> value.append('\n');
                    case 't' -> value.append('\t');
                    case 'r' -> value.append('\r');
                    case 'b' -> value.append('\b');
                    case 'f' -> value.append('\f');
                    default -> value.append(e);
                }
            } else {
                value.append(c);
            }
        }
    }

    private String quotedIdentifier() {
        StringBuilder value = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= in.length()) {
                throw new IllegalArgumentException("unterminated quoted identifier");
            }
            char c = in.charAt(pos++);
            if (c == '"') {
                if (pos < in.length() && in.charAt(pos) == '"') {
                    value.append('"');
                    pos++;
                } else {
                    return value.toString();
                }
            } else {
                value.append(c);
            }
        }
    }

    private String dollarString() {
        int tagEnd = pos + 1;
        while (tagEnd < in.length() && (Character.isLetterOrDigit(in.charAt(tagEnd)) || in.charAt(tagEnd) == '_')) {
            tagEnd++;
        }
        if (tagEnd >= in.length() || in.charAt(tagEnd) != '$') {
            throw new IllegalArgumentException("bad dollar quote at " + pos);
        }
        String tag = in.substring(pos, tagEnd + 1);
        int close = in.indexOf(tag, tagEnd + 1);
        if (close < 0) {
            throw new IllegalArgumentException("unterminated dollar quote");
        }
        String value = in.substring(tagEnd + 1, close);
        pos = close + tag.length();
        return value;
    }

    /** An optional {@code UESCAPE 'c'} after a U&amp; literal; the escape character (default backslash). */
    private char uescape() {
        int p = pos;
        while (p < in.length() && Character.isWhitespace(in.charAt(p))) {
            p++;
        }
        if (!in.regionMatches(true, p, "uescape", 0, 7)) {
            return '\\';
        }
        p += 7;
        while (p < in.length() && Character.isWhitespace(in.charAt(p))) {
            p++;
        }
        if (p + 2 >= in.length() || in.charAt(p) != '\'' || in.charAt(p + 2) != '\'') {
            throw new IllegalArgumentException("bad UESCAPE");
        }
        pos = p + 3;
        return in.charAt(p + 1);
    }

    private static String unicode(String raw, char escape) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != escape) {
                out.append(c);
            } else if (i + 1 < raw.length() && raw.charAt(i + 1) == escape) {
                out.append(escape);
                i++;
            } else if (i + 1 < raw.length() && raw.charAt(i + 1) == '+') {
                out.appendCodePoint(Integer.parseInt(raw.substring(i + 2, i + 8), 16));
                i += 7;
            } else {
                out.appendCodePoint(Integer.parseInt(raw.substring(i + 1, i + 5), 16));
                i += 4;
            }
        }
        return out.toString();
    }

    private void number() {
        while (pos < in.length() && (Character.isDigit(in.charAt(pos)) || in.charAt(pos) == '_')) {
            pos++;
        }
        if (pos < in.length() && in.charAt(pos) == '.' && next(1) != '.') {
            pos++;
            while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
                pos++;
            }
        }
        if (pos < in.length() && (in.charAt(pos) == 'e' || in.charAt(pos) == 'E')
                && (Character.isDigit(next(1)) || ((next(1) == '+' || next(1) == '-') && Character.isDigit(next(2))))) {
            pos += 2;
            while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
                pos++;
            }
        }
    }

    /** PostgreSQL: stop before a comment start; drop trailing + and - unless the operator has one of ~!@#%^&|`?. */
    private void operator() {
        int start = pos;
        while (pos < in.length() && OPERATOR_CHARS.indexOf(in.charAt(pos)) >= 0
                && !(pos > start && (in.startsWith("--", pos) || in.startsWith("/*", pos)))) {
            pos++;
        }
        String op = in.substring(start, pos);
        if (op.length() > 1 && op.chars().noneMatch(ch -> "~!@#%^&|`?".indexOf(ch) >= 0)) {
            while (op.length() > 1 && (op.endsWith("+") || op.endsWith("-"))) {
                op = op.substring(0, op.length() - 1);
            }
        }
        pos = start + op.length();
    }

    private static String asciiLower(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            b.append(c >= 'A' && c <= 'Z' ? (char) (c + 32) : c);
        }
        return b.toString();
    }
}
