package io.pgward.wire.server;

import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.catalog.CatalogVerdict;
import io.pgward.guard.catalog.CheckRequest;
import io.pgward.guard.classify.Decision;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.selection.ColumnHints;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.session.GateRequest;
import io.pgward.wire.session.StatementGate;
import io.pgward.wire.session.Verdict;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The statement gate of one read-only session: layers L1 and L2 (the {@link ReadOnlyGuard}) decide at once; every
 * statement that reads is then proven by L3, PostgreSQL's own analysis against the login's table selection (the
 * {@link CatalogLayer}), which answers at once from its cache for a statement seen before.
 *
 * <p>A text not seen before is judged by L1 and L2 on one of the gates' platform threads ({@code deciders}, owned by
 * {@link Gates}), never on the event loop or a virtual thread; the guard bounds that work, and refuses with 54001
 * what it cannot judge within its bounds.
 *
 * <p>Session state kept here: the cursors this session declared through pgward (only those may be fetched) and
 * whether it ever changed search_path (then the end of a transaction may change it back). Confined to the
 * session's event loop, except the catalog stage, which completes elsewhere and touches no state.
 */
final class GuardGate implements StatementGate {

    private static final CompletionStage<Verdict> ALLOWED = CompletableFuture.completedFuture(Verdict.ALLOW);

    private final ReadOnlyGuard guard;
    private final Executor deciders;
    private final ReadOnlyPolicy policy;
    private final PgwardConfig.Login login;
    private final CatalogLayer catalog;
    private final PgwardFunctions functions;
    private final Set<String> declaredCursors = new HashSet<>();
    private boolean searchPathChanged;

    /**
     * @param catalog layer L3, or null for a gate of L1 and L2 alone
     * @param functions the pgward.* functions, or null when there is no catalog layer
     * @param deciders where L1 and L2 judge a text not seen before (see {@link Gates})
     */
    GuardGate(ReadOnlyGuard guard, Executor deciders, PgwardConfig.Login login, CatalogLayer catalog,
              PgwardFunctions functions) {
        this.guard = guard;
        this.deciders = deciders;
        this.login = login;
        this.policy = new ReadOnlyPolicy(login.name(), login.policy().statementTimeout());
        this.catalog = catalog;
        this.functions = functions;
    }

    @Override
    public boolean wantsSearchPath() {
        return catalog != null;
    }

    @Override
    public CompletionStage<Verdict> check(GateRequest request) {
        if (request.kind() == GateRequest.Kind.FUNCTION_CALL) {
            // The fast-path call names a function by OID only; nothing shows what it does, so it is refused.
            return refuse(SqlState.INSUFFICIENT_PRIVILEGE, "pgward refused this statement: fast-path function calls "
                    + "are not allowed for the read-only login \"" + policy.login() + "\"", 0, "function-call");
        }
        if (functions != null) {
            try {
                java.util.Optional<io.pgward.nl.PgwardCall> call = PgwardFunctions.recognize(request);
                if (call.isPresent()) {
                    return functions.answer(call.get(), login, request);
                }
            } catch (io.pgward.nl.NlException e) {
                return PgwardFunctions.refusal(e);
            }
        }
        ReadOnlyGuard.Outcome cached = guard.cached(request.sql(), request.standardConformingStrings(), policy);
        if (cached != null) {
            return decide(request, cached);
        }
        // A text seen for the first time: L1 and L2 judge it on a thread of their own, not the event loop. The
        // session sends nothing else until the verdict is in, so the gate's state is touched by one thread at a time.
        Set<String> cursors = Set.copyOf(declaredCursors);
        return CompletableFuture.supplyAsync(() -> guard.check(request.sql(), request.standardConformingStrings(),
                policy, cursors), deciders).thenCompose(outcome -> decide(request, outcome));
    }

    private CompletionStage<Verdict> decide(GateRequest request, ReadOnlyGuard.Outcome outcome) {
        if (outcome.decision() instanceof Decision.Refuse refuse) {
            return refuse(refuse.sqlState(), refuse.message(), refuse.position(), refuse.rule());
        }
        if (catalog != null && outcome.readsAfterChange()
                && (outcome.setsSearchPath() || searchPathChanged)) {
            return refuse(Decision.Refuse.SQLSTATE, "pgward refused this statement: a query that follows a change "
                    + "of search_path in the same message cannot be checked; send it on its own", 0, "search-path");
        }
        declaredCursors.addAll(outcome.declaredCursors());
        boolean changesPath = outcome.setsSearchPath() || (outcome.endsTransaction() && searchPathChanged);
        searchPathChanged |= outcome.setsSearchPath();
        Verdict allowed = changesPath ? Verdict.ALLOW_CHANGING_SEARCH_PATH : Verdict.ALLOW;
        if (catalog == null || outcome.reads().isEmpty()) {
            return changesPath ? CompletableFuture.completedFuture(allowed) : ALLOWED;
        }
        if (request.searchPath() == null) {
            return refuse(SqlState.INTERNAL_ERROR, "pgward refused this statement: the session's search_path is not "
                    + "known, so the statement cannot be checked", 0, "search-path");
        }
        return catalog.forLogin(login, request.database())
                .thenCompose(loginCatalog -> prove(loginCatalog, outcome.reads(), request, 0, allowed))
                .exceptionally(failure -> new Verdict.Refuse(SqlState.INTERNAL_ERROR, "pgward refused this "
                        + "statement: the catalog check is not available (" + rootMessage(failure) + ")", 0,
                        "catalog-unavailable"));
    }

    /** Proves the reads one after the other; the first refusal refuses the text. */
    private CompletableFuture<Verdict> prove(LoginCatalog loginCatalog, List<StatementText> reads, GateRequest request,
                                             int index, Verdict allowed) {
        if (index == reads.size()) {
            return CompletableFuture.completedFuture(allowed);
        }
        StatementText statement = reads.get(index);
        List<Integer> types = request.kind() == GateRequest.Kind.PARSE
                ? Arrays.stream(request.parameterTypes()).boxed().toList() : List.of();
        CheckRequest check = new CheckRequest(loginCatalog.tableSelection(), null, request.searchPath(),
                request.standardConformingStrings(), statement.text(), types);
        return loginCatalog.check().check(check).toCompletableFuture().thenCompose(verdict -> switch (verdict) {
            case CatalogVerdict.Allow a -> prove(loginCatalog, reads, request, index + 1, allowed);
            case CatalogVerdict.Refuse r -> CompletableFuture.completedFuture(refusal(loginCatalog, statement, r,
                    request.standardConformingStrings()));
        });
    }

    /** A refusal placed in the whole text; PostgreSQL's column errors name the selected relations' columns. */
    private static Verdict refusal(LoginCatalog loginCatalog, StatementText statement, CatalogVerdict.Refuse r,
                                   boolean standardConformingStrings) {
        String message = r.message();
        if (ColumnHints.appliesTo(r.sqlState()) && loginCatalog.resolved().isSet()) {
            message = ColumnHints.appendTo(message, statement.text(), standardConformingStrings,
                    loginCatalog.resolved());
        }
        int position = r.position() == 0 ? 0 : statement.start() + r.position();
        return new Verdict.Refuse(r.sqlState(), message, position, r.rule());
    }

    private static CompletionStage<Verdict> refuse(String sqlState, String message, int position, String rule) {
        return CompletableFuture.completedFuture(new Verdict.Refuse(sqlState, message, position, rule));
    }

    private static String rootMessage(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }
}
