package io.pgward.mcp;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import java.util.ArrayList;
import java.util.List;

/**
 * A statement with PostgreSQL's {@code $1..$n} parameters as pgjdbc takes it: each {@code $n} becomes {@code ?}
 * (with the value list in that order, so {@code $2 ... $1 ... $2} binds three values), and each {@code ?} of an
 * operator ({@code ?}, {@code ?|}, {@code ?&}) is doubled so pgjdbc passes it through. The guard's lexer finds
 * them, so a {@code $1} or {@code ?} inside a string, a quoted identifier or a comment is left alone.
 *
 * @param order for each {@code ?} of the text, the 0-based index of the value it binds
 */
record DollarParameters(String text, List<Integer> order) {

    static DollarParameters of(String sql, int values) {
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenize(sql, true);
        } catch (LexerException e) {
            throw new ToolError("SQL execution failed: " + e.getMessage());
        }
        StringBuilder text = new StringBuilder();
        List<Integer> order = new ArrayList<>();
        int at = 0;
        for (Token token : tokens) {
            if (token.kind() == Token.Kind.PARAMETER) {
                int number = Integer.parseInt(token.text().substring(1));
                if (number < 1 || number > values) {
                    throw new ToolError("SQL execution failed: the statement uses " + token.text() + " but params has "
                            + values + (values == 1 ? " value." : " values."));
                }
                text.append(sql, at, token.start()).append('?');
                order.add(number - 1);
                at = token.end();
            } else if (token.kind() == Token.Kind.OPERATOR && token.text().indexOf('?') >= 0) {
                text.append(sql, at, token.start()).append(token.text().replace("?", "??"));
                at = token.end();
            }
        }
        text.append(sql.substring(at));
        return new DollarParameters(text.toString(), List.copyOf(order));
    }
}
