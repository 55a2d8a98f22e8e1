package io.pgward.arango;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits AQL text into tokens following AQL's lexical rules, dropping comments. Only as much of AQL as the
 * keyword backstop and the command tag need: words, bind parameters, quoted names, strings, numbers and single
 * punctuation characters.
 *
 * <ul>
 *   <li>Comments: {@code // ...} to the end of the line and {@code /* ... *&#47;} (AQL does not nest them).</li>
 *   <li>Strings: {@code '...'} and {@code "..."}, a backslash escapes the next character.</li>
 *   <li>Quoted names: {@code `name`} and {@code ´name´} (forward tick, U+00B4), so a collection called
 *       {@code update} is written {@code `update`} and is a name, never a keyword.</li>
 *   <li>Bind parameters: {@code @name} and {@code @@collection}.</li>
 * </ul>
 * An unterminated string, name or comment runs to the end of the text; ArangoDB will reject such a statement.
 */
final class AqlLexer {

    enum Kind { WORD, BIND_PARAMETER, QUOTED_NAME, STRING, NUMBER, PUNCTUATION }

    record Token(Kind kind, String text) {
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
        while (pos < aql.length() && isWordPart(aql.charAt(pos))) {
            pos++;
        }
        return aql.substring(start, pos);
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
