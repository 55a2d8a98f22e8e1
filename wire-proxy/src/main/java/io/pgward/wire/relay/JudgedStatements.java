package io.pgward.wire.relay;

import io.pgward.guard.Verdict;
import io.pgward.guard.policy.GuardPipeline;
import java.util.List;

/**
 * What each of the session's prepared statements was judged with, so that a Bind or a Describe of it is judged again
 * where PostgreSQL would analyse it again differently. PostgreSQL keeps a prepared statement's parse tree and
 * analyses it again before it runs or is described when the session's search_path is not the one it was analysed
 * with, or when a schema change invalidated its plan: its names then resolve anew, possibly to relations, functions
 * or types the guard never judged it with. So a statement judged with another search_path, or before the login's
 * verdicts were last dropped ({@code epoch}), is judged again with the session's path before the message goes on.
 *
 * <p>A Bind names its statement only by name, and only the server knows which statement a name holds: this keeps
 * every statement a name may hold ({@link PossiblyHeld}). A Parse of a name that already holds a statement fails, so
 * a Parse in a request without an error made the name; the unnamed statement is no exception, since a Parse skipped
 * after an error leaves it as it was.
 */
final class JudgedStatements {

    /**
     * A statement as the guard allowed it.
     *
     * @param verdict the Parse's verdict ({@link Verdict.Allow} or {@link Verdict.Rewrite}); null for a statement
     *                pgward prepared in place of an answer of its own, which is never judged again
     * @param copy it is a COPY, whose names PostgreSQL resolves only when its portal runs ({@link BoundPortals})
     * @param computed {@code sql} is the statement pgward wrote with the client's pgward calls computed into it
     *                 ({@code StatementGate#computesCalls}), allowed as it is; a SELECT the guard allowed, which
     *                 changes no setting
     */
    record Judged(String sql, int[] parameterTypes, Verdict verdict, String searchPath, long epoch, boolean copy,
                  boolean computed) {

        /**
         * Whether PostgreSQL runs it as it was judged: the same search_path, no verdict dropped since. pgward's own
         * statement in place of an answer holds constants only, and always does.
         */
        boolean holds(String path, long epochNow) {
            return verdict == null || epoch == epochNow && epochNow != GuardPipeline.UNKNOWN_EPOCH
                    && searchPath != null && searchPath.equals(path);
        }

        Judged with(String path, long epochNow) {
            return new Judged(sql, parameterTypes, verdict, path, epochNow, copy, computed);
        }

        /** Running it may change the session's search_path, as its verdict said. */
        boolean changesSearchPath() {
            return verdict instanceof Verdict.Allow allow && allow.changesSearchPath();
        }

        /**
         * Whether running it may change the session's search_path whatever ran before it, as a statement judged
         * allowed can (it ends a transaction or rolls back to a savepoint, which takes a SET back).
         */
        boolean mayChangeSearchPath() {
            return verdict instanceof Verdict.Allow && !computed;
        }
    }

    private final PossiblyHeld<Judged> statements = new PossiblyHeld<>();

    /** A Parse of {@code name} that the guard allowed was sent in the client request numbered {@code request}. */
    void parsed(String name, Judged judged, long request) {
        statements.set(name, judged, request);
    }

    /** A Close of the statement {@code name} was sent in the client request numbered {@code request}. */
    void closed(String name, long request) {
        statements.removed(name, request);
    }

    /** The client request numbered {@code request} got its ReadyForQuery; {@code errored}: the server failed it. */
    void retired(long request, boolean errored) {
        statements.retired(request, errored);
    }

    /** Every statement {@code name} may hold; empty when it holds none the guard allowed. */
    List<Judged> possible(String name) {
        return statements.possible(name);
    }

    /**
     * Every statement {@code name} may hold for a Bind or Describe in the open client request numbered
     * {@code openRequest} ({@link PossiblyHeld#possibleWithin}).
     */
    List<Judged> possibleWithin(String name, long openRequest) {
        return statements.possibleWithin(name, openRequest);
    }

    /** {@code before}, which {@code name} may hold, was judged again and allowed as {@code now}. */
    void judgedAgain(String name, Judged before, Judged now) {
        statements.replaced(name, before, now);
    }
}
