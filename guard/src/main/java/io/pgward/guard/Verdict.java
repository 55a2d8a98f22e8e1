package io.pgward.guard;

import java.util.List;
import java.util.Objects;

/**
 * What pgward decided for one statement a client sent: the one verdict type of every layer. The guard (L1 and L2 in
 * {@code ReadOnlyGuard}, the catalog check L3 in {@code CatalogCheck}, both behind {@code GuardPipeline}) produces
 * {@link Allow} and {@link Refuse}, and {@link Rewrite} where a login with a table selection reads the catalogs
 * ({@code GuardPipeline.proveOrRewrite}: the filtered catalog); the proxy's statement gates add {@link Answer} and
 * {@link Rewrite} for the statements pgward answers itself (the {@code pgward.*} functions, a question in natural
 * language, a local database). Outcomes are values: a fault while deciding becomes a {@link Refuse} (fail closed), never an exception.
 *
 * <p>A refusal carries its SQLSTATE: an L1 or L2 refusal is 42501, 54001 or 42601 by its rule
 * ({@link io.pgward.guard.classify.Refusals}); when PostgreSQL itself rejects the statement while
 * the catalog check analyses it (an unknown table, a syntax error, a bad literal), the refusal carries PostgreSQL's
 * own error, as the client would get it without pgward.
 */
public sealed interface Verdict {

    /**
     * Forward the statement as the bytes that arrived. Produced by the guard and by the gates.
     *
     * @param changesSearchPath the statement may change the session's search_path (SET, RESET, DISCARD, or the
     *                          end of a transaction that set it), so the session asks the server for it afterwards;
     *                          only the gate, which keeps the session's state, knows this: the guard's own allow is
     *                          {@link #ALLOW}
     * @param typeNameParameters the statement's {@code $n} that take type names, each only compared with the OIDs of
     *                           visible types (the catalog check's {@code KeyMatch}): a name bound to one is looked
     *                           up by PostgreSQL, where a hidden type's name must answer as an absent one does, so
     *                           the session resolves every such value before the Bind goes on
     *                           ({@code BoundTypeNames}); empty for every other statement
     */
    record Allow(boolean changesSearchPath, List<TypeNameParameter> typeNameParameters) implements Verdict {

        public Allow {
            typeNameParameters = List.copyOf(typeNameParameters);
        }

        public Allow(boolean changesSearchPath) {
            this(changesSearchPath, List.of());
        }
    }

    /**
     * The statement must not reach the server: pgward answers with an ErrorResponse (severity ERROR). Produced by
     * every layer of the guard, and by the gates for what they refuse themselves or fail to decide.
     *
     * @param sqlState the SQLSTATE of the ErrorResponse
     * @param message the complete error message
     * @param position 1-based position in the statement text in UTF-16 units ({@link Positions}: the client gets
     *                 it in characters), 0 for none; for a statement of a multi-statement Query, the guard adds the
     *                 statement's offset in the Query
     * @param rule a short id of the rule that fired (see {@code CatalogRefusals}, {@code Refusals}), for the
     *             audit log
     * @param detail the ErrorResponse's DETAIL ('D'), or null: PostgreSQL's own, when the refusal carries its error
     * @param hint the ErrorResponse's HINT ('H'), or null: what the user can do instead (see {@link Hints}), or
     *             PostgreSQL's own hint when the refusal carries its error and the hint names nothing the login may
     *             not see
     */
    record Refuse(String sqlState, String message, int position, String rule, String detail, String hint)
            implements Verdict {
        /**
         * How every refusal pgward words itself begins, whichever layer or gate refuses: the table-selection
         * reference's wording ("refused this query", also for a statement that is not a query). A refusal that
         * carries PostgreSQL's own error keeps PostgreSQL's text.
         */
        public static final String PREFIX = "pgward refused this query: ";

        public Refuse {
            Objects.requireNonNull(sqlState, "sqlState");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(rule, "rule");
            if (position < 0) {
                throw new IllegalArgumentException("position must be 0 or more, was " + position);
            }
        }

        /** A refusal without DETAIL or HINT. */
        public Refuse(String sqlState, String message, int position, String rule) {
            this(sqlState, message, position, rule, null, null);
        }

        /** This refusal with {@code hint} as its HINT, in place of any it had. */
        public Refuse withHint(String hint) {
            return new Refuse(sqlState, message, position, rule, detail, hint);
        }

        /** This refusal at {@code position} (1-based in the whole text, 0 for none). */
        public Refuse at(int position) {
            return new Refuse(sqlState, message, position, rule, detail, hint);
        }

        /** A refusal with no position, by the rule {@code gate}. */
        public Refuse(String sqlState, String message) {
            this(sqlState, message, 0, "gate");
        }

        /** A refusal by the rule {@code gate}. */
        public Refuse(String sqlState, String message, int position) {
            this(sqlState, message, position, "gate");
        }
    }

    /**
     * pgward answers the statement itself with a result set in text format; nothing reaches the server. Produced by
     * the gates (the {@code pgward.*} functions, a local database), never by the guard.
     *
     * @param columns column names; every column is of type text
     * @param rows one list per row, null for SQL NULL
     * @param commandTag e.g. {@code SELECT 3}
     * @param notices NOTICE messages sent before the rows
     */
    record Answer(List<String> columns, List<List<String>> rows, String commandTag, List<String> notices)
            implements Verdict {
    }

    /**
     * Run another statement in place of the client's, on the client's own backend session (so every runtime
     * limit applies): what pgward does for a question, once the statement written for it has passed the guard.
     * Produced by the natural-language gate, by the session for an {@link Answer} to a Parse (the backend then
     * prepares the answer as a query), and by the guard for a statement that reads the catalogs through a login's
     * filters (the client's text with each catalog reference replaced by its filter subquery, proven by L3).
     *
     * @param sql the statement to run instead
     * @param notices NOTICE messages sent before its result (e.g. the statement itself)
     * @param keepsParameters {@code sql} has the client's {@code $n} parameters: a Parse in its place declares the
     *                        client's parameter types (the filtered catalog's rewrite, which inserts only constants);
     *                        false when it has no parameters (a question's statement, an answer)
     * @param typeNameParameters as {@link Allow#typeNameParameters}: the session resolves the values bound to these
     *                           before each Bind of the statement
     * @param callParameters the client's {@code $n} that are arguments of {@code pgward.*} calls: {@code sql} is
     *                       the statement with each call's rows left empty (its shape, which Describe answers
     *                       from), and each Bind asks the gate for the statement with the calls computed from the
     *                       bound values (the proxy's {@code StatementGate.checkBoundCalls}); empty for every
     *                       other statement
     */
    record Rewrite(String sql, List<String> notices, boolean keepsParameters,
                   List<TypeNameParameter> typeNameParameters, List<Integer> callParameters)
            implements Verdict {

        public Rewrite {
            typeNameParameters = List.copyOf(typeNameParameters);
            callParameters = List.copyOf(callParameters);
        }

        public Rewrite(String sql, List<String> notices, boolean keepsParameters,
                       List<TypeNameParameter> typeNameParameters) {
            this(sql, notices, keepsParameters, typeNameParameters, List.of());
        }

        public Rewrite(String sql, List<String> notices, boolean keepsParameters) {
            this(sql, notices, keepsParameters, List.of());
        }

        /** A statement without parameters in place of the client's. */
        public Rewrite(String sql, List<String> notices) {
            this(sql, notices, false);
        }
    }

    /**
     * A {@code $n} whose bound value is a type's name ({@link Allow#typeNameParameters}).
     *
     * @param number the parameter's number, 1-based
     * @param text the parameter is of type text, the argument of to_regtype ({@code to_regtype($1)}, psycopg 3.2's
     *             TypeInfo): its value is a name in binary format too, and a hidden type's name must give NULL, as
     *             an absent one does; otherwise it is of type regtype ({@code $1::regtype}), whose binary value is an
     *             OID and whose text value PostgreSQL fails to bind when nothing has the name
     */
    record TypeNameParameter(int number, boolean text) {
    }

    /** Forward; the statement does not change search_path. */
    Verdict ALLOW = new Allow(false);

    /** Forward; afterwards the session asks the server for its search_path. */
    Verdict ALLOW_CHANGING_SEARCH_PATH = new Allow(true);
}
