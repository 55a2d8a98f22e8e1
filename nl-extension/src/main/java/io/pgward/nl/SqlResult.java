package io.pgward.nl;

import java.util.Objects;
import java.util.Optional;

/**
 * What {@code pgward.sql} answers: the generated SQL and whether it is valid, with the error or the prose answer
 * when it is not. Nothing runs.
 *
 * @param sql the validated query; when none passed, the last statement the model proposed, if any
 * @param valid whether {@code sql} passed the guard and EXPLAIN
 * @param error when no statement passed: each attempt's error
 * @param answer when the model said the question is not about the database
 */
public record SqlResult(Optional<String> sql, boolean valid, Optional<String> error, Optional<String> answer) {

    public SqlResult {
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(answer, "answer");
    }
}
