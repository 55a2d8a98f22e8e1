package io.pgward.guard.catalog;

import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Puts each login's filter subquery in place of every reference to a covered catalog in a FROM clause (step 2 of
 * {@code docs/filtered-catalog-design.md}, first slice): {@code pg_catalog.pg_class c} becomes
 * {@code (SELECT ... FROM pg_catalog.pg_class WHERE <filter> OFFSET 0) c}, and a reference without an alias gets
 * the catalog's name as one ({@code ... OFFSET 0) AS pg_class}), so the statement's column references still resolve.
 *
 * <p>Works on L1's tokens, so names are compared by value as PostgreSQL folds them ({@code "pg_catalog"."pg_class"},
 * {@code U&"pg\005fclass"}, {@code PG_CLASS}), and strings, comments and dollar quotes are never touched. Only
 * constants are inserted: {@code $n} parameters, their number and their types are unchanged.
 *
 * <p>This class is not the defence: L3 proves the rewritten text ({@link FilterProof}), and a reference the rewrite
 * misses or gets wrong is refused there, never served unfiltered. What it rewrites:
 * <ul>
 *   <li>{@code pg_catalog.X} and a bare {@code X} for a covered catalog X, right after {@code FROM}, {@code JOIN},
 *       {@code ONLY}, or a {@code ,} or {@code (} of a FROM clause, and not followed by {@code .} or {@code (};</li>
 *   <li>a bare {@code X} only when the session's search_path resolves it to pg_catalog: pg_catalog is not listed
 *       (then it is searched first) or is listed first, and no CTE of the statement is named X. Otherwise it is
 *       left alone (and refused by L3 if it is the catalog).</li>
 * </ul>
 * The subquery carries those of the system columns ({@code tableoid}, {@code xmin}, ...) the statement names
 * anywhere, after the catalog's own columns; a statement that names one and also selects {@code *} of the catalog
 * gets that column in {@code *} as well. Columns of object-identifier types (pg_type's {@code typinput}, pg_am's
 * {@code amhandler}) are carried only when the statement names them or has a {@code *}, since L3 refuses those
 * types with a selection (function gating is the next slice).
 */
public final class CatalogRewrite {

    /**
     * PostgreSQL's reserved and type_func_name keywords (kwlist.h, 14 to 18): after a relation, a word that is not
     * one of these is a bare alias ({@code ColId}).
     */
    private static final Set<String> NOT_ALIASES = Set.of("all", "analyse", "analyze", "and", "any", "array", "as",
            "asc", "asymmetric", "both", "case", "cast", "check", "collate", "column", "constraint", "create",
            "current_catalog", "current_date", "current_role", "current_time", "current_timestamp", "current_user",
            "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for",
            "foreign", "from", "grant", "group", "having", "in", "initially", "intersect", "into", "lateral",
            "leading", "limit", "localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or", "order",
            "placing", "primary", "references", "returning", "select", "session_user", "some", "symmetric",
            "system_user", "table", "then", "to", "trailing", "true", "union", "unique", "user", "using", "variadic",
            "when", "where", "window", "with",
            "authorization", "binary", "collation", "concurrently", "cross", "current_schema", "freeze", "full",
            "ilike", "inner", "is", "isnull", "join", "left", "like", "natural", "notnull", "outer", "overlaps",
            "right", "similar", "tablesample", "verbose");

    /** Words that end a FROM clause at their parenthesis level. */
    private static final Set<String> FROM_ENDS = Set.of("where", "group", "having", "window", "order", "limit",
            "offset", "fetch", "for", "union", "intersect", "except", "returning", "select", "into", "values");

    private CatalogRewrite() {
    }

    /**
     * The statement's text with covered catalog references replaced; {@code statement.text()} itself when there is
     * none.
     *
     * @param searchPath the session's search_path as PostgreSQL reports it
     */
    public static String rewrite(StatementText statement, String searchPath, CatalogFilters filters) {
        return rewrite(statement, searchPath, filters, ViewFilters.NONE, true);
    }

    /**
     * As {@link #rewrite(StatementText, String, CatalogFilters)}; without {@code fenced} the filter subqueries have no
     * {@code OFFSET 0}, which L3 accepts only for a statement whose conditions cannot observe a hidden row.
     */
    public static String rewrite(StatementText statement, String searchPath, CatalogFilters filters,
                                 boolean fenced) {
        return rewrite(statement, searchPath, filters, ViewFilters.NONE, fenced);
    }

    /**
     * As {@link #rewrite(StatementText, String, CatalogFilters)}, and each reference to a filtered system view
     * ({@code pg_catalog.pg_settings}, or bare where a bare catalog would be rewritten; {@code information_schema.X}
     * only qualified) is replaced by its filter subquery ({@link ViewFilters}), which is always fenced.
     */
    public static String rewrite(StatementText statement, String searchPath, CatalogFilters filters,
                                 ViewFilters views) {
        return rewrite(statement, searchPath, filters, views, true);
    }

    /** As {@link #rewrite(StatementText, String, CatalogFilters, ViewFilters)}, the catalogs' fence as given. */
    public static String rewrite(StatementText statement, String searchPath, CatalogFilters filters,
                                 ViewFilters views, boolean fenced) {
        if (filters.isEmpty() && views.isEmpty()) {
            return statement.text();
        }
        List<Token> tokens = statement.tokens();
        boolean bareResolves = pgCatalogFirst(searchPath);
        Set<String> ctes = cteNames(tokens);
        Set<String> named = new HashSet<>();
        boolean star = false;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (identifier(t)) {
                named.add(t.value());
            }
            star |= t.text().equals("*") && t.kind() != Token.Kind.STRING && !countStar(tokens, i);
        }
        String text = statement.text();
        int base = statement.start();
        StringBuilder out = new StringBuilder(text.length() + 256);
        int copied = 0;
        // Per parenthesis level: whether it is inside a FROM clause.
        Deque<Boolean> inFrom = new ArrayDeque<>();
        inFrom.push(false);
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (punctuation(t, "(")) {
                inFrom.push(false);
                continue;
            }
            if (punctuation(t, ")")) {
                if (inFrom.size() > 1) {
                    inFrom.pop();
                }
                continue;
            }
            if (t.kind() == Token.Kind.WORD && t.value().equals("from")) {
                inFrom.pop();
                inFrom.push(true);
                continue;
            }
            if (t.kind() == Token.Kind.WORD && FROM_ENDS.contains(t.value())) {
                inFrom.pop();
                inFrom.push(false);
                continue;
            }
            if (!identifier(t)) {
                continue;
            }
            int argument = ListedArguments.columnEnd(tokens, i);
            if (argument >= 0) {
                out.append(text, copied, tokens.get(i + 2).start() - base);
                out.append(ListedArguments.wrap(tokens, i + 2, argument, filters.visible()));
                copied = tokens.get(argument).end() - base;
                // The call's parenthesis is passed over here; its closing one pops this level.
                inFrom.push(false);
                i = argument;
                continue;
            }
            // pg_catalog . X, information_schema . X  or  X
            int last;
            String schema;
            String name;
            boolean qualified = (t.value().equals("pg_catalog") || t.value().equals("information_schema"))
                    && i + 2 < tokens.size() && punctuation(tokens.get(i + 1), ".") && identifier(tokens.get(i + 2));
            if (qualified) {
                last = i + 2;
                schema = t.value();
                name = tokens.get(last).value();
            } else {
                last = i;
                schema = "pg_catalog";
                name = t.value();
                if (!bareResolves || ctes.contains(name)) {
                    continue;
                }
            }
            CatalogFilters.Filter filter = schema.equals("pg_catalog") ? filters.byName(name) : null;
            ViewFilters.Filter view = filter == null ? views.byName(schema, name) : null;
            if (filter == null && view == null) {
                continue;
            }
            Token next = last + 1 < tokens.size() ? tokens.get(last + 1) : null;
            if (next != null && (punctuation(next, ".") || punctuation(next, "("))) {
                continue;
            }
            int first = i;
            Token before = i > 0 ? tokens.get(i - 1) : null;
            if (before != null && before.kind() == Token.Kind.WORD && before.value().equals("only")) {
                first = i - 1;
                before = i > 1 ? tokens.get(i - 2) : null;
            }
            if (!relationPosition(tokens, first, before, inFrom)) {
                continue;
            }
            out.append(text, copied, tokens.get(first).start() - base);
            out.append(filter != null ? filter.subquery(named, star, fenced) : view.subquery(named, star));
            if (!hasAlias(next)) {
                out.append(" AS ").append(CatalogFilters.quote(name));
            }
            copied = tokens.get(last).end() - base;
            i = last;
        }
        if (copied == 0) {
            return text;
        }
        return out.append(text, copied, text.length()).toString();
    }

    /** Whether {@code word} is a reserved or type_func_name keyword: never a bare alias, nor a column name. */
    static boolean reservedAfterRelation(String word) {
        return NOT_ALIASES.contains(word);
    }

    /** {@code (*)}, as in {@code count(*)}: an aggregate's star, which names no column. */
    private static boolean countStar(List<Token> tokens, int star) {
        return star > 0 && star + 1 < tokens.size() && punctuation(tokens.get(star - 1), "(")
                && punctuation(tokens.get(star + 1), ")");
    }

    /** Whether the token before a name (or its ONLY) puts the name where a FROM item starts. */
    private static boolean relationPosition(List<Token> tokens, int first, Token before, Deque<Boolean> inFrom) {
        if (before == null) {
            return false;
        }
        if (before.kind() == Token.Kind.WORD && (before.value().equals("from") || before.value().equals("join"))) {
            return true;
        }
        if (punctuation(before, ",")) {
            return inFrom.peek();
        }
        if (punctuation(before, "(")) {
            // A parenthesised join: the enclosing level is in FROM and the parenthesis is not a function call's.
            Boolean outer = inFrom.size() > 1 ? inFrom.stream().skip(1).findFirst().orElse(false) : false;
            Token opener = first >= 2 ? tokens.get(first - 2) : null;
            boolean afterFromItemStart = opener != null && (punctuation(opener, ",") || punctuation(opener, "(")
                    || opener.kind() == Token.Kind.WORD && (opener.value().equals("from")
                    || opener.value().equals("join") || opener.value().equals("lateral")));
            return outer && afterFromItemStart;
        }
        return false;
    }

    private static boolean hasAlias(Token next) {
        if (next == null) {
            return false;
        }
        if (next.kind() == Token.Kind.QUOTED_IDENTIFIER) {
            return true;
        }
        return next.kind() == Token.Kind.WORD && (next.value().equals("as") || !NOT_ALIASES.contains(next.value()));
    }

    /**
     * The names of the statement's CTEs: {@code name AS (}, {@code name AS [NOT] MATERIALIZED (} or
     * {@code name (columns) AS (}. A bare catalog name equal to one of them is the CTE, not the catalog.
     */
    static Set<String> cteNames(List<Token> tokens) {
        Set<String> names = new HashSet<>();
        for (int i = 0; i + 2 < tokens.size(); i++) {
            if (!identifier(tokens.get(i))) {
                continue;
            }
            int j = i + 1;
            if (punctuation(tokens.get(j), "(")) {
                int depth = 0;
                for (; j < tokens.size(); j++) {
                    if (punctuation(tokens.get(j), "(")) {
                        depth++;
                    } else if (punctuation(tokens.get(j), ")") && --depth == 0) {
                        break;
                    }
                }
                j++;
            }
            if (j + 1 < tokens.size() && tokens.get(j).isWord("as")) {
                Token after = tokens.get(j + 1);
                if (punctuation(after, "(") || after.isWord("materialized") || after.isWord("not")) {
                    names.add(tokens.get(i).value());
                }
            }
        }
        return names;
    }

    /**
     * Whether a bare relation name resolves in pg_catalog before any other schema: pg_catalog is not in the path
     * (PostgreSQL then searches it first) or is its first entry. A read-only session has no temporary relations.
     */
    static boolean pgCatalogFirst(String searchPath) {
        List<String> schemas = SearchPath.schemas(searchPath);
        int index = schemas.indexOf("pg_catalog");
        return index <= 0;
    }

    private static boolean identifier(Token t) {
        return t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    private static boolean punctuation(Token t, String text) {
        return t.kind() == Token.Kind.PUNCTUATION && t.text().equals(text);
    }

    /** search_path as PostgreSQL reports it: comma-separated, each entry quoted or folded to lower case. */
    static final class SearchPath {
        private SearchPath() {
        }

        static List<String> schemas(String searchPath) {
            List<String> schemas = new java.util.ArrayList<>();
            StringBuilder current = new StringBuilder();
            boolean quoted = false;
            boolean wasQuoted = false;
            for (int i = 0; i < searchPath.length(); i++) {
                char c = searchPath.charAt(i);
                if (quoted) {
                    if (c == '"' && i + 1 < searchPath.length() && searchPath.charAt(i + 1) == '"') {
                        current.append('"');
                        i++;
                    } else if (c == '"') {
                        quoted = false;
                    } else {
                        current.append(c);
                    }
                } else if (c == '"') {
                    quoted = true;
                    wasQuoted = true;
                } else if (c == ',') {
                    schemas.add(entry(current, wasQuoted));
                    current.setLength(0);
                    wasQuoted = false;
                } else if (!Character.isWhitespace(c)) {
                    current.append(c);
                }
            }
            if (current.length() > 0 || wasQuoted) {
                schemas.add(entry(current, wasQuoted));
            }
            return schemas;
        }

        private static String entry(StringBuilder text, boolean quoted) {
            return quoted ? text.toString() : text.toString().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
