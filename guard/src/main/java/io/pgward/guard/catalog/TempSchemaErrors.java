package io.pgward.guard.catalog;

import static io.pgward.guard.lexer.Tokens.isSymbol;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.Token;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL's error for a function, type or operator named in pg_temp, as the client's own session gives it. The
 * check runs on a control connection that keeps a temporary schema ({@link PreparedReads}), so there such a name is
 * looked up in that schema and not found: 42883 or 42704. A read-only session creates no temporary object and so
 * has no temporary schema, and there PostgreSQL stops at the schema, at the same place:
 * {@code 3F000 schema "pg_temp" does not exist}. (A relation in pg_temp is 42P01 in both.)
 */
final class TempSchemaErrors {

    static final String INVALID_SCHEMA_NAME = "3F000";
    private static final String UNDEFINED_FUNCTION = "42883";
    private static final String UNDEFINED_OBJECT = "42704";

    private TempSchemaErrors() {
    }

    /**
     * The session's error for PostgreSQL's {@code error} about the statement of {@code tokens}, when the control
     * connection's error is about a name in pg_temp at its position; empty otherwise.
     */
    static Optional<Verdict.Refuse> asSession(Verdict.Refuse error, List<Token> tokens) {
        if (!error.sqlState().equals(UNDEFINED_FUNCTION) && !error.sqlState().equals(UNDEFINED_OBJECT)
                || error.position() <= 0) {
            return Optional.empty();
        }
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.start() + 1 != error.position()) {
                continue;
            }
            // An operator's error is placed at OPERATOR of OPERATOR(pg_temp.+).
            int schema = t.isWord("operator") && i + 1 < tokens.size() && isSymbol(tokens.get(i + 1), "(") ? i + 2 : i;
            if (schema + 1 < tokens.size() && inTempSchema(tokens.get(schema), tokens.get(schema + 1))) {
                return Optional.of(new Verdict.Refuse(INVALID_SCHEMA_NAME, "schema \"pg_temp\" does not exist",
                        error.position(), CatalogRefusals.POSTGRES_ERROR, null, null));
            }
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static boolean inTempSchema(Token schema, Token dot) {
        return (schema.kind() == Token.Kind.WORD || schema.kind() == Token.Kind.QUOTED_IDENTIFIER)
                && schema.value().equals("pg_temp") && isSymbol(dot, ".");
    }
}
