package io.pgward.wire.session;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A database pgward serves itself instead of relaying to PostgreSQL (an ArangoDB database behind the PostgreSQL
 * front door): it runs each statement a client sends and answers with rows in text format.
 */
public interface LocalDatabase {

    /**
     * Runs one statement. The stage completes with the rows, or fails with a {@link LocalDatabaseException} that
     * the client receives as an ErrorResponse (any other failure becomes an internal error). Called on an event
     * loop: the work must happen elsewhere.
     *
     * @param parameters the values bound to {@code $1 ...}, as text, null for SQL NULL
     */
    CompletionStage<Verdict.Answer> execute(Statement statement);

    /** The ParameterStatus values a client gets at login (server_version, server_encoding, ...). */
    Map<String, String> parameterStatus();

    /** One statement of one session. */
    record Statement(String sql, List<String> parameters, String login, boolean readOnly, String connection) {
    }
}
