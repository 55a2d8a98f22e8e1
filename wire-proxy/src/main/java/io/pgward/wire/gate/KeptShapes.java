package io.pgward.wire.gate;

import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.Verdict;
import io.pgward.guard.policy.GuardPipeline;
import io.pgward.guard.policy.LoginPolicy;
import io.pgward.guard.policy.SameShape;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The last few texts of one read-only session that every layer allowed as they are, kept so that a text that is one
 * of them with new constant values is allowed without lexing it ({@link GuardPipeline#sameShape},
 * {@link GuardPipeline#allowsAsSame}): a BI tool or a benchmark sends a handful of statements again and again with
 * new values. Owned by the session's event loop, like the {@link GuardGate} it serves.
 */
final class KeptShapes {

    private static final int KEPT = 4;

    private final GuardPipeline pipeline;
    private final LoginPolicy policy;
    private final Executor deciders;
    private final Executor loop;
    private final SameShape[] kept = new SameShape[KEPT];
    private int next;
    /** The last text nothing could be kept of: a text sent again and again is not lexed for it each time. */
    private String nothingKept;

    /**
     * @param deciders where a text longer than {@link ReadOnlyGuard#SHAPE_ON_CALLER_MAX_CHARS} is lexed for its
     *                 template
     * @param loop the session's event loop
     */
    KeptShapes(GuardPipeline pipeline, LoginPolicy policy, Executor deciders, Executor loop) {
        this.pipeline = pipeline;
        this.policy = policy;
        this.deciders = deciders;
        this.loop = loop;
    }

    /** Whether the text has the shape of a kept one, in the same context, and every layer still shares its allow. */
    boolean allows(GateRequest request) {
        List<Integer> parameterTypes = request.parameterTypeList();
        for (SameShape same : kept) {
            if (same != null && pipeline.allowsAsSame(same, request.sql(), request.standardConformingStrings(),
                    request.searchPath(), parameterTypes, request.kind() == GateRequest.Kind.SIMPLE_QUERY)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Keeps what the pipeline lets the session keep of a text allowed as it is, once its verdict is known, on the
     * event loop; the verdict goes on unchanged.
     */
    CompletionStage<Verdict> remembered(GateRequest request, ReadOnlyGuard.Classification classification,
                                        CompletionStage<Verdict> verdict) {
        boolean plain = classification.verdict() == Verdict.ALLOW && classification.declaredCursors().isEmpty()
                && !classification.setsSearchPath() && !classification.endsTransaction()
                && !classification.readsAfterChange();
        if (!plain) {
            return verdict;
        }
        CompletableFuture<Verdict> decided = verdict.toCompletableFuture();
        if (decided.isDone()) {
            remember(request, decided);
        } else {
            decided.whenCompleteAsync((v, e) -> remember(request, decided), loop);
        }
        return verdict;
    }

    private void remember(GateRequest request, CompletableFuture<Verdict> verdict) {
        String sql = request.sql();
        if (verdict.isCompletedExceptionally() || verdict.join() != Verdict.ALLOW || sql.equals(nothingKept)
                || sql.length() > GuardPipeline.SAME_SHAPE_MAX_CHARS) {
            return;
        }
        if (sql.length() <= ReadOnlyGuard.SHAPE_ON_CALLER_MAX_CHARS) {
            keep(sql, sameShape(request));
            return;
        }
        // Making the template lexes the text: a long one off the event loop, as L1 judges it there.
        try {
            CompletableFuture.supplyAsync(() -> sameShape(request), deciders)
                    .thenAcceptAsync(same -> keep(sql, same), loop);
        } catch (RejectedExecutionException e) {
            // Shutting down: nothing to keep.
        }
    }

    private SameShape sameShape(GateRequest request) {
        return pipeline.sameShape(policy, request.database(), request.sql(), request.standardConformingStrings(),
                request.searchPath(), request.parameterTypeList(), request.kind() == GateRequest.Kind.SIMPLE_QUERY);
    }

    private void keep(String sql, SameShape same) {
        if (same != null) {
            kept[next] = same;
            next = (next + 1) % KEPT;
        } else {
            nothingKept = sql;
        }
    }
}
