package io.pgward.wire.relay;

import java.util.List;
import java.util.Objects;

/**
 * What pgward follows of the session's portals, which run what they were bound from only at an Execute, possibly in
 * a later request than the Bind:
 * <ul>
 *   <li>a portal of a statement that may change search_path (sets it, ends a transaction or rolls back to a
 *       savepoint, which take a SET back): whether it does depends on what ran before its Execute, so every Execute
 *       of one is taken as a change;</li>
 *   <li>a portal of a COPY, with the search_path and verdict epoch it was bound with: PostgreSQL looks a COPY's table
 *       up, and analyses its query, only when the portal runs, so an Execute with another path, or after the schema
 *       changed, would read what the guard never judged.</li>
 * </ul>
 * Every binding a portal may still have is kept ({@link PossiblyHeld}): a Bind that would replace one fails where the
 * named portal exists, and a rollback to a savepoint keeps the portals made before it. A ReadyForQuery outside a
 * transaction block means every portal is gone.
 */
final class BoundPortals {

    /**
     * One binding of a portal.
     *
     * @param changesSearchPath running it may change search_path
     * @param copy the COPY it runs, as judged with the path and epoch of the Bind; null for another statement
     */
    record Binding(boolean changesSearchPath, JudgedStatements.Judged copy) {
    }

    private final PossiblyHeld<Binding> portals = new PossiblyHeld<>();

    /** A Bind of {@code portal} in the client request numbered {@code request}; null: nothing to follow. */
    void bound(String portal, Binding binding, long request) {
        portals.set(portal, binding, request);
    }

    void closed(String portal, long request) {
        portals.removed(portal, request);
    }

    void retired(long request, boolean errored) {
        portals.retired(request, errored);
    }

    /** A ReadyForQuery with this transaction status: outside a transaction block no portal is left. */
    void ready(char transactionStatus) {
        if (transactionStatus == 'I') {
            portals.clear();
        }
    }

    /** Whether executing {@code portal} may change search_path. */
    boolean mayChangeSearchPath(String portal) {
        return portals.possible(portal).stream().anyMatch(Binding::changesSearchPath);
    }

    /** The COPY statements {@code portal} may run, each judged with the path and epoch it was bound with. */
    List<JudgedStatements.Judged> copies(String portal) {
        return portals.possible(portal).stream().map(Binding::copy).filter(Objects::nonNull).toList();
    }
}
