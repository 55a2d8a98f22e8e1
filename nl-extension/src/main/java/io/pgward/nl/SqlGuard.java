package io.pgward.nl;

import io.pgward.guard.Verdict;
import io.pgward.guard.policy.GuardPipeline;
import io.pgward.guard.policy.LoginPolicy;
import java.util.Optional;
import java.util.Set;

/**
 * pgward's guard as this module sees it: a statement text in, a refusal message out, or empty when the statement
 * may run. The proxy passes every guard layer it enforces for the login (L1 to L3); a guard that fails must
 * answer with a refusal, never with empty.
 */
@FunctionalInterface
public interface SqlGuard {

    /** Admits everything; only for callers that check elsewhere. */
    SqlGuard NONE = sql -> Optional.empty();

    Optional<String> refusal(String sql);

    /** This guard, then {@code next} for what this one admits. */
    default SqlGuard then(SqlGuard next) {
        return sql -> {
            Optional<String> refusal = refusal(sql);
            return refusal.isPresent() ? refusal : next.refusal(sql);
        };
    }

    /** Layers L1 and L2 (lexer and read-only classification) of the guard pipeline, for a read-only login. */
    static SqlGuard readOnly(GuardPipeline pipeline, LoginPolicy login) {
        return sql -> pipeline.classify(sql, true, login, Set.of()).verdict() instanceof Verdict.Refuse refuse
                ? Optional.of(refuse.message()) : Optional.empty();
    }
}
