package io.pgward.guard.selection;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A relation name as PostgreSQL reads it: an unquoted identifier folds to lower case, a quoted one keeps its case
 * ({@code "Sales 2026".daily} is schema {@code Sales 2026}, relation {@code daily}); U&amp; identifiers and the
 * 63-byte cut apply as in the server's scanner.
 *
 * @param schema the schema as stored in pg_namespace, empty for a bare name
 * @param name the relation name as stored in pg_class
 */
public record RelationName(Optional<String> schema, String name) {

    private static final String NOT_A_NAME = "is not a relation name: ";

    public RelationName {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(name, "name");
    }

    /**
     * Reads {@code schema.name}, the form a table selection requires.
     *
     * @throws IllegalArgumentException saying what is wrong with the text
     */
    public static RelationName parseQualified(String text) {
        RelationName parsed = parse(text);
        if (parsed.schema().isEmpty()) {
            throw new IllegalArgumentException("must be schema-qualified (schema.name)");
        }
        return parsed;
    }

    /**
     * Reads {@code name} or {@code schema.name}.
     *
     * @throws IllegalArgumentException saying what is wrong with the text
     */
    public static RelationName parse(String text) {
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenize(text, true);
        } catch (LexerException e) {
            throw new IllegalArgumentException(NOT_A_NAME + e.getMessage(), e);
        }
        int end = 0;
        for (Token token : tokens) {
            if (!text.substring(end, token.start()).isBlank()) {
                throw new IllegalArgumentException(NOT_A_NAME + "it has a comment");
            }
            end = token.end();
        }
        if (!text.substring(end).isBlank()) {
            throw new IllegalArgumentException(NOT_A_NAME + "it has a comment");
        }
        if (tokens.size() == 1) {
            return new RelationName(Optional.empty(), identifier(tokens.get(0)));
        }
        if (tokens.size() == 3 && tokens.get(1).kind() == Token.Kind.PUNCTUATION && tokens.get(1).text().equals(".")) {
            return new RelationName(Optional.of(identifier(tokens.get(0))), identifier(tokens.get(2)));
        }
        throw new IllegalArgumentException(NOT_A_NAME + "write schema.name, with double quotes around an"
                + " identifier that has upper-case letters, spaces or other special characters");
    }

    private static String identifier(Token token) {
        switch (token.kind()) {
            case WORD -> {
                return token.value();
            }
            case QUOTED_IDENTIFIER -> {
                if (token.value().isEmpty()) {
                    throw new IllegalArgumentException("has a zero-length quoted identifier");
                }
                return token.value();
            }
            default -> throw new IllegalArgumentException(NOT_A_NAME + token.text() + " is not an identifier");
        }
    }
}
