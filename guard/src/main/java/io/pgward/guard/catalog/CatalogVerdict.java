package io.pgward.guard.catalog;

import java.util.Objects;

/**
 * What the catalog check (L3) decided for one statement. Unlike L2's {@code Decision.Refuse}, which is always
 * SQLSTATE 42501, a refusal here carries its SQLSTATE: when PostgreSQL itself rejects the statement while it is
 * checked (an unknown table, a syntax error, a bad literal), the client gets PostgreSQL's error, as it would
 * without pgward.
 */
public sealed interface CatalogVerdict {

    Allow ALLOW = new Allow();

    /** The statement may run. */
    record Allow() implements CatalogVerdict {
    }

    /**
     * The statement must not reach the server.
     *
     * @param rule a short id of the rule that fired (see {@link CatalogRefusals}), for the audit log
     * @param sqlState the SQLSTATE of the ErrorResponse
     * @param message the complete error message
     * @param position 1-based character position in the request's statement text ({@link CheckRequest#sql()}), 0 for
     *                 none; for a statement of a multi-statement Query, add the statement's offset in the Query
     */
    record Refuse(String rule, String sqlState, String message, int position) implements CatalogVerdict {
        public Refuse {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(sqlState, "sqlState");
            Objects.requireNonNull(message, "message");
            if (position < 0) {
                throw new IllegalArgumentException("position must be 0 or more, was " + position);
            }
        }
    }
}
