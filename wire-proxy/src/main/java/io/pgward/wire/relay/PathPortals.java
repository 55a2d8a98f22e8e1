package io.pgward.wire.relay;

import java.util.HashMap;
import java.util.Map;

/**
 * The portals that may change search_path when they are executed: bound from a statement that sets it, or that
 * ends a transaction (which takes back a SET made in it, or since a savepoint). Whether such a statement changes the
 * path depends on what ran before its Execute, not its Bind, so every Execute of one is taken as a change.
 *
 * <p>Like the statements ({@link JudgedStatements}), this keeps every portal that may still exist: a Bind or Close
 * that would replace or remove one counts only once its request ended without an error (the server skips both after
 * an error, and refuses to bind a named portal that exists), and a rollback to a savepoint keeps the portals made
 * before it. A ReadyForQuery outside a transaction block means every portal is gone.
 */
final class PathPortals {

    /** The portals, each with the request that would remove it once it ends without an error, or 0. */
    private final Map<String, Long> portals = new HashMap<>();

    /** A Bind of {@code portal} was sent in the client request numbered {@code request}. */
    void bound(String portal, boolean mayChangeSearchPath, long request) {
        if (mayChangeSearchPath) {
            portals.put(portal, 0L);
        } else {
            portals.computeIfPresent(portal, (name, removedBy) -> request);
        }
    }

    /** A Close of {@code portal} was sent in the client request numbered {@code request}. */
    void closed(String portal, long request) {
        portals.computeIfPresent(portal, (name, removedBy) -> request);
    }

    /** Whether executing {@code portal} may change search_path. */
    boolean mayChangeSearchPath(String portal) {
        return portals.containsKey(portal);
    }

    /** The client request numbered {@code request} got its ReadyForQuery; {@code errored}: the server failed it. */
    void retired(long request, boolean errored) {
        if (!errored) {
            portals.values().removeIf(removedBy -> removedBy == request);
        }
    }

    /** A ReadyForQuery with this transaction status: outside a transaction block no portal is left. */
    void ready(char transactionStatus) {
        if (transactionStatus == 'I') {
            portals.clear();
        }
    }
}
