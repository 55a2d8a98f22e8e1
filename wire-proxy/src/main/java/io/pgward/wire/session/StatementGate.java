package io.pgward.wire.session;

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

    /** For trusted read-write logins: everything is forwarded. */
    StatementGate ALLOW_ALL = request -> java.util.concurrent.CompletableFuture.completedFuture(Verdict.ALLOW);
}
