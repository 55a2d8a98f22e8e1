package io.pgward.wire.relay;

import io.pgward.guard.Verdict;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What the backend still owes one session, oldest first: a {@link Request} per ReadyForQuery PostgreSQL will send,
 * each retired by that ReadyForQuery (PostgreSQL answers requests in the order they were sent).
 *
 * <p>A request is everything one ReadyForQuery closes: a simple Query, a fast-path FunctionCall, the extended
 * protocol messages up to and including a Sync, or a statement pgward sends on its own (SHOW search_path, the row
 * cap's abort). Messages forwarded since the last Sync form the <em>open</em> request, which owes nothing yet; the
 * next Sync, Query or FunctionCall closes it. A local answer decided while requests are in flight waits behind
 * them and owes no ReadyForQuery.
 *
 * <pre>
 *   forwarded:  Q(SELECT 1)   P B E S         SHOW search_path     P(refused) B E
 *   requests:   [CLIENT]      [CLIENT]        [SEARCH_PATH]        open: substitution 1
 *   retired by: Z             Z               Z                    (the next Sync's Z)
 * </pre>
 *
 * <p>Invariants: a local answer is only ever the last request (the session processes no client message while one
 * waits), so every request ahead of it owes a ReadyForQuery; the row cap's abort is only sent when nothing owes
 * one, and goes first; a request's substitutions are in the order their errors come back.
 */
final class InFlight {

    enum Kind {
        /** Client messages up to a Sync, or one Query or FunctionCall. */
        CLIENT,
        /** pgward's own SHOW search_path: nothing of its reply reaches the client. */
        SEARCH_PATH,
        /** pgward's statement that aborts the transaction of a capped result: its error is not relayed. */
        CAP_ABORT,
        /** A local answer waiting for the requests ahead of it; owes no ReadyForQuery. */
        LOCAL_ANSWER
    }

    /**
     * A refused statement sent as {@code token}; the server's syntax error naming the token becomes the refusal. For a
     * refused Bind value ({@code boundValue} not null) the token was bound in its place as a type name, and the
     * server's error for that absent type becomes the error for the value ({@link BoundValues}).
     */
    record Substitution(String token, Verdict.Refuse refusal, String boundValue) {
        Substitution(String token, Verdict.Refuse refusal) {
            this(token, refusal, null);
        }
    }

    static final class Request {
        private final Kind kind;
        private final Deque<Substitution> substitutions;
        private final Verdict.Answer answer;
        /** For {@link Kind#CLIENT}: its number, counted from 1 in the order client requests were closed. */
        private long id;
        /** The server sent an ErrorResponse in it: messages of it after the error were skipped. */
        private boolean errored;
        /** For {@link Kind#SEARCH_PATH}: the first value of its result, null until it arrives. */
        private String shown;

        private Request(Kind kind, Deque<Substitution> substitutions, Verdict.Answer answer) {
            this.kind = kind;
            this.substitutions = substitutions;
            this.answer = answer;
        }

        Kind kind() {
            return kind;
        }

        Verdict.Answer answer() {
            return answer;
        }

        long id() {
            return id;
        }

        boolean errored() {
            return errored;
        }

        String shown() {
            return shown;
        }

        void shown(String value) {
            if (shown == null) {
                shown = value;
            }
        }
    }

    private final Deque<Request> requests = new ArrayDeque<>();
    private Deque<Substitution> open = new ArrayDeque<>();
    private boolean openErrored;
    /** An extended-protocol message that can fail (Parse, Bind, Describe, Execute, Close) was sent in the open request. */
    private boolean openExtended;
    /** The server answered pgward's question after the last such message: it is not skipping to a Sync. */
    private boolean openNotSkipping;
    private long openId = 1;
    private int readiesOwed;
    private int searchPathProbes;

    /** A refused statement was forwarded as part of the open request. */
    void substituted(String token, Verdict.Refuse refusal) {
        open.addLast(new Substitution(token, refusal));
    }

    /** A Bind was forwarded with {@code token} in place of the refused {@code boundValue}. */
    void substitutedValue(String token, Verdict.Refuse refusal, String boundValue) {
        open.addLast(new Substitution(token, refusal, boundValue));
    }

    /** A Sync, Query or FunctionCall was forwarded: it closes the open request, which now owes a ReadyForQuery. */
    void closeClientRequest() {
        Request closed = new Request(Kind.CLIENT, open, null);
        closed.id = openId++;
        closed.errored = openErrored;
        requests.addLast(closed);
        open = new ArrayDeque<>();
        openErrored = false;
        openExtended = false;
        openNotSkipping = false;
        readiesOwed++;
    }

    /** An extended-protocol message that can fail was sent as part of the open request. */
    void extendedSent() {
        openExtended = true;
        openNotSkipping = false;
    }

    /** Whether the server is known not to skip to a Sync, since the last message of the open request that can fail. */
    boolean openNotSkipping() {
        return openNotSkipping;
    }

    void openNotSkipping(boolean known) {
        openNotSkipping = known;
    }

    /**
     * Whether the open request holds extended-protocol messages that can fail: a Query or FunctionCall that closes it
     * is then skipped by the server if one of them failed, and gets no ReadyForQuery of its own.
     */
    boolean openHasExtended() {
        return openExtended;
    }

    /** Whether the server failed a message of the open request: it skips everything up to the next Sync. */
    boolean openErrored() {
        return openErrored;
    }

    /** The number the open client request will have ({@link Request#id()}). */
    long openId() {
        return openId;
    }

    /**
     * The server sent an ErrorResponse: it belongs to the request the next ReadyForQuery retires, or to the open one
     * when none is owed (a Flush brought it before the Sync).
     */
    void errorArrived() {
        Request head = head();
        if (head == null) {
            openErrored = true;
        } else if (head.kind == Kind.CLIENT) {
            head.errored = true;
        }
    }

    /** pgward sent SHOW search_path behind everything already forwarded. */
    void probeSearchPath() {
        requests.addLast(new Request(Kind.SEARCH_PATH, new ArrayDeque<>(), null));
        readiesOwed++;
        searchPathProbes++;
    }

    /**
     * pgward sent the statement that aborts a capped result's transaction. Nothing owes a ReadyForQuery (the
     * session checks), so it goes first: a local answer waiting for the capped request waits for it too.
     */
    void abortFirst() {
        requests.addFirst(new Request(Kind.CAP_ABORT, new ArrayDeque<>(), null));
        readiesOwed++;
    }

    /** A local answer must follow everything the backend still owes. */
    void answerLater(Verdict.Answer answer) {
        requests.addLast(new Request(Kind.LOCAL_ANSWER, new ArrayDeque<>(), answer));
    }

    /** True while the backend owes a ReadyForQuery. */
    boolean owesReady() {
        return readiesOwed > 0;
    }

    /** The request the next ReadyForQuery retires, null when none is owed. */
    Request head() {
        Request head = requests.peekFirst();
        return head == null || head.kind == Kind.LOCAL_ANSWER ? null : head;
    }

    /**
     * Retires the request a ReadyForQuery closes; null for a ReadyForQuery nothing owed (the backend is then
     * trusted as before: it is relayed).
     */
    Request retire() {
        Request head = head();
        if (head == null) {
            return null;
        }
        requests.pollFirst();
        readiesOwed--;
        if (head.kind == Kind.SEARCH_PATH) {
            searchPathProbes--;
        }
        return head;
    }

    /** The local answer now due (every request ahead of it retired), taken out of the queue; null when none is. */
    Verdict.Answer dueAnswer() {
        Request first = requests.peekFirst();
        if (first == null || first.kind != Kind.LOCAL_ANSWER) {
            return null;
        }
        requests.pollFirst();
        return first.answer;
    }

    /** True while pgward's own reply must reach the client before the next client message is handled. */
    boolean waitsForPgward() {
        return searchPathProbes > 0 || (!requests.isEmpty() && requests.peekLast().kind == Kind.LOCAL_ANSWER);
    }

    /** The refusal whose error comes back next: the first of the request the next ReadyForQuery retires. */
    Substitution nextSubstitution() {
        Request head = head();
        return (head != null ? head.substitutions : open).peekFirst();
    }

    /** The refusal {@link #nextSubstitution()} named was answered. */
    void substitutionAnswered() {
        Request head = head();
        (head != null ? head.substitutions : open).pollFirst();
    }
}
