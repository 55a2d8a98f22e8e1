package io.pgward.arango;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * How {@code pgward.ask} limits the rows of generated AQL: the query becomes a subquery of a loop with a LIMIT,
 *
 * <pre>
 *   [WITH c1, c2]
 *   FOR pgward_row IN (
 *   &lt;query&gt;
 *   ) LIMIT n RETURN pgward_row
 * </pre>
 *
 * AQL's grammar takes any query (statements then RETURN) as a parenthesised subquery expression, and a FOR may
 * iterate over it; the optimizer's inline-subqueries rule pulls such a subquery into the outer loop, so the
 * LIMIT stops the inner query early rather than after it has built its whole result. Wrapping works whatever
 * the query's own shape (its own LIMIT, COLLECT, a traversal, a bare RETURN) and changes only how many rows come
 * back. A {@code WITH} collection declaration is only allowed at the very start of a query, never in a subquery,
 * so it is moved in front of the wrapper. The newline before the closing parenthesis keeps a trailing
 * {@code //} comment from swallowing it.
 */
final class AqlRowLimit {

    static final String ROW_VARIABLE = "pgward_row";

    /** The AQL keywords that start a statement, and so end a WITH list (they are reserved: never names). */
    private static final Set<String> STATEMENT_KEYWORDS = Set.of("FOR", "LET", "FILTER", "RETURN", "COLLECT", "SORT",
            "LIMIT", "WINDOW", "REMOVE", "INSERT", "UPDATE", "REPLACE", "UPSERT");

    private AqlRowLimit() {
    }

    static String apply(String aql, int limit) {
        int bodyStart = withClauseEnd(aql);
        String with = bodyStart == 0 ? "" : aql.substring(0, bodyStart).strip() + "\n";
        return with + "FOR " + ROW_VARIABLE + " IN (\n" + aql.substring(bodyStart).strip() + "\n) LIMIT " + limit
                + " RETURN " + ROW_VARIABLE;
    }

    /** The offset just after a leading {@code WITH name[, name ...]} declaration, or 0 when there is none. */
    private static int withClauseEnd(String aql) {
        List<AqlLexer.Located> tokens = AqlLexer.locate(aql);
        if (tokens.isEmpty() || !tokens.getFirst().token().isWord("WITH")) {
            return 0;
        }
        int end = tokens.getFirst().end();
        for (AqlLexer.Located located : tokens.subList(1, tokens.size())) {
            AqlLexer.Token token = located.token();
            boolean listPart = switch (token.kind()) {
                case WORD -> !STATEMENT_KEYWORDS.contains(token.text().toUpperCase(Locale.ROOT));
                case QUOTED_NAME, BIND_PARAMETER, PARAMETER -> true;
                case PUNCTUATION -> token.isPunctuation(',');
                case STRING, NUMBER -> false;
            };
            if (!listPart) {
                break;
            }
            end = located.end();
        }
        return end;
    }

    /** {@code aql} without semicolons at its end (AQL has none; models and psql users add them). */
    static String withoutTrailingSemicolons(String aql) {
        List<AqlLexer.Located> tokens = AqlLexer.locate(aql);
        int end = tokens.size();
        while (end > 0 && tokens.get(end - 1).token().isPunctuation(';')) {
            end--;
        }
        if (end == tokens.size()) {
            return aql.strip();
        }
        return end == 0 ? "" : aql.substring(0, tokens.get(end - 1).end()).strip();
    }
}
