package io.pgward.guard.catalog;

import io.pgward.guard.lexer.Token;
import io.pgward.guard.selection.VisibleCatalog;
import java.util.List;

/**
 * The rewrite of a gated call whose argument is a plain column reference that may hold objects the call must not
 * describe (design section 3.2, third row): the size and statistics functions take user relations of the selection
 * only, while {@code pg_class.oid} also holds the built-in catalogs, whose sizes grow with hidden objects. The
 * argument, not the call, is wrapped, so the output column keeps the function's name:
 * {@code pg_table_size(c.oid)} becomes
 * {@code pg_table_size(CASE WHEN c.oid OPERATOR(pg_catalog.=) ANY ('{...}'::pg_catalog.oid[]) THEN c.oid END)}, and
 * the functions are strict, so a row outside the set gets NULL, what a database holding only the selection would
 * answer for an object it does not have.
 *
 * <p>Like {@link CatalogRewrite}, this is not the defence: L3 accepts the wrapping only when the list is exactly the
 * visible set and the column a proven filter column ({@link ArgumentOrigin.Listed}, {@link GatedUses}).
 */
final class ListedArguments {

    private ListedArguments() {
    }

    /**
     * The index of the last token of the column reference that is the first argument of a call of a listed function
     * whose name is at {@code name}, or -1: the name (bare, or after {@code pg_catalog.}) is followed by {@code (},
     * one identifier or two joined by {@code .}, and {@code ,} or {@code )}.
     */
    static int columnEnd(List<Token> tokens, int name) {
        Token t = tokens.get(name);
        return identifier(t) && GatedFunctions.listsArgument(t.value()) ? columnAfter(tokens, name) : -1;
    }

    /** As {@link #columnEnd}, whatever the function named at {@code name}. */
    private static int columnAfter(List<Token> tokens, int name) {
        if (name + 3 >= tokens.size() || !punctuation(tokens.get(name + 1), "(")) {
            return -1;
        }
        if (name > 0 && punctuation(tokens.get(name - 1), ".")
                && (name < 2 || !identifier(tokens.get(name - 2))
                || !"pg_catalog".equals(tokens.get(name - 2).value()))) {
            return -1;
        }
        int end = name + 2;
        if (!column(tokens.get(end))) {
            return -1;
        }
        if (end + 2 < tokens.size() && punctuation(tokens.get(end + 1), ".") && column(tokens.get(end + 2))) {
            end += 2;
        }
        Token after = end + 1 < tokens.size() ? tokens.get(end + 1) : null;
        return after != null && (punctuation(after, ")") || punctuation(after, ",")) ? end : -1;
    }

    /** The wrapping of the column reference spelled by {@code tokens[first..last]}. */
    static String wrap(List<Token> tokens, int first, int last, VisibleCatalog visible) {
        StringBuilder column = new StringBuilder();
        for (int i = first; i <= last; i++) {
            column.append(tokens.get(i).text());
        }
        return "CASE WHEN " + column + " OPERATOR(pg_catalog.=) ANY ('"
                + visible.oids(VisibleCatalog.Catalog.PG_CLASS).arrayLiteral() + "'::pg_catalog.oid[]) THEN "
                + column + " END";
    }

    /**
     * {@code sql} with the first argument of every call of {@code function} (bare or after {@code pg_catalog.}) that
     * is a column reference wrapped in the visible relations, as an oid:
     * {@code CASE WHEN (x)::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ('{...}'::pg_catalog.oid[]) THEN
     * (x)::pg_catalog.oid END}; null when there is none. For a function of {@link GatedFunctions#NULL_FOR_ABSENT_RELATIONS}
     * whose argument the gates could not prove (numbers from generate_series): a hidden relation's OID then answers
     * NULL, as an unused one does. Built-in relations answer NULL too.
     */
    static String wrapAll(String sql, boolean standardConformingStrings, String function, VisibleCatalog visible) {
        List<Token> tokens;
        try {
            tokens = io.pgward.guard.lexer.SqlLexer.tokenize(sql, standardConformingStrings);
        } catch (io.pgward.guard.lexer.LexerException e) {
            return null;
        }
        StringBuilder out = new StringBuilder(sql);
        boolean wrapped = false;
        for (int name = tokens.size() - 1; name >= 0; name--) {
            int end = argumentEnd(tokens, name, function);
            if (end > 0) {
                StringBuilder column = new StringBuilder();
                for (int i = name + 2; i <= end; i++) {
                    column.append(tokens.get(i).text());
                }
                String oid = "(" + column + ")::pg_catalog.oid";
                out.replace(tokens.get(name + 2).start(), tokens.get(end).end(), "CASE WHEN " + oid
                        + " OPERATOR(pg_catalog.=) ANY ('" + visible.oids(VisibleCatalog.Catalog.PG_CLASS).arrayLiteral()
                        + "'::pg_catalog.oid[]) THEN " + oid + " END");
                wrapped = true;
            }
        }
        return wrapped ? out.toString() : null;
    }

    /** As {@link #columnEnd}, for a call of {@code function}. */
    private static int argumentEnd(List<Token> tokens, int name, String function) {
        Token t = tokens.get(name);
        return identifier(t) && t.value().equals(function) ? columnAfter(tokens, name) : -1;
    }

    private static boolean column(Token t) {
        return t.kind() == Token.Kind.QUOTED_IDENTIFIER
                || t.kind() == Token.Kind.WORD && !CatalogRewrite.reservedAfterRelation(t.value());
    }

    private static boolean identifier(Token t) {
        return t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    private static boolean punctuation(Token t, String text) {
        return t.kind() == Token.Kind.PUNCTUATION && t.text().equals(text);
    }
}
