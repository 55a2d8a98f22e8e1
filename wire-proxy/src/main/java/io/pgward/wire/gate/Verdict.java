package io.pgward.wire.gate;

import java.util.List;

/** What the gate decided for one statement. Outcomes are values; faults inside the gate become {@link Refuse}. */
public sealed interface Verdict {

    /**
     * Forward the statement as the bytes that arrived.
     *
     * @param changesSearchPath the statement may change the session's search_path (SET, RESET, DISCARD, or the
     *                          end of a transaction that set it), so the session asks the server for it afterwards
     */
    record Allow(boolean changesSearchPath) implements Verdict {
    }

    /**
     * Refuse with a PostgreSQL ERROR.
     *
     * @param position 1-based character position in the statement text, 0 for none
     * @param rule a short name of the rule that fired, for the audit log
     */
    record Refuse(String sqlState, String message, int position, String rule) implements Verdict {
        public Refuse(String sqlState, String message) {
            this(sqlState, message, 0, "gate");
        }

        public Refuse(String sqlState, String message, int position) {
            this(sqlState, message, position, "gate");
        }
    }

    /**
     * pgward answers the statement itself with a result set in text format.
     *
     * @param columns column names; every column is of type text
     * @param rows one list per row, null for SQL NULL
     * @param commandTag e.g. {@code SELECT 3}
     * @param notices NOTICE messages sent before the rows
     */
    record Answer(List<String> columns, List<List<String>> rows, String commandTag, List<String> notices)
            implements Verdict {
    }

    /**
     * Run another statement in place of the client's, on the client's own backend session (so every runtime
     * limit applies): what pgward does for a question, once the statement written for it has passed the guard.
     *
     * @param sql the statement to run instead; it has no parameters
     * @param notices NOTICE messages sent before its result (e.g. the statement itself)
     */
    record Rewrite(String sql, List<String> notices) implements Verdict {
    }

    Verdict ALLOW = new Allow(false);

    Verdict ALLOW_CHANGING_SEARCH_PATH = new Allow(true);
}
