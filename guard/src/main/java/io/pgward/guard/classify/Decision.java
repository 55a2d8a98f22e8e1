package io.pgward.guard.classify;

import io.pgward.guard.SqlStates;
import java.util.Objects;
import java.util.Optional;

/**
 * What the L2 classification decided for one statement. Outcomes are values: a refusal is never an exception.
 *
 * <p>Shape: {@link Allow} carries the name of the cursor a {@code DECLARE} opens, so that the session can later
 * admit {@code FETCH}, {@code MOVE} and {@code CLOSE} of that cursor and of no other (see
 * {@link ReadOnlyClassifier#classify(io.pgward.guard.lexer.StatementText, ReadOnlyPolicy, java.util.Set)}).
 */
public sealed interface Decision {

    /** Allowed with no effect worth tracking. */
    Allow ALLOW = new Allow(Optional.empty());

    /**
     * The statement may be forwarded.
     *
     * @param declaredCursor for an allowed {@code DECLARE}, the cursor's name as PostgreSQL folds it
     */
    record Allow(Optional<String> declaredCursor) implements Decision {
        public Allow {
            Objects.requireNonNull(declaredCursor, "declaredCursor");
        }
    }

    /**
     * The statement must not reach the server. pgward answers with an ErrorResponse, SQLSTATE 42501, 54001 for a
     * statement too complex to check, or 42601 for one PostgreSQL's grammar rejects ({@link #sqlState()}).
     *
     * @param rule a short id of the rule that fired, for the audit log (see {@link Rule})
     * @param message the complete error message for the client
     * @param position 1-based character position in the whole input the statement came from, 0 for none
     */
    record Refuse(String rule, String message, int position) implements Decision {
        /** insufficient_privilege: what PostgreSQL reports for a statement the role may not run. */
        public static final String SQLSTATE = SqlStates.INSUFFICIENT_PRIVILEGE;
        /**
         * statement_too_complex: what PostgreSQL reports when a statement exceeds its own limits (max_stack_depth);
         * pgward's answer for a statement it cannot judge within its bounds ({@link Rule#TOO_COMPLEX}).
         */
        public static final String TOO_COMPLEX_SQLSTATE = SqlStates.STATEMENT_TOO_COMPLEX;
        /** PostgreSQL's syntax error, for a statement its grammar rejects at the first word. */
        public static final String SYNTAX_ERROR_SQLSTATE = SqlStates.SYNTAX_ERROR;

        public Refuse {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(message, "message");
            if (position < 0) {
                throw new IllegalArgumentException("position must be 0 or more, was " + position);
            }
        }

        /** The SQLSTATE of the ErrorResponse: {@link #TOO_COMPLEX_SQLSTATE} for a too-complex text, else 42501. */
        public String sqlState() {
            if (rule.equals(Rule.SYNTAX_ERROR)) {
                return SYNTAX_ERROR_SQLSTATE;
            }
            return rule.equals(Rule.TOO_COMPLEX) || rule.equals(Rule.TOO_COMPLEX_TO_PARSE) ? TOO_COMPLEX_SQLSTATE
                    : SQLSTATE;
        }
    }

    /** The rule ids {@link Refuse#rule()} takes. */
    final class Rule {
        /** A statement kind a read-only login may not run (INSERT, CREATE TABLE, VACUUM, LISTEN, ...). */
        public static final String STATEMENT_KIND = "statement-kind";
        /** {@code SELECT ... INTO}, at any depth. */
        public static final String SELECT_INTO = "select-into";
        /** {@code FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE}, at any depth. */
        public static final String LOCKING = "locking";
        /** INSERT, UPDATE, DELETE or MERGE inside a WITH query. */
        public static final String DML_IN_CTE = "dml-in-cte";
        /** A built-in function on the deny-list (side effects, or reach outside the statement). */
        public static final String DENIED_FUNCTION = "denied-function";
        /** SET, RESET or SHOW of a setting outside the allow-list, or to a value the policy forbids. */
        public static final String SESSION_SETTING = "session-setting";
        /** Anything that would make a transaction or the session read-write. */
        public static final String READ_WRITE = "read-write";
        /** EXPLAIN that executes the statement (ANALYZE). */
        public static final String EXPLAIN_ANALYZE = "explain-analyze";
        /** COPY other than {@code TO STDOUT}. */
        public static final String COPY = "copy";
        /** DECLARE ... WITH HOLD, or FETCH / MOVE / CLOSE of a cursor this session did not declare through pgward. */
        public static final String CURSOR = "cursor";
        /** Transaction control beyond plain BEGIN / COMMIT / ROLLBACK / savepoints (AND CHAIN). */
        public static final String TRANSACTION_CONTROL = "transaction-control";
        /** The text could not be parsed, so it cannot be shown to only read. */
        public static final String UNPARSEABLE = "unparseable";
        /**
         * A query that passed every token check but that JSqlParser cannot parse: refused, unless the catalog check
         * (PostgreSQL's own parse) follows and proves it.
         */
        public static final String UNPARSED_QUERY = "unparsed-query";
        /**
         * The statement begins with a word no PostgreSQL statement begins with, so PostgreSQL's grammar rejects it:
         * answered with PostgreSQL's own syntax error (42601) at that word, not a refusal.
         */
        public static final String SYNTAX_ERROR = "syntax-error";
        /**
         * The text is beyond what the guard can judge within its bounds on work per statement (see
         * {@code ComplexityEnvelope}): refused with SQLSTATE 54001, as PostgreSQL refuses what exceeds its own limits.
         */
        public static final String TOO_COMPLEX = "too-complex";
        /**
         * A query beyond the envelope in which JSqlParser's work is bounded: the token checks passed, and it is
         * refused with SQLSTATE 54001 unless the catalog check (PostgreSQL's own parse) follows and proves it.
         */
        public static final String TOO_COMPLEX_TO_PARSE = "too-complex-to-parse";
        /** The guard itself failed; it fails closed. */
        public static final String GUARD_ERROR = "guard-error";

        private Rule() {
        }
    }
}
