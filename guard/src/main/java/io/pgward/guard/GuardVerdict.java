package io.pgward.guard;

import java.util.Objects;

/**
 * What the guard decided for one statement: the one outcome of the {@code GuardPipeline} and of its catalog check
 * (L3). A refusal carries its SQLSTATE: an L2 refusal is 42501, 54001 or 42601 ({@code Decision.Refuse#sqlState()});
 * when PostgreSQL itself rejects the statement while it is checked (an unknown table, a syntax error, a bad
 * literal), the client gets PostgreSQL's error, as it would without pgward.
 */
public sealed interface GuardVerdict {

    Allow ALLOW = new Allow();

    /** The statement may run. */
    record Allow() implements GuardVerdict {
    }

    /**
     * The statement must not reach the server.
     *
     * @param rule a short id of the rule that fired (see {@code CatalogRefusals}), for the audit log
     * @param sqlState the SQLSTATE of the ErrorResponse
     * @param message the complete error message
     * @param position 1-based character position in the request's statement text ({@code CheckRequest.sql()}), 0 for
     *                 none; for a statement of a multi-statement Query, add the statement's offset in the Query
     */
    record Refuse(String rule, String sqlState, String message, int position) implements GuardVerdict {
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
