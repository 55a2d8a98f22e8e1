package io.pgward.wire.arango;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * What pgward needs to know about AQL text it hands to ArangoDB: whether it is empty, and where PostgreSQL
 * parameters ({@code $1}) stand so they can become AQL bind parameters ({@code @p1}). Follows AQL's lexical
 * rules: {@code // ...} and {@code /* ... *&#47;} comments, {@code '...'} and {@code "..."} strings with
 * backslash escapes, {@code `name`} and {@code ´name´} quoted names. In AQL a {@code $} may only start a variable
 * name followed by a letter, so {@code $} followed by digits outside strings, comments and names is free for
 * PostgreSQL's parameter markers.
 */
final class AqlText {

    private static final char FORWARD_TICK = '\u00B4';

    /**
     * The statement as ArangoDB receives it.
     *
     * @param aql        {@code $n} replaced by {@code @pn}, trailing semicolons (psql sends them) removed
     * @param parameters the parameter numbers used, ascending
     */
    record Prepared(String aql, List<Integer> parameters) {
    }

    private AqlText() {
    }

    /** True when the text has nothing but whitespace, comments and semicolons, as PostgreSQL's empty query. */
    static boolean isEmpty(String text) {
        return prepare(text).aql().isBlank();
    }

    static String bindName(int parameter) {
        return "p" + parameter;
    }

    static Prepared prepare(String text) {
        StringBuilder out = new StringBuilder(text.length());
        TreeSet<Integer> parameters = new TreeSet<>();
        int lastCode = -1; // end of the last character that is neither whitespace, comment nor a semicolon
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            int start = i;
            if (c == '/' && at(text, i + 1) == '/') {
                while (i < text.length() && text.charAt(i) != '\n' && text.charAt(i) != '\r') {
                    i++;
                }
                out.append(text, start, i);
                continue;
            }
            if (c == '/' && at(text, i + 1) == '*') {
                int end = text.indexOf("*/", i + 2);
                i = end < 0 ? text.length() : end + 2;
                out.append(text, start, i);
                continue;
            }
            if (c == '\'' || c == '"' || c == '`' || c == FORWARD_TICK) {
                i = endOfQuoted(text, i, c);
                out.append(text, start, i);
                lastCode = out.length();
                continue;
            }
            if (c == '$' && Character.isDigit(at(text, i + 1)) && !isWordPart(at(text, i - 1))) {
                int end = i + 1;
                while (Character.isDigit(at(text, end))) {
                    end++;
                }
                // PostgreSQL allows at most 65,535 parameters; longer digit runs are left for ArangoDB to reject.
                if (!isWordPart(at(text, end)) && end - i - 1 <= 5) {
                    int number = Integer.parseInt(text.substring(i + 1, end));
                    parameters.add(number);
                    out.append('@').append(bindName(number));
                    lastCode = out.length();
                    i = end;
                    continue;
                }
            }
            out.append(c);
            if (!Character.isWhitespace(c) && c != ';') {
                lastCode = out.length();
            }
            i++;
        }
        // Only semicolons and whitespace after the last code are dropped; comments before them stay harmless.
        String aql = lastCode < 0 ? "" : stripTrailingSemicolons(out.toString(), lastCode);
        return new Prepared(aql, new ArrayList<>(parameters));
    }

    private static String stripTrailingSemicolons(String text, int lastCode) {
        StringBuilder result = new StringBuilder(text.substring(0, lastCode));
        for (int i = lastCode; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != ';') {
                result.append(c);
            }
        }
        return result.toString();
    }

    private static int endOfQuoted(String text, int start, char quote) {
        int i = start + 1;
        while (i < text.length()) {
            char c = text.charAt(i++);
            if (c == '\\' && i < text.length()) {
                i++;
            } else if (c == quote) {
                return i;
            }
        }
        return i;
    }

    private static char at(String text, int i) {
        return i >= 0 && i < text.length() ? text.charAt(i) : '\0';
    }

    private static boolean isWordPart(char c) {
        return c == '_' || c == '$' || Character.isLetterOrDigit(c);
    }
}
