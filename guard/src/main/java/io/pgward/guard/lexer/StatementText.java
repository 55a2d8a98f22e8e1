package io.pgward.guard.lexer;

import java.util.List;

/**
 * One statement of a possibly multi-statement text, split exactly where PostgreSQL splits it.
 *
 * @param text the statement's source text, from its first token to its last (comments outside it dropped,
 *             no terminating semicolon)
 * @param start offset of {@code text} in the whole input
 * @param tokens its tokens, comments and whitespace excluded; never empty
 */
public record StatementText(String text, int start, List<Token> tokens) {

    public StatementText {
        tokens = List.copyOf(tokens);
    }
}
