package io.pgward.arango;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits AQL text into tokens following AQL's lexical rules, dropping comments. The one reader of AQL text in
 * pgward, with as much of AQL as its users need: the keyword backstop and the command tag, the row limit of
 * generated AQL, and the rewriting of PostgreSQL parameters in statements clients send ({@link AqlText}). Tokens
 * are words, bind parameters, PostgreSQL parameters, quoted names, strings, numbers and single punctuation
 * characters.
 *
 * <ul>
 *   <li>Comments: {@code // ...} to the end of the line and {@code /* ... *&#47;} (AQL does not nest them).</li>
 *   <li>Strings: {@code '...'} and {@code "..."}, a backslash escapes the next character.</li>
 *   <li>Quoted names: {@code `name`} and {@code ´name´} (forward tick, U+00B4), so a collection called
 *       {@code update} is written {@code `update`} and is a name, never a keyword.</li>
 *   <li>Bind parameters: {@code @name} and {@code @@collection}; a name is letters, digits and underscores.</li>
 *   <li>PostgreSQL parameters: {@code $} and one to five digits (PostgreSQL allows at most 65,535 parameters),
 *       standing alone. In AQL a {@code $} may only start a variable name followed by a letter, so such a marker
 *       is free; {@code $var1}, {@code x$5} and longer digit runs are words, left for ArangoDB to judge.</li>
 * </ul>
 * An unterminated string, name or comment runs to the end of the text; ArangoDB will reject such a statement.
 */
final class AqlLexer {

    enum Kind { WORD, BIND_PARAMETER, PARAMETER, QUOTED_NAME, STRING, NUMBER, PUNCTUATION }

    record Token(Kind kind, String text) {

        boolean isWord(String word) {
            return kind == Kind.WORD && text.equalsIgnoreCase(word);
        }

        boolean isPunctuation(char c) {
            return kind == Kind.PUNCTUATION && text.length() == 1 && text.charAt(0) == c;
        }
    }

    /** A token and where it stands in the text: {@code aql.substring(start, end)} is how it was written. */
    record Located(Token token, int start, int end) {
    }

    private static final char FORWARD_TICK = '\u00B4';

    private final String aql;
    private int pos;

    private AqlLexer(String aql) {
        this.aql = aql;
    }

    static List<Token> tokenize(String aql) {
        return locate(aql).stream().map(Located::token).toList();
    }

    static List<Located> locate(String aql) {
        return new AqlLexer(aql).run();
    }

    private List<Located> run() {
        List<Located> tokens = new ArrayList<>();
        while (pos < aql.length()) {
            char c = aql.charAt(pos);
            int start = pos;
            Token token;
            if (Character.isWhitespace(c)) {
                pos++;
                continue;
            } else if (c == '/' && peek(1) == '/') {
                skipLineComment();
                continue;
            } else if (c == '/' && peek(1) == '*') {
                skipBlockComment();
                continue;
            } else if (c == '\'' || c == '"') {
                token = new Token(Kind.STRING, quoted(c));
            } else if (c == '`' || c == FORWARD_TICK) {
                token = new Token(Kind.QUOTED_NAME, quoted(c));
            } else if (c == '@') {
                token = new Token(Kind.BIND_PARAMETER, bindParameter());
            } else if (c == '$' && parameterEnd() > 0) {
                pos = parameterEnd();
                token = new Token(Kind.PARAMETER, aql.substring(start, pos));
            } else if (isWordStart(c)) {
                token = new Token(Kind.WORD, word());
            } else if (Character.isDigit(c)) {
                token = new Token(Kind.NUMBER, number());
            } else {
                token = new Token(Kind.PUNCTUATION, String.valueOf(c));
                pos++;
            }
            tokens.add(new Located(token, start, pos));
        }
        return tokens;
    }

    private char peek(int ahead) {
        int i = pos + ahead;
        return i < aql.length() ? aql.charAt(i) : '\0';
    }

    private void skipLineComment() {
        while (pos < aql.length() && aql.charAt(pos) != '\n' && aql.charAt(pos) != '\r') {
            pos++;
        }
    }

    private void skipBlockComment() {
        int end = aql.indexOf("*/", pos + 2);
        pos = end < 0 ? aql.length() : end + 2;
    }

    /** The content between the quotes, escapes resolved; the position ends after the closing quote. */
    private String quoted(char quote) {
        StringBuilder content = new StringBuilder();
        pos++;
        while (pos < aql.length()) {
            char c = aql.charAt(pos++);
            if (c == '\\' && pos < aql.length()) {
                content.append(aql.charAt(pos++));
            } else if (c == quote) {
                return content.toString();
            } else {
                content.append(c);
            }
        }
        return content.toString();
    }

    private String bindParameter() {
        int start = pos;
        pos++;
        if (peek(0) == '@') {
            pos++;
        }
        while (pos < aql.length() && (aql.charAt(pos) == '_' || Character.isLetterOrDigit(aql.charAt(pos)))) {
            pos++;
        }
        return aql.substring(start, pos);
    }

    /** Where the PostgreSQL parameter at {@code $} ends: one to five digits, then no word character; else -1. */
    private int parameterEnd() {
        int end = pos + 1;
        while (isDigitAt(end)) {
            end++;
        }
        int digits = end - pos - 1;
        return digits >= 1 && digits <= 5 && (end == aql.length() || !isWordPart(aql.charAt(end))) ? end : -1;
    }

    private String word() {
        int start = pos;
        while (pos < aql.length() && isWordPart(aql.charAt(pos))) {
            pos++;
        }
        return aql.substring(start, pos);
    }

    private String number() {
        int start = pos;
        while (pos < aql.length() && (isWordPart(aql.charAt(pos)) || aql.charAt(pos) == '.' && isDigitAt(pos + 1))) {
            pos++;
        }
        return aql.substring(start, pos);
    }

    private boolean isDigitAt(int i) {
        return i < aql.length() && Character.isDigit(aql.charAt(i));
    }

    private static boolean isWordStart(char c) {
        return c == '_' || c == '$' || Character.isLetter(c);
    }

    private static boolean isWordPart(char c) {
        return c == '_' || c == '$' || Character.isLetterOrDigit(c);
    }
}
