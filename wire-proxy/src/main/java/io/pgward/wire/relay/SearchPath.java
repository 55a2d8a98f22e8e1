package io.pgward.wire.relay;

import java.util.Map;

/**
 * The session's search_path as the server last showed it, kept only for gates that {@link
 * StatementGate#wantsSearchPath() want it}. A server that reports search_path in ParameterStatus (PostgreSQL 18)
 * says every change itself; an older one is asked with pgward's own SHOW search_path (an {@link InFlight} request)
 * when the session starts and after each request that carried a statement which may change it.
 */
final class SearchPath {

    private final boolean wanted;
    private final Map<String, String> reported;
    private String current;
    /** A statement that may change search_path was forwarded; ask once its request is closed. */
    private boolean stale;

    /** @param reported the backend's ParameterStatus values, as they stand */
    SearchPath(boolean wanted, Map<String, String> reported) {
        this.wanted = wanted;
        this.reported = reported;
    }

    /** At the session's start: true when the server must be asked. */
    boolean askAtStart() {
        if (!wanted) {
            return false;
        }
        current = reported.get("search_path");
        return current == null;
    }

    /** The value for a gate request: null for gates that do not want it. */
    String current() {
        return current;
    }

    /** A statement the gate says may change search_path was forwarded. */
    void mayChange(boolean changesSearchPath) {
        stale |= changesSearchPath && wanted && !reported.containsKey("search_path");
    }

    /** A request was closed: true when the server must be asked now, behind it. */
    boolean askAfterRequest() {
        boolean ask = stale;
        stale = false;
        return ask;
    }

    /** The server reported a setting in ParameterStatus. */
    void reported(String name, String value) {
        if (wanted && "search_path".equals(name)) {
            current = value;
        }
    }

    /**
     * pgward's own SHOW search_path finished; {@code value} is null when it failed (in an aborted transaction), and
     * then the last value stands: the statement that might have changed it failed too.
     */
    void shown(String value) {
        if (value != null) {
            current = value;
        }
    }
}
