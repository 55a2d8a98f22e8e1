package io.pgward.nl;

/** What {@code pgward.ask} (and the comment form) gives the proxy to do. */
public sealed interface AskResult {

    /**
     * Run {@code sqlToRun} on the client's own backend session and send its rows; show {@code generatedSql} to the
     * client in a NOTICE.
     *
     * @param generatedSql the validated query as the model wrote it (one statement, no trailing semicolon)
     * @param sqlToRun {@code generatedSql} with the row limit applied (see {@link RowLimit})
     * @param rowLimit the limit applied
     * @param attempts how many statements the model proposed
     */
    record Rows(String generatedSql, String sqlToRun, int rowLimit, int attempts) implements AskResult {
    }

    /** The model said the question is not about the database: one row, one column {@code answer}; nothing runs. */
    record Answer(String answer) implements AskResult {
    }
}
