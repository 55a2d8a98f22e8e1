package io.pgward.guard.selection;

import java.util.Objects;

/** What {@code pgward.describe(name)} answers: a description, or an error for the client. */
public sealed interface DescribeOutcome {

    record Described(Description description) implements DescribeOutcome {
        public Described {
            Objects.requireNonNull(description, "description");
        }
    }

    /**
     * The name does not lead to one relation the login may describe; pgward answers with an ErrorResponse.
     *
     * @param sqlState 42P01 (undefined_table) for a name that is not selected or not readable, 42P09 for a bare
     *                 name several selected relations share, 42501 when none of the selected names exists
     * @param message the complete message
     */
    record Refused(String sqlState, String message) implements DescribeOutcome {
        public Refused {
            Objects.requireNonNull(sqlState, "sqlState");
            Objects.requireNonNull(message, "message");
        }
    }
}
