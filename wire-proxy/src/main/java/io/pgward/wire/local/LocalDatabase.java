package io.pgward.wire.local;

import io.pgward.guard.Verdict;
import io.pgward.wire.config.PgwardConfig;
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
     */
    CompletionStage<Verdict.Answer> execute(Statement statement);

    /**
     * Runs one statement of a simple Query, handing its rows to {@code out} as they come, so a result of any size
     * passes with about one batch in memory. The stage completes with the command tag and notices, and with no
     * rows when they went to {@code out}; a database that does not stream completes with the whole answer (the
     * default, which is {@link #execute}).
     */
    default CompletionStage<Verdict.Answer> stream(Statement statement, ResultStream out) {
        return execute(statement);
    }

    /**
     * Where a streamed result goes, called on the thread that runs the statement: {@link #columns} once, then
     * {@link #rows} per batch. {@code rows} waits while the client is not reading, and throws
     * {@link java.util.concurrent.CancellationException} once the statement is over for the client (cancelled,
     * disconnected): the statement should then stop.
     */
    interface ResultStream {

        void columns(List<String> names);

        void rows(List<List<String>> batch);
    }

    /**
     * True when the statement text holds no statement at all (only whitespace and comments, by this database's
     * own comment rules): the client then gets EmptyQueryResponse, as from PostgreSQL, and nothing runs.
     */
    default boolean isEmpty(String statement) {
        return statement.isBlank();
    }

    /** The ParameterStatus values a client gets at login (server_version, server_encoding, ...). */
    Map<String, String> parameterStatus();

    /**
     * The ParameterStatus a database pgward answers itself reports at login, in this order: UTF-8 both ways, ISO
     * dates, UTC, standard strings. Clients parse {@code serverVersion}'s leading number; 17.0 keeps them on their
     * current protocol paths.
     */
    static Map<String, String> standardParameterStatus(String serverVersion) {
        Map<String, String> status = new java.util.LinkedHashMap<>();
        status.put("server_version", serverVersion);
        status.put("server_encoding", "UTF8");
        status.put("client_encoding", "UTF8");
        status.put("DateStyle", "ISO, MDY");
        status.put("TimeZone", "UTC");
        status.put("integer_datetimes", "on");
        status.put("standard_conforming_strings", "on");
        return java.util.Collections.unmodifiableMap(status);
    }

    /**
     * One statement of one session.
     *
     * @param parameters     the values bound to {@code $1 ...}, as text, null for SQL NULL
     * @param parameterTypes the type OIDs the client gave at Parse, one per parameter, 0 where it gave none
     * @param policy         the login's policy: its mode, selection, row cap and timeout, for the database to apply
     */
    record Statement(String sql, List<String> parameters, List<Integer> parameterTypes, String login,
                     PgwardConfig.Policy policy, String connection) {

        public Statement {
            parameters = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(parameters));
            List<Integer> types = new java.util.ArrayList<>(parameterTypes);
            while (types.size() < parameters.size()) {
                types.add(0);
            }
            parameterTypes = List.copyOf(types);
            java.util.Objects.requireNonNull(policy, "policy");
        }

        /** A statement whose parameters have no declared types, of a login with only a mode. */
        public Statement(String sql, List<String> parameters, String login, boolean readOnly, String connection) {
            this(sql, parameters, List.of(), login, PgwardConfig.Policy.of(readOnly ? PgwardConfig.Mode.READ_ONLY
                    : PgwardConfig.Mode.READ_WRITE), connection);
        }

        /** Whether the login may only read. */
        public boolean readOnly() {
            return policy.mode() == PgwardConfig.Mode.READ_ONLY;
        }
    }
}
