package io.pgward.wire.gate;

import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.Verdict;
import io.pgward.guard.policy.GuardPipeline;
import io.pgward.guard.policy.LoginPolicy;
import io.pgward.guard.policy.PipelineRefusals;
import io.pgward.wire.config.PgwardConfig;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The statement gate of one read-only session: the session's front door to the {@link GuardPipeline}, which
 * decides every statement (L1 and L2 at once, L3 for every statement that reads, answered at once from its cache
 * for a statement seen before). What the gate adds is the session's own state.
 *
 * <p>A text not seen before is judged by L1 and L2 on one of the gates' platform threads ({@code deciders}, owned by
 * {@link Gates}), never on the event loop or a virtual thread; the guard bounds that work, and refuses with 54001
 * what it cannot judge within its bounds.
 *
 * <p>Session state kept here: the cursors this session declared through pgward (only those may be fetched) and
 * whether it ever changed search_path (then the end of a transaction may change it back). Owned by the session's
 * event loop: a judgement made elsewhere hops back to it ({@code loop}) before it reads or changes either; the
 * catalog stage that follows touches no state.
 */
final class GuardGate implements StatementGate {

    private static final CompletionStage<Verdict> ALLOWED = CompletableFuture.completedFuture(Verdict.ALLOW);

    private final GuardPipeline pipeline;
    private final Executor deciders;
    private final Executor loop;
    private final PgwardConfig.Login login;
    private final LoginPolicy policy;
    private final PgwardFunctions functions;
    private final Set<String> declaredCursors = new HashSet<>();
    private boolean searchPathChanged;
    private final KeptShapes keptShapes;

    /**
     * @param functions the pgward.* functions, or null when the pipeline has no catalog layer
     * @param deciders where L1 and L2 judge a text not seen before (see {@link Gates})
     * @param loop the session's event loop, which owns the gate's state
     */
    GuardGate(GuardPipeline pipeline, Executor deciders, Executor loop, PgwardConfig.Login login,
              PgwardFunctions functions) {
        this.pipeline = pipeline;
        this.deciders = deciders;
        this.loop = loop;
        this.login = login;
        this.policy = ControlConnections.policy(login);
        this.functions = functions;
        this.keptShapes = new KeptShapes(pipeline, policy, deciders, loop);
    }

    @Override
    public boolean wantsSearchPath() {
        return pipeline.checksCatalog();
    }

    @Override
    public boolean mayChangeSearchPath(String sql, boolean standardConformingStrings) {
        ReadOnlyGuard.Classification classification = pipeline.cached(sql, standardConformingStrings, policy);
        return classification == null || classification.setsSearchPath() || classification.endsTransaction();
    }

    @Override
    public boolean computesCalls(String sql, boolean standardConformingStrings) {
        return functions != null && PgwardFunctions.calledIn(sql, standardConformingStrings);
    }

    @Override
    public long verdictEpoch(String database) {
        return pipeline.verdictEpoch(policy, database);
    }

    @Override
    public CompletionStage<Verdict> check(GateRequest request) {
        if (request.kind() == GateRequest.Kind.FUNCTION_CALL) {
            return refuse(PipelineRefusals.functionCall(policy.name()));
        }
        CompletionStage<Verdict> called = functions == null ? null
                : functions.check(request, login, this::judgeOnLoop);
        return called != null ? called : guard(request);
    }

    @Override
    public CompletionStage<Verdict> checkBoundCalls(GateRequest prepared, Map<Integer, String> values) {
        if (functions == null) {
            return StatementGate.super.checkBoundCalls(prepared, values);
        }
        return functions.calls().bound(prepared, login, values, this::judgeOnLoop);
    }

    /**
     * A statement pgward wrote in place of the client's is judged by every layer, as the client's own would be; on
     * the event loop, which owns the gate's state, whatever thread computed the calls.
     */
    private CompletionStage<Verdict> judgeOnLoop(GateRequest written) {
        return CompletableFuture.supplyAsync(() -> guard(written), loop).thenCompose(verdict -> verdict);
    }

    /** Every layer of the guard for the text as it is. */
    private CompletionStage<Verdict> guard(GateRequest request) {
        if (keptShapes.allows(request)) {
            return ALLOWED;
        }
        ReadOnlyGuard.Classification cached = pipeline.cached(request.sql(), request.standardConformingStrings(),
                policy);
        if (cached != null) {
            return keptShapes.remembered(request, cached, decide(request, cached));
        }
        // A text seen for the first time: L1 and L2 judge it on a thread of their own, not the event loop, and the
        // classification comes back to the event loop, which alone reads and changes the gate's state. L3 starts
        // at once beside them for a text of one query, which decide() then hands to it as its one read.
        pipeline.checkAhead(policy, request.database(), request.sql(), request.standardConformingStrings(),
                request.searchPath(), request.parameterTypeList(), request.kind() == GateRequest.Kind.SIMPLE_QUERY);
        Set<String> cursors = Set.copyOf(declaredCursors);
        return CompletableFuture.supplyAsync(() -> pipeline.classify(request.sql(),
                request.standardConformingStrings(), policy, cursors), deciders)
                .thenComposeAsync(classification -> keptShapes.remembered(request, classification,
                        decide(request, classification)), loop);
    }

    private CompletionStage<Verdict> decide(GateRequest request, ReadOnlyGuard.Classification classification) {
        if (classification.verdict() instanceof Verdict.Refuse refuse) {
            return grammarFirst(request, refuse);
        }
        if (pipeline.checksCatalog() && classification.readsAfterChange()
                && (classification.setsSearchPath() || searchPathChanged)) {
            return refuse(PipelineRefusals.readsAfterSearchPathChange());
        }
        declaredCursors.addAll(classification.declaredCursors());
        boolean changesPath = classification.setsSearchPath()
                || (classification.endsTransaction() && searchPathChanged);
        searchPathChanged |= classification.setsSearchPath();
        Verdict allowed = changesPath ? Verdict.ALLOW_CHANGING_SEARCH_PATH : Verdict.ALLOW;
        if (!pipeline.checksCatalog() || classification.reads().isEmpty()) {
            return changesPath ? CompletableFuture.completedFuture(allowed) : ALLOWED;
        }
        List<Integer> types = request.parameterTypeList();
        boolean simpleQuery = request.kind() == GateRequest.Kind.SIMPLE_QUERY;
        if (changesPath) {
            // A rewritten text would hide the change from the session (Rewrite carries no search_path flag): the
            // catalogs are not served filtered in a text that changes search_path.
            return pipeline.prove(policy, request.database(), classification.reads(), request.searchPath(),
                    request.standardConformingStrings(), types, simpleQuery)
                    .thenCompose(verdict -> verdict instanceof Verdict.Refuse refuse ? grammarFirst(request, refuse)
                            : CompletableFuture.completedFuture(allowed));
        }
        return pipeline.proveOrRewrite(policy, request.database(), request.sql(), classification.reads(),
                request.searchPath(), request.standardConformingStrings(), types, simpleQuery)
                .thenCompose(verdict -> verdict instanceof Verdict.Refuse refuse ? grammarFirst(request, refuse)
                        : CompletableFuture.completedFuture(verdict instanceof Verdict.Rewrite ? verdict : allowed));
    }

    /**
     * L3 analyses a text inside a statement of its own, so a text PostgreSQL's grammar rejects would be answered
     * with an error about that wrapper ({@code SELECT * FROM orders WHERE} ends at pgward's parenthesis, not at
     * the end of the input): the grammar's own error for the client's text comes first, as for L1 and L2.
     */
    private CompletionStage<Verdict> grammarFirst(GateRequest request, Verdict.Refuse refuse) {
        return pipeline.grammarFirst(policy, request.database(), request.sql(), request.standardConformingStrings(),
                refuse);
    }

    @Override
    public CompletionStage<Verdict> checkBoundTypeName(int parameter, String value, String database,
                                                       String searchPath) {
        return pipeline.boundTypeNames(policy, database, searchPath, Map.of(parameter, value));
    }

    private static CompletionStage<Verdict> refuse(Verdict.Refuse r) {
        return CompletableFuture.completedFuture(r);
    }
}
