package io.pgward.guard.catalog;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The serving rewrite of {@code current_schemas(x)} and {@code current_schema()} for a login with a table selection
 * ({@link CatalogRefusals#schemaPath}). PostgreSQL leaves out of them only the schemas on search_path that do not
 * exist, so after {@code SET search_path = hr, public} they would answer {@code {hr,public}} and {@code hr} where a
 * database without hr answers {@code {public}} and {@code public}. Each call becomes a scalar subquery that keeps,
 * in order, the schemas the login sees ({@link #wrapper}): those pg_namespace shows it, and its own temporary schema.
 * {@code current_schema()} is the first of what {@code current_schemas(false)} keeps, as in PostgreSQL, where both
 * read the same path with its implicit entries dropped; NULL when none is left.
 *
 * <p>The subquery's one column is named as the call, so the output column keeps its name (PostgreSQL names an
 * expression after a scalar subquery's column) and its type ({@code name[]}, {@code name}); an empty result is
 * {@code {}}, not NULL, and a NULL answer ({@code current_schemas(NULL)}) stays NULL, as from PostgreSQL. The
 * whole is cast to {@code name[]}, a no-op that makes it an expression only: in FROM
 * ({@code SELECT * FROM current_schemas(true) AS x}, whose column would take another name) it is a syntax error,
 * and the call stays refused.
 *
 * <p>This is not the defence: the rewritten statement is checked again, and only a subquery that is, node for node,
 * this text with the login's names is accepted ({@link SchemaPathProof}). Spellings found here: the function's name
 * plain, quoted or after {@code pg_catalog.}, and the keyword {@code current_schema} without parentheses. Any other
 * (reached through a view, a user function) is not rewritten and stays refused.
 */
final class SchemaPathCalls {

    /** pg_proc OIDs of current_schema() and current_schemas(bool), pinned since PostgreSQL 7.3. */
    static final long CURRENT_SCHEMA = 1402;
    static final long CURRENT_SCHEMAS = 1403;
    static final Set<Long> FUNCTIONS = Set.of(CURRENT_SCHEMA, CURRENT_SCHEMAS);
    /**
     * SQLValueFunctionOp SVFOP_CURRENT_SCHEMA (primnodes.h, 14 to 18): the keyword {@code current_schema} without
     * parentheses is this node, which calls the function's code without naming it.
     */
    static final long SVFOP_CURRENT_SCHEMA = 14;

    private static final String ANSWER = "pgward_schemas";
    private static final String ALIAS = "pgward_path";

    private SchemaPathCalls() {
    }

    /**
     * The subquery standing for {@code current_schemas(argument)}, its column named {@code column}: the elements of
     * PostgreSQL's answer that are among {@code names} (an {@link #namesConstant}) or a temporary schema, in their
     * order. Only the session's own temporary schema can be on its path (another session's gives no USAGE).
     *
     * <p>The call is the one column of a subquery in the first FROM item, fenced with {@code OFFSET 0} so that the
     * planner does not put it in each place its value is read: the argument is evaluated once, and a NULL answer
     * (current_schemas is strict: {@code current_schemas(NULL)}) is told from an empty one. The answer's one row is
     * joined to its elements, still one row when it has none, and grouped by the answer: NULL for NULL, {@code {}}
     * when no element is kept. The call stays where an expression is written, so a client's own copy of this text
     * has its call rewritten too.
     */
    static String wrapper(String argument, String column, String names) {
        return "((SELECT CASE WHEN " + ANSWER + ".schemas IS NULL THEN NULL ELSE COALESCE(pg_catalog.array_agg("
                + ALIAS + ".nspname ORDER BY " + ALIAS + ".ordinal) FILTER (WHERE " + ALIAS
                + ".nspname OPERATOR(pg_catalog.=) ANY (" + names + "::pg_catalog.name[]) OR pg_catalog.starts_with("
                + ALIAS + ".nspname::pg_catalog.text, 'pg_temp_')), '{}'::pg_catalog.name[]) END AS " + column
                + " FROM (SELECT pg_catalog.current_schemas(" + argument + ") OFFSET 0) AS " + ANSWER + "(schemas) "
                + "LEFT JOIN LATERAL pg_catalog.unnest(" + ANSWER + ".schemas) WITH ORDINALITY AS " + ALIAS
                + "(nspname, ordinal) ON true GROUP BY " + ANSWER + ".schemas)::pg_catalog.name[])";
    }

    /** The schema names as a constant the wrapper compares with: sorted, the same text for the same names. */
    static String namesConstant(Collection<String> names) {
        StringBuilder array = new StringBuilder("{");
        names.stream().sorted().forEach(name -> {
            if (array.length() > 1) {
                array.append(',');
            }
            array.append('"').append(name.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        });
        array.append('}');
        // An E'' string reads the same whatever standard_conforming_strings is.
        return "E'" + array.toString().replace("\\", "\\\\").replace("'", "''") + "'";
    }

    /**
     * {@code sql} with every call found replaced by its {@link #wrapper} over {@code names}, calls in a call's
     * argument too; null when there is none or the text does not lex.
     */
    static String rewrite(String sql, boolean standardConformingStrings, String names) {
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenize(sql, standardConformingStrings);
        } catch (LexerException e) {
            return null;
        }
        String rewritten = rewrite(sql, tokens, 0, tokens.size(), 0, sql.length(), names);
        return rewritten.equals(sql) ? null : rewritten;
    }

    private static String rewrite(String sql, List<Token> tokens, int from, int to, int textStart, int textEnd,
                                  String names) {
        StringBuilder out = new StringBuilder();
        int cursor = textStart;
        for (int i = from; i < to; i++) {
            Token t = tokens.get(i);
            if (!identifier(t) || !(t.value().equals("current_schemas") || t.value().equals("current_schema"))) {
                continue;
            }
            int start = callStart(tokens, i);
            if (start < 0) {
                continue;
            }
            boolean parenthesised = i + 1 < to && punctuation(tokens.get(i + 1), "(");
            if (t.value().equals("current_schemas")) {
                int close = parenthesised ? closing(tokens, i + 1, to) : -1;
                if (close < 0) {
                    continue;
                }
                String argument = rewrite(sql, tokens, i + 2, close, tokens.get(i + 1).end(),
                        tokens.get(close).start(), names);
                out.append(sql, cursor, tokens.get(start).start()).append(wrapper(argument, "current_schemas", names));
                cursor = tokens.get(close).end();
                i = close;
            } else if (parenthesised) {
                if (i + 2 >= to || !punctuation(tokens.get(i + 2), ")")) {
                    continue;
                }
                out.append(sql, cursor, tokens.get(start).start()).append(first(names));
                cursor = tokens.get(i + 2).end();
                i += 2;
            } else if (t.kind() == Token.Kind.WORD && start == i && !(i > 0 && tokens.get(i - 1).isWord("as"))) {
                // The keyword: a column of that name is written quoted or after a qualifier, an alias after AS.
                out.append(sql, cursor, t.start()).append(first(names));
                cursor = t.end();
            }
        }
        return out.append(sql, cursor, textEnd).toString();
    }

    private static String first(String names) {
        return "(" + wrapper("false", "current_schema", names) + "[1])";
    }

    /**
     * The index of the call's first token: the name's own, or {@code pg_catalog}'s before it; -1 when the name is
     * qualified with anything else (another schema's function, or a column).
     */
    private static int callStart(List<Token> tokens, int at) {
        if (at == 0 || !punctuation(tokens.get(at - 1), ".")) {
            return at;
        }
        if (at < 2 || !identifier(tokens.get(at - 2)) || !tokens.get(at - 2).value().equals("pg_catalog")
                || at > 2 && punctuation(tokens.get(at - 3), ".")) {
            return -1;
        }
        return at - 2;
    }

    /** The index of the parenthesis closing the one at {@code open}, or -1. */
    private static int closing(List<Token> tokens, int open, int to) {
        int depth = 0;
        for (int i = open; i < to; i++) {
            Token t = tokens.get(i);
            if (punctuation(t, "(")) {
                depth++;
            } else if (punctuation(t, ")") && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static boolean identifier(Token t) {
        return t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    private static boolean punctuation(Token t, String text) {
        return t.kind() == Token.Kind.PUNCTUATION && t.text().equals(text);
    }
}
