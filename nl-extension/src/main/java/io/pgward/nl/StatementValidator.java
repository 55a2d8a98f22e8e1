package io.pgward.nl;

import java.util.Optional;

/**
 * Decides whether a generated statement may be offered as the answer to a question: empty when it may, else the
 * message to feed back to the model (a guard refusal, or the database's primary error message from EXPLAIN).
 * The proxy implements it with every guard layer of the login then {@link ExplainValidator}.
 */
@FunctionalInterface
public interface StatementValidator {

    Optional<String> problem(String sql);

    /** {@code guard} first (its refusal is the problem), then this validator. */
    default StatementValidator after(SqlGuard guard) {
        return sql -> {
            Optional<String> refusal = guard.refusal(sql);
            return refusal.isPresent() ? refusal : problem(sql);
        };
    }
}
