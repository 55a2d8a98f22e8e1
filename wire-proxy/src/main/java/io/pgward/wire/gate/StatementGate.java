package io.pgward.wire.gate;

import io.pgward.guard.Verdict;
import java.util.concurrent.CompletionStage;

/**
 * Decides every statement before it reaches the backend: each Query, each Parse and each fast-path
 * FunctionCall passes here, in arrival order. A returned stage that is already complete costs nothing; an
 * incomplete one pauses the session (nothing later is forwarded) until it completes. A stage that completes
 * exceptionally is a refusal: the gate fails closed.
 */
@FunctionalInterface
public interface StatementGate {

    CompletionStage<Verdict> check(GateRequest request);

    /**
     * True when verdicts depend on how the session resolves names: the session then keeps its search_path
     * current (asking the server at the start and after every statement that may change it) and passes it in
     * each request.
     */
    default boolean wantsSearchPath() {
        return false;
    }

    /**
     * True when the gate wants to hear of schema changes this session makes: the session then reads each
     * CommandComplete and calls {@link #schemaChanged()} for DDL, and again when the transaction that ran it ends.
     */
    default boolean watchesSchemaChanges() {
        return false;
    }

    /** This session ran DDL (or ended the transaction that ran it). */
    default void schemaChanged() {
    }

    /**
     * Before a statement the gate allowed that needs {@code databases} unused (DROP DATABASE, ALTER DATABASE ...
     * RENAME, CREATE DATABASE ... TEMPLATE) is relayed: the gate closes the connections of its own to them, as the
     * backend pool closes its idle ones. The statement waits for the stage, which never completes exceptionally.
     */
    default CompletionStage<Void> freeDatabases(java.util.Set<String> databases) {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /**
     * Before a Bind of a statement whose verdict named {@link Verdict.Rewrite#typeNameParameters}: the text value
     * bound to one of those parameters, resolved as a type name with the session's search_path. A refusal is what the
     * client gets in place of the Bind. Only a gate that gives such verdicts is asked; any other refuses (fail
     * closed).
     */
    default CompletionStage<Verdict> checkBoundTypeName(int parameter, String value, String database,
                                                        String searchPath) {
        return java.util.concurrent.CompletableFuture.completedFuture(new Verdict.Refuse("42501",
                Verdict.Refuse.PREFIX + "this login does not resolve type names bound to parameters"));
    }

    /**
     * Before a Bind of a statement whose verdict named {@link Verdict.Rewrite#callParameters}: {@code prepared} is the
     * client's Parse (its text and parameter types, with the session's search_path now), {@code values} the text
     * bound to each call parameter (null for NULL). The verdict is the statement to prepare and bind in place of the
     * client's for this Bind, or a refusal in place of the Bind. Only a gate that gives such verdicts is asked; any
     * other refuses (fail closed).
     */
    default CompletionStage<Verdict> checkBoundCalls(GateRequest prepared, java.util.Map<Integer, String> values) {
        return java.util.concurrent.CompletableFuture.completedFuture(new Verdict.Refuse("42501",
                Verdict.Refuse.PREFIX + "this login does not compute pgward functions from bound parameters"));
    }

    /**
     * A number that changes whenever verdicts given on {@code database} may no longer hold (the schema changed): a
     * session judges a prepared statement again before it runs at another epoch ({@code JudgedStatements}). Only read
     * by sessions of a gate that {@link #wantsSearchPath() wants the search_path}.
     */
    default long verdictEpoch(String database) {
        return 0;
    }

    /**
     * Whether running the prepared statement {@code sql} may change the session's search_path, whatever ran before
     * it: it sets the path, or ends a transaction or rolls back to a savepoint (which takes a SET back). Asked when a
     * statement prepared earlier is bound; only by sessions of a gate that {@link #wantsSearchPath() wants the
     * search_path}, besides what the Parse's verdict said.
     */
    default boolean mayChangeSearchPath(String sql, boolean standardConformingStrings) {
        return false;
    }

    /**
     * Whether the text calls pgward functions, which pgward computes into the statement the server prepares in the
     * client's place ({@link Verdict.Rewrite}): that statement, not the client's text, is the one PostgreSQL analyses
     * again. Judging the client's text again would compute the calls again: ask the language model again, and run
     * whatever it answered that time.
     */
    default boolean computesCalls(String sql, boolean standardConformingStrings) {
        return false;
    }

    /** For trusted read-write logins: everything is forwarded. */
    StatementGate ALLOW_ALL = request -> java.util.concurrent.CompletableFuture.completedFuture(Verdict.ALLOW);
}
