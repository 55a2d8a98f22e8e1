package io.pgward.nl;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.util.List;
import java.util.Set;

/**
 * A generated statement must be exactly one query (SELECT, WITH, VALUES, TABLE, or a parenthesised one), because
 * it is wrapped as a subquery to apply the row limit and EXPLAIN must see the whole of it. This is a shape check
 * only; whether the query reads only what it may is the guard's decision.
 */
final class QueryShape {

    static final String NOT_ONE_QUERY = "pgward answers a question with exactly one SELECT, WITH, VALUES or TABLE "
            + "query, and this is not one";
    private static final Set<String> QUERY_WORDS = Set.of("select", "with", "values", "table");

    /** The single query's text (comments around it and a trailing semicolon removed), or the problem. */
    sealed interface Result {
    }

    record Query(String text) implements Result {
    }

    record Problem(String message) implements Result {
    }

    private QueryShape() {
    }

    static Result check(String sql) {
        List<StatementText> statements;
        try {
            statements = SqlLexer.split(sql, true);
        } catch (LexerException e) {
            return new Problem(e.getMessage());
        }
        if (statements.size() != 1) {
            return new Problem(NOT_ONE_QUERY + " (" + statements.size() + " statements)");
        }
        Token first = statements.getFirst().tokens().getFirst();
        boolean query = (first.kind() == Token.Kind.WORD && QUERY_WORDS.contains(first.value()))
                || (first.kind() == Token.Kind.PUNCTUATION && first.text().equals("("));
        return query ? new Query(statements.getFirst().text()) : new Problem(NOT_ONE_QUERY);
    }
}
