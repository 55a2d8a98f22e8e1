package io.pgward.wire.relay;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The ParseCompletes and CloseCompletes the backend owes, each kind in order, and which of them answer a Parse or
 * Close pgward sent on its own ({@link SkipQuestion}'s Close, the statement with computed {@code pgward.*} calls it
 * prepares in place of a Bind): those are not the client's and are dropped. Neither message carries anything but its
 * type, so one is told from another of its kind only by its place.
 *
 * <p>After an ErrorResponse the server skips the rest of the request up to its Sync: the Parses and Closes of that
 * request still owed never answer, and are forgotten. A request is told by the number {@link InFlight} gives it.
 */
final class Completions {

    /** ParseComplete. */
    static final char PARSE = '1';
    /** CloseComplete. */
    static final char CLOSE = '3';

    private record Owed(long request, boolean pgwards) {
    }

    private final Deque<Owed> parses = new ArrayDeque<>();
    private final Deque<Owed> closes = new ArrayDeque<>();

    /** Whether {@code type} is a backend message type this counts: ParseComplete or CloseComplete. */
    static boolean counts(char type) {
        return type == PARSE || type == CLOSE;
    }

    /**
     * A Parse ({@link #PARSE}) or Close ({@link #CLOSE}) was sent in the client request numbered {@code request};
     * {@code pgwards}: pgward's own.
     */
    void sent(char completion, long request, boolean pgwards) {
        owed(completion).addLast(new Owed(request, pgwards));
    }

    /** A completion of type {@code completion} arrived: true when it answers pgward's own message, not the client's. */
    boolean arrivedIsPgwards(char completion) {
        Owed first = owed(completion).pollFirst();
        return first != null && first.pgwards();
    }

    /** Whether no completion of type {@code completion} is owed: the last that arrived answered the last sent. */
    boolean noneOwed(char completion) {
        return owed(completion).isEmpty();
    }

    /** The request numbered {@code request} failed, or ended: nothing more of it answers. */
    void ended(long request) {
        parses.removeIf(o -> o.request() == request);
        closes.removeIf(o -> o.request() == request);
    }

    private Deque<Owed> owed(char completion) {
        return switch (completion) {
            case PARSE -> parses;
            case CLOSE -> closes;
            default -> throw new IllegalArgumentException("not a counted completion: " + completion);
        };
    }
}
