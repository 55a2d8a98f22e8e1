package io.pgward.nl;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The comment form of a question: a statement that is only a comment whose text starts with {@code nl:}.
 *
 * <pre>
 *   /* nl: top 5 customers by revenue *&#47;
 *   /* nl: top 5 customers by revenue *&#47;;
 *   -- nl: top 5 customers by revenue
 *   ;
 *   -- nl: top 5 customers
 *   -- by revenue
 *   ;
 * </pre>
 *
 * <p>Exactly: optional whitespace; then either one block comment (nested {@code /* *&#47;} pairs as PostgreSQL
 * nests them) or one or more {@code --} line comments separated only by line breaks and whitespace; then optional
 * whitespace, at most one {@code ;}, and optional whitespace. The first comment's text, after leading whitespace,
 * starts with {@code nl:} in any case. The question is the text after {@code nl:} (and, for line comments, the
 * text of the following ones), with every run of whitespace made one space. Anything else in the statement (a
 * token, a second block comment) means it is not the comment form and is handled as SQL.
 *
 * <p>psql (prompt and scripts) drops {@code --} comments that come before a statement's first token and sends
 * only the {@code ;}, so from psql only the block form arrives; drivers and {@code psql -c} send both forms
 * (pgjdbc without the {@code ;}). docs/nl.md has the table.
 */
public final class NlComment {

    private static final Pattern PREFIX = Pattern.compile("(?is)\\s*nl:(.*)");

    private NlComment() {
    }

    /** The question, or empty when {@code sql} is not the comment form. */
    public static Optional<String> question(String sql) {
        int i = skipWhitespace(sql, 0);
        String body;
        if (sql.startsWith("/*", i)) {
            int end = blockCommentEnd(sql, i);
            if (end < 0) {
                return Optional.empty();
            }
            body = sql.substring(i + 2, end - 2);
            i = end;
        } else if (sql.startsWith("--", i)) {
            StringBuilder lines = new StringBuilder();
            while (sql.startsWith("--", i)) {
                int end = lineEnd(sql, i);
                lines.append(sql, i + 2, end).append('\n');
                i = skipWhitespace(sql, end);
            }
            body = lines.toString();
        } else {
            return Optional.empty();
        }
        i = skipWhitespace(sql, i);
        if (i < sql.length() && sql.charAt(i) == ';') {
            i = skipWhitespace(sql, i + 1);
        }
        if (i != sql.length()) {
            return Optional.empty();
        }
        Matcher matcher = PREFIX.matcher(body);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        return Optional.of(matcher.group(1).strip().replaceAll("\\s+", " "));
    }

    /** Offset just past the {@code *}{@code /} that closes the comment at {@code start}, or -1. */
    private static int blockCommentEnd(String sql, int start) {
        int depth = 0;
        int i = start;
        while (i < sql.length() - 1) {
            if (sql.startsWith("/*", i)) {
                depth++;
                i += 2;
            } else if (sql.startsWith("*/", i)) {
                depth--;
                i += 2;
                if (depth == 0) {
                    return i;
                }
            } else {
                i++;
            }
        }
        return -1;
    }

    /** PostgreSQL ends a {@code --} comment at a newline or carriage return. */
    private static int lineEnd(String sql, int start) {
        int i = start;
        while (i < sql.length() && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
            i++;
        }
        return i;
    }

    /** PostgreSQL's whitespace: space, tab, newline, carriage return, form feed, vertical tab. */
    private static int skipWhitespace(String sql, int start) {
        int i = start;
        while (i < sql.length() && " \t\n\r\f\u000b".indexOf(sql.charAt(i)) >= 0) {
            i++;
        }
        return i;
    }
}
