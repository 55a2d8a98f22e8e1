package io.pgward.arango;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@code pgward.aql} answers: the generated AQL and whether it is valid, with the error or the prose answer
 * when it is not. Nothing runs.
 *
 * @param aql the validated query; when none passed, the last query the model proposed, if any
 * @param valid whether {@code aql} passed EXPLAIN and the read-only plan check
 * @param error when no query passed: each attempt's error
 * @param answer when the model said the question is not about the database
 */
public record GeneratedAql(Optional<String> aql, boolean valid, Optional<String> error, Optional<String> answer) {

    /** The result columns, in order, for the proxy's RowDescription (all text; valid is {@code true}/{@code false}). */
    public static final List<String> COLUMNS = List.of("aql", "valid", "error", "answer");

    public GeneratedAql {
        Objects.requireNonNull(aql, "aql");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(answer, "answer");
    }

    /** The one row of the answer, in {@link #COLUMNS} order; absent values are SQL NULL. */
    public List<String> row() {
        return Arrays.asList(aql.orElse(null), String.valueOf(valid), error.orElse(null), answer.orElse(null));
    }
}
