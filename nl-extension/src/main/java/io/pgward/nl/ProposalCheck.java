package io.pgward.nl;

import java.util.Objects;

/**
 * Decides a query the model proposed: passed, with the text to offer as the answer, or rejected, with the
 * problem to feed back to the model. Faults (the database cannot be reached) are thrown, not returned.
 *
 * <p>Not a {@link io.pgward.guard.Verdict}: a verdict answers a statement a client sent, and its refusal goes to
 * the client as an ErrorResponse. This check sits inside the repair loop of {@link QueryGenerator}: its query may
 * be SQL or AQL, nothing reaches a client, and a rejection is a hint for the model's next attempt (for SQL, often
 * the guard's refusal message).
 */
@FunctionalInterface
public interface ProposalCheck {

    Outcome check(String query);

    sealed interface Outcome {
    }

    /** @param query the text to offer (e.g. without a trailing semicolon) */
    record Passed(String query) implements Outcome {
        public Passed {
            Objects.requireNonNull(query, "query");
        }
    }

    /** @param problem the exact reason, fed back to the model with the query */
    record Rejected(String problem) implements Outcome {
        public Rejected {
            Objects.requireNonNull(problem, "problem");
        }
    }
}
