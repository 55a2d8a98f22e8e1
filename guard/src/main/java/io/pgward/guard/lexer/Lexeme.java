package io.pgward.guard.lexer;

/**
 * A token as the core scanner returns it, before the filter that PostgreSQL runs between scanner and grammar
 * (parser.c, {@code base_yylex}) has applied {@code UESCAPE} and the Unicode escapes of {@code U&} literals.
 *
 * @param value for {@link Form#UNICODE_STRING} and {@link Form#UNICODE_IDENTIFIER} the literal with its quotes
 *              removed but its Unicode escapes still in place; otherwise the final token value
 */
record Lexeme(Token.Kind kind, Form form, int start, int end, String value) {

    enum Form {
        /** Anything the grammar filter passes through unchanged. */
        PLAIN,
        /** '...', E'...' or $tag$...$tag$: what PostgreSQL calls SCONST, the only thing UESCAPE accepts. */
        SIMPLE_STRING,
        /** U&'...' (USCONST). */
        UNICODE_STRING,
        /** U&"..." (UIDENT). */
        UNICODE_IDENTIFIER
    }

    Token toToken(String sql) {
        // Most tokens (symbols, numbers, lower-case words) mean what they say: one string serves as text and value.
        String text = value != null && value.length() == end - start && sql.startsWith(value, start) ? value
                : sql.substring(start, end);
        return new Token(kind, text, value, start, end);
    }
}
