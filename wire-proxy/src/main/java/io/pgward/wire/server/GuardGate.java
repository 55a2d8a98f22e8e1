package io.pgward.wire.server;

import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.classify.Decision;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.session.GateRequest;
import io.pgward.wire.session.StatementGate;
import io.pgward.wire.session.Verdict;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The statement gate of one read-only session: the guard's decision for each text, plus the one piece of
 * session state the guard needs, the cursors this session declared through pgward (only those may be fetched).
 * Confined to the session's event loop.
 */
final class GuardGate implements StatementGate {

    private static final CompletionStage<Verdict> ALLOWED = CompletableFuture.completedFuture(Verdict.ALLOW);

    private final ReadOnlyGuard guard;
    private final ReadOnlyPolicy policy;
    private final Set<String> declaredCursors = new HashSet<>();

    GuardGate(ReadOnlyGuard guard, ReadOnlyPolicy policy) {
        this.guard = guard;
        this.policy = policy;
    }

    @Override
    public CompletionStage<Verdict> check(GateRequest request) {
        if (request.kind() == GateRequest.Kind.FUNCTION_CALL) {
            // The fast-path call names a function by OID only; nothing shows what it does, so it is refused.
            return CompletableFuture.completedFuture(new Verdict.Refuse(SqlState.INSUFFICIENT_PRIVILEGE,
                    "pgward refused this statement: fast-path function calls are not allowed for the read-only login \""
                            + policy.login() + "\"", 0, "function-call"));
        }
        ReadOnlyGuard.Outcome outcome = guard.check(request.sql(), request.standardConformingStrings(), policy,
                declaredCursors);
        return switch (outcome.decision()) {
            case Decision.Allow allow -> {
                declaredCursors.addAll(outcome.declaredCursors());
                yield ALLOWED;
            }
            case Decision.Refuse refuse -> CompletableFuture.completedFuture(new Verdict.Refuse(
                    Decision.Refuse.SQLSTATE, refuse.message(), refuse.position(), refuse.rule()));
        };
    }
}
