package io.pgward.nl;

import java.util.Objects;

/**
 * Decides a query the model proposed: passed, with the text to offer as the answer, or rejected, with the
 * problem to feed back to the model. Faults (the database cannot be reached) are thrown, not returned.
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
