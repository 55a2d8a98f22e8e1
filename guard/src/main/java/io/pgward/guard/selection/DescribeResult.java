package io.pgward.guard.selection;

import io.pgward.guard.Verdict;
import java.util.Objects;

/**
 * What {@code pgward.describe(name)} finds: the relation's description, or the refusal pgward answers with. The
 * refusal is the one {@link Verdict.Refuse} (rule {@link #RULE}), which the proxy sends as it is.
 */
public sealed interface DescribeResult {

    /** The rule id of every describe refusal, for the audit log. */
    String RULE = "describe";

    record Described(Description description) implements DescribeResult {
        public Described {
            Objects.requireNonNull(description, "description");
        }
    }

    /**
     * The name does not lead to one relation the login may describe; pgward answers with an ErrorResponse.
     *
     * @param refusal SQLSTATE 42P01 (undefined_table) for a name that is not selected or not readable, 42P09 for
     *                a bare name several selected relations share, 42501 when none of the selected names exists;
     *                no position
     */
    record Refused(Verdict.Refuse refusal) implements DescribeResult {
        public Refused {
            Objects.requireNonNull(refusal, "refusal");
        }

        static Refused of(String sqlState, String message) {
            return new Refused(new Verdict.Refuse(sqlState, message, 0, RULE));
        }
    }
}
