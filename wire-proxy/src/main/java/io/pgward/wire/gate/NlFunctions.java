package io.pgward.wire.gate;

import io.pgward.guard.Verdict;
import io.pgward.guard.policy.LoginGuard;
import io.pgward.nl.PgwardCall;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The natural-language {@code pgward.*} functions (ask, sql, schema, refresh_schema, dialect, and the
 * {@code nl:} comment form) for one pgward.
 */
interface NlFunctions {

    /** Answers the call; the stage completes with an answer, a rewrite to run, or a refusal. Never blocks. */
    CompletionStage<Verdict> answer(PgwardCall call, PgwardConfig.Login login, GateRequest request,
                                    LoginGuard loginGuard);

    /** Without an {@code nl:} section: every call says how to configure one. */
    NlFunctions NOT_CONFIGURED = (call, login, request, loginGuard) -> CompletableFuture.completedFuture(
            new Verdict.Refuse(SqlState.FEATURE_NOT_SUPPORTED, "pgward cannot answer questions: no language model "
                    + "is configured (add an nl: section with a provider to pgward's configuration)", 0, "nl"));
}
