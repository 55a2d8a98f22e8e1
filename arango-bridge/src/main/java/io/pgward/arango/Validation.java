package io.pgward.arango;

/**
 * The answer of {@link ArangoBridge#validate}: the statement would be allowed for a read-only login, or why not,
 * in words meant to be fed back to the model that wrote it (ArangoDB's own message for a syntax or name error).
 */
public sealed interface Validation {

    String aql();

    record Valid(String aql) implements Validation {
    }

    /**
     * @param message   ArangoDB's error message, or the gate's refusal
     * @param errorNum  ArangoDB's error number, 0 for a refusal
     * @param sqlState  the SQLSTATE the statement would fail with
     */
    record Invalid(String aql, String message, int errorNum, String sqlState) implements Validation {
    }
}
