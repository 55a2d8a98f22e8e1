package io.pgward.arango;

/** What {@code pgward.ask} (and the comment form) gives the proxy on an ArangoDB database. */
public sealed interface AqlAskResult {

    /**
     * Run {@code aqlToRun} with {@link AqlAssistant#run} (always through the read-only gate, whatever the login's
     * mode) and send its rows; show {@code generatedAql} to the client in a NOTICE.
     *
     * @param generatedAql the validated query as the model wrote it (no trailing semicolon)
     * @param aqlToRun {@code generatedAql} with the row limit applied, also validated
     * @param rowLimit the limit applied
     * @param attempts how many queries the model proposed
     */
    record Rows(String generatedAql, String aqlToRun, int rowLimit, int attempts) implements AqlAskResult {
    }

    /** The model said the question is not about the database: one row, one column {@code answer}; nothing runs. */
    record Answer(String answer) implements AqlAskResult {
    }
}
