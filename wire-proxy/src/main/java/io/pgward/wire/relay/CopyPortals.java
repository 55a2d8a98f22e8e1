package io.pgward.wire.relay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The portals of COPY statements, with the search_path and verdict epoch they were bound with. PostgreSQL looks a
 * COPY's table up, and analyses its query, only when the portal runs, not when it is prepared or bound: an Execute
 * with another path, or after the schema changed, would read what the guard never judged, so it is refused.
 *
 * <p>Like {@link PathPortals}, this keeps every binding a portal may still have: a Bind or Close that would replace
 * or remove one counts only once its request ended without an error, and a ReadyForQuery outside a transaction block
 * means every portal is gone.
 */
final class CopyPortals {

    /** What a portal was bound with. */
    record Bound(String searchPath, long epoch) {
    }

    private record Entry(List<Bound> possible, long removedBy) {
    }

    private final Map<String, Entry> portals = new HashMap<>();

    /** A Bind of {@code portal} in the client request numbered {@code request}; {@code bound} null for no COPY. */
    void bound(String portal, Bound bound, long request) {
        Entry entry = portals.get(portal);
        if (bound != null) {
            List<Bound> possible = new ArrayList<>(entry == null ? List.of() : entry.possible());
            possible.add(bound);
            portals.put(portal, new Entry(List.copyOf(possible), 0));
        } else if (entry != null) {
            portals.put(portal, new Entry(entry.possible(), request));
        }
    }

    void closed(String portal, long request) {
        portals.computeIfPresent(portal, (name, entry) -> new Entry(entry.possible(), request));
    }

    /** What {@code portal} may have been bound with, if it may hold a COPY. */
    List<Bound> possible(String portal) {
        Entry entry = portals.get(portal);
        return entry == null ? List.of() : entry.possible();
    }

    void retired(long request, boolean errored) {
        if (!errored) {
            portals.values().removeIf(entry -> entry.removedBy() == request);
        }
    }

    void ready(char transactionStatus) {
        if (transactionStatus == 'I') {
            portals.clear();
        }
    }
}
