package io.pgward.wire.relay;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The ParseCompletes the backend owes, in order, and which of them answer a Parse pgward sent on its own (the
 * statement with computed {@code pgward.*} calls it prepares in place of a Bind): those are not the client's and
 * are dropped. ParseComplete carries nothing but its type, so one is told from another only by its place.
 *
 * <p>After an ErrorResponse the server skips the rest of the request up to its Sync: the Parses of that request
 * still owed never answer, and are forgotten. A request is told by the number {@link InFlight} gives it.
 */
final class ParseCompletes {

    private record Owed(long request, boolean pgwards) {
    }

    private final Deque<Owed> owed = new ArrayDeque<>();
    /** How many of {@code owed} are pgward's: while none is, every ParseComplete is the client's. */
    private int pgwards;

    /** A Parse was sent in the client request numbered {@code request}; {@code pgwards}: pgward's own. */
    void sent(long request, boolean pgwards) {
        owed.addLast(new Owed(request, pgwards));
        if (pgwards) {
            this.pgwards++;
        }
    }

    /** A ParseComplete arrived: true when it answers pgward's own Parse, and is not the client's. */
    boolean arrivedIsPgwards() {
        if (pgwards == 0) {
            owed.pollFirst();
            return false;
        }
        Owed first = owed.pollFirst();
        if (first != null && first.pgwards()) {
            pgwards--;
            return true;
        }
        return false;
    }

    /** Whether no ParseComplete is owed: the last one that arrived answered the last Parse sent. */
    boolean noneOwed() {
        return owed.isEmpty();
    }

    /** The request numbered {@code request} failed, or ended: nothing more of it answers. */
    void ended(long request) {
        owed.removeIf(o -> {
            if (o.request() == request && o.pgwards()) {
                pgwards--;
            }
            return o.request() == request;
        });
    }
}
