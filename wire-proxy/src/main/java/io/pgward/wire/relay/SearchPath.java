package io.pgward.wire.relay;

import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.Messages;
import java.util.Map;

/**
 * The session's search_path as the server last showed it, kept only for gates that {@link
 * StatementGate#wantsSearchPath() want it}. A server that reports search_path in ParameterStatus (PostgreSQL 18)
 * says every change itself; an older one is asked with pgward's own SHOW search_path (an {@link InFlight} request)
 * when the session starts and after each request that carried a statement which may change it.
 */
final class SearchPath {

    private final boolean wanted;
    private final BackendConnection backend;
    private final InFlight inFlight;
    /** The backend's ParameterStatus values, as they stand. */
    private final Map<String, String> reported;
    private String current;
    /** A statement that may change search_path was forwarded; ask once its request is closed. */
    private boolean stale;
    /** A statement that may change search_path was forwarded in the open request, reported or not. */
    private boolean changedInOpenRequest;
    /**
     * The last client request that may have changed search_path on a server that reports it, 0 for none: the server
     * reports the change just before that request's ReadyForQuery, and until then {@link #current()} may be the
     * path from before it, so nothing is judged meanwhile ({@link #unconfirmed()}).
     */
    private long reportAwaited;

    SearchPath(boolean wanted, BackendConnection backend, InFlight inFlight) {
        this.wanted = wanted;
        this.backend = backend;
        this.inFlight = inFlight;
        this.reported = backend.parameters();
    }

    /** At the session's start: asks the server when it does not report search_path. */
    void start() {
        if (!wanted) {
            return;
        }
        current = reported.get("search_path");
        if (current == null) {
            ask();
            backend.channel().flush();
        }
    }

    /** Whether gates judge with the session's path: then each statement must be judged with the path it runs with. */
    boolean wanted() {
        return wanted;
    }

    /** The value for a gate request: null for gates that do not want it. */
    String current() {
        return current;
    }

    /** A statement the gate says may change search_path was forwarded. */
    void mayChange(boolean changesSearchPath) {
        stale |= changesSearchPath && wanted && !reported.containsKey("search_path");
        changedInOpenRequest |= changesSearchPath;
    }

    /**
     * Whether a statement forwarded in the open request may have changed search_path: {@link #current()} may then
     * not be the path a later message of the request is run with.
     */
    boolean mayHaveChangedInOpenRequest() {
        return changedInOpenRequest;
    }

    /**
     * A request was closed: asks the server behind it when a statement in it may have changed search_path, or, when the
     * server reports search_path itself, waits for that report.
     */
    void requestClosed() {
        if (stale) {
            ask();
        } else if (changedInOpenRequest && wanted) {
            reportAwaited = inFlight.openId() - 1;
        }
        stale = false;
        changedInOpenRequest = false;
    }

    /**
     * Whether a request that may have changed search_path has not ended yet, on a server that reports the path: the
     * next statement must wait for the report to be judged with the path it runs with.
     */
    boolean unconfirmed() {
        return reportAwaited != 0;
    }

    /** The client request numbered {@code request} got its ReadyForQuery. */
    void retired(long request) {
        if (request >= reportAwaited) {
            reportAwaited = 0;
        }
    }

    /** The server reported a setting in ParameterStatus. */
    void reported(String name, String value) {
        if (wanted && "search_path".equals(name)) {
            current = value;
        }
    }

    /**
     * Asks the server for the session's search_path behind everything already sent; the reply is pgward's
     * own and never reaches the client. SHOW takes no snapshot, so it cannot change what a transaction sees or
     * make a later SET TRANSACTION fail. In an aborted transaction it fails, and the last value stands: the
     * statement that might have changed it failed too.
     */
    private void ask() {
        inFlight.probeSearchPath();
        backend.channel().write(Messages.query(backend.channel().alloc(), "SHOW search_path"));
    }

    /**
     * Takes a message of the reply to pgward's SHOW, other than ParameterStatus (which the session holds to the
     * pins), and releases it; true when it was the ReadyForQuery that ends the reply.
     */
    boolean reply(InFlight.Request probe, BackendMessage message) {
        if (message instanceof BackendMessage.Frame frame && frame.type() == 'Z') {
            backend.transactionStatus((char) frame.body().getByte(0));
            inFlight.retire();
            frame.bytes().release();
            if (probe.shown() != null) {
                current = probe.shown();
            }
            return true;
        }
        if (message instanceof BackendMessage.Run run && probe.shown() == null) {
            probe.shown(Messages.firstTextValue(run.bytes()));
        }
        message.bytes().release();
        return false;
    }
}
