package io.pgward.wire.relay;

import io.netty.channel.Channel;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.Messages;
import java.util.Map;

/**
 * The session's search_path as the server last showed it, kept only for gates that {@link
 * StatementGate#wantsSearchPath() want it}. A server that reports search_path in ParameterStatus (PostgreSQL 18)
 * says every change itself; an older one is asked with pgward's own SHOW search_path (an {@link InFlight} request)
 * when the session starts and after each request that carried a statement which may change it.
 *
 * <p>The SHOW goes in the extended protocol under a statement and portal name of pgward's own, {@code
 * pgward_search_path_<nonce>}: a simple Query would drop the client's unnamed prepared statement and unnamed portal
 * (PostgreSQL drops both at every Query), which the client may still bind or execute after its own request.
 *
 * <pre>
 *   pgward                                       PostgreSQL (outside a failed transaction block)
 *   Close(S n) Close(P n)                     ─▶ CloseComplete CloseComplete   (nothing of that name: no error)
 *   Parse(n, SHOW search_path) Bind(n, n)     ─▶ ParseComplete BindComplete
 *   Execute(n)                                ─▶ DataRow(path) CommandComplete(SHOW)
 *   Close(S n) Close(P n) Sync                ─▶ CloseComplete CloseComplete ReadyForQuery
 * </pre>
 */
final class SearchPath {

    private final boolean wanted;
    private final BackendConnection backend;
    private final InFlight inFlight;
    /** The name of pgward's statement and portal for the SHOW. */
    private final String probeName;
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
    /** Probes in a row that failed outside a failed transaction block. */
    private int failedProbes;

    /** How many probes in a row may fail before the path is left unknown until the next request has ended. */
    static final int PROBE_ATTEMPTS = 3;

    SearchPath(boolean wanted, BackendConnection backend, InFlight inFlight, long nonce) {
        this.wanted = wanted;
        this.backend = backend;
        this.inFlight = inFlight;
        this.probeName = "pgward_search_path_" + Long.toHexString(nonce);
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
        if (stale || wanted && current == null && !reported.containsKey("search_path")) {
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
     * Asks the server for the session's search_path behind everything already sent (see the class comment); the
     * reply is pgward's own and never reaches the client. It is sent after a request has ended, so the Sync does what
     * the end of a Query did: it commits the implicit transaction outside a block and leaves a block open. SHOW takes
     * no snapshot in Parse, Bind or Execute, so it cannot change what a transaction sees or make a later SET
     * TRANSACTION fail. In an aborted transaction the Parse fails (25P02) and the server skips the rest up to the
     * Sync, and the last value stands: the statement that might have changed it failed too.
     *
     * <p>The first Closes take away a statement left by a probe that failed after its Parse (a cancel that hit it),
     * and anything a client made under the name (only one that learnt the session's nonce can), so that neither can
     * make this and every later probe fail and leave the path stale; the last ones leave nothing of pgward's in the
     * session (pg_prepared_statements, pg_cursors).
     */
    private void ask() {
        inFlight.probeSearchPath();
        Channel channel = backend.channel();
        channel.write(Messages.close(channel.alloc(), 'S', probeName));
        channel.write(Messages.close(channel.alloc(), 'P', probeName));
        channel.write(Messages.parse(channel.alloc(), probeName, "SHOW search_path"));
        channel.write(Messages.bind(channel.alloc(), probeName, probeName));
        channel.write(Messages.execute(channel.alloc(), probeName));
        channel.write(Messages.close(channel.alloc(), 'S', probeName));
        channel.write(Messages.close(channel.alloc(), 'P', probeName));
        channel.write(Messages.sync(channel.alloc()));
    }

    /**
     * Takes a message of the reply to pgward's SHOW (completions of its Close, Parse and Bind, the row, the tag, an
     * error, notices), other than ParameterStatus (which the session holds to the pins), and releases it; true when
     * it was the ReadyForQuery that ends the reply.
     */
    boolean reply(InFlight.Request probe, BackendMessage message) {
        if (message instanceof BackendMessage.Frame frame && frame.type() == 'Z') {
            char status = (char) frame.body().getByte(0);
            backend.transactionStatus(status);
            inFlight.retire();
            frame.bytes().release();
            if (probe.shown() != null) {
                current = probe.shown();
                failedProbes = 0;
            } else if (status != 'E') {
                // Not a failed block, where the statement that might have changed the path failed too: a cancel or
                // a timeout hit the probe, and the path the request before it may have set is not known. Judging with
                // the last one would judge with a path the server no longer has; ask again, and while none is known
                // a statement that needs it is refused.
                current = null;
                if (++failedProbes < PROBE_ATTEMPTS) {
                    ask();
                    backend.channel().flush();
                }
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
