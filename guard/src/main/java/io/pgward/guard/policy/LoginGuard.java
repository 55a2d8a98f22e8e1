package io.pgward.guard.policy;

import com.zaxxer.hikari.HikariDataSource;
import io.pgward.guard.Hints;
import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.Verdict;
import io.pgward.guard.catalog.BoundTypeNames;
import io.pgward.guard.catalog.CatalogCheck;
import io.pgward.guard.catalog.CatalogColumns;
import io.pgward.guard.catalog.CatalogFilters;
import io.pgward.guard.catalog.CheckRequest;
import io.pgward.guard.catalog.Served;
import io.pgward.guard.catalog.TableSelection;
import io.pgward.guard.catalog.ViewColumns;
import io.pgward.guard.catalog.ViewFilters;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.selection.ColumnHints;
import io.pgward.guard.selection.LiveSelection;
import io.pgward.guard.selection.ResolvedSelection;
import io.pgward.guard.selection.SelectedNames;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guard of one read-only login on one database: the catalog check that proves its statements (shared by every
 * login with the same backend role), a control pool for pgward's own catalog reads as that role, and its table
 * selection as last resolved. The selection is resolved again after every schema change the check notices, so a
 * selected table dropped and created again under its name is found again.
 *
 * <p>Threads: re-resolving takes a connection, so it runs on the pipeline's executor, never on the thread that
 * reports the change (an event loop may). The refreshes run one after the other; a statement proven while one is
 * pending waits for it, so it is never checked against the selection from before a change that was reported
 * before it arrived.
 */
public final class LoginGuard {

    private static final Logger log = LoggerFactory.getLogger(LoginGuard.class);
    private static final CompletableFuture<Verdict> ALLOWED = CompletableFuture.completedFuture(Verdict.ALLOW);

    private final GuardPipeline pipeline;
    private final LoginPolicy login;
    private final ControlPools pools;
    private final CatalogCheck check;
    private final HikariDataSource control;
    private final LiveSelection selection;
    // The covered catalogs' columns on this server, for the filter subqueries; NONE (nothing filtered, every catalog
    // relation refused) without a selection or when they could not be read.
    private final CatalogColumns catalogColumns;
    // The filtered system views' columns on this server; NONE (every such view refused) as for catalogColumns.
    private final ViewColumns viewColumns;
    private final Executor executor;
    // The last resolution and its TableSelection: every statement asks for it, and it changes only with the schema.
    private volatile Converted converted;
    // Completes when the last schema change reported has been taken into the selection. Replaced under the lock
    // (refreshLater), read without it by every statement: volatile, so a reader sees the latest refresh queued.
    private volatile CompletableFuture<Void> refreshed = CompletableFuture.completedFuture(null);

    private record Converted(ResolvedSelection from, TableSelection to) {
    }

    private final Runnable stopListening;

    /** Resolves the selection now, on the caller's thread (the pipeline's executor). */
    LoginGuard(GuardPipeline pipeline, LoginPolicy login, ControlPools pools, SelectedNames names,
               Executor executor) throws SQLException {
        this.pipeline = pipeline;
        this.login = login;
        this.pools = pools;
        this.check = pools.check();
        this.control = pools.control();
        this.executor = executor;
        this.selection = names.isEmpty() ? null : LiveSelection.resolve(control, names);
        this.catalogColumns = selection == null ? CatalogColumns.NONE : catalogColumns(control, login);
        this.viewColumns = selection == null ? ViewColumns.NONE : viewColumns(control, login);
        if (selection != null) {
            report(selection.current());
            this.stopListening = check.onSchemaChange(this::refreshLater);
        } else {
            this.stopListening = () -> { };
        }
    }

    /**
     * Its login policy is no longer configured, or its control pools are closed: the schema changes of its check no
     * longer reach it.
     */
    void forget() {
        stopListening.run();
    }

    /** The pools its check and control connections come from, which the pipeline closes when they are unused. */
    ControlPools pools() {
        return pools;
    }

    private static CatalogColumns catalogColumns(HikariDataSource control, LoginPolicy login) {
        try (Connection connection = control.getConnection()) {
            return CatalogColumns.read(connection);
        } catch (SQLException | RuntimeException e) {
            log.warn("reading the catalogs' columns for login \"{}\" failed ({}); its catalog reads are refused",
                    login.name(), e.getMessage());
            return CatalogColumns.NONE;
        }
    }

    private static ViewColumns viewColumns(HikariDataSource control, LoginPolicy login) {
        try (Connection connection = control.getConnection()) {
            return ViewColumns.read(connection);
        } catch (SQLException | RuntimeException e) {
            log.warn("reading the system views' columns for login \"{}\" failed ({}); its system view reads are "
                    + "refused", login.name(), e.getMessage());
            return ViewColumns.NONE;
        }
    }

    /** The check behind this login; for listeners of its schema changes. */
    public CatalogCheck check() {
        return check;
    }

    /**
     * The control pool for catalog reads as the login's role. Blocking: never use it on an event loop, and only within
     * {@link GuardPipeline#withLogin}, outside which the pipeline may close it.
     */
    public HikariDataSource control() {
        return control;
    }

    /**
     * The selection as last resolved, with its visible catalog ({@link ResolvedSelection#visible}, replaced by every
     * refresh); {@link ResolvedSelection#NONE} without one.
     */
    public ResolvedSelection resolved() {
        return selection == null ? ResolvedSelection.NONE : selection.current();
    }

    /** Asynchronous L3: see {@link GuardPipeline#prove}. Never completes exceptionally. */
    CompletionStage<Verdict> prove(List<StatementText> reads, String searchPath,
                                     boolean standardConformingStrings, List<Integer> parameterTypes,
                                     boolean simpleQuery) {
        return pendingRefresh().thenCompose(ignored -> prove(reads, 0, searchPath, standardConformingStrings,
                parameterTypes, simpleQuery));
    }

    private CompletableFuture<Verdict> prove(List<StatementText> reads, int index, String searchPath,
                                               boolean standardConformingStrings, List<Integer> parameterTypes,
                                               boolean simpleQuery) {
        if (index == reads.size()) {
            return CompletableFuture.completedFuture(Verdict.ALLOW);
        }
        StatementText statement = reads.get(index);
        CheckRequest request = request(statement.text(), searchPath, standardConformingStrings, parameterTypes,
                simpleQuery);
        return check.check(request, statement).toCompletableFuture()
                .thenCompose(verdict -> verdict instanceof Verdict.Refuse r
                        ? CompletableFuture.completedFuture(placed(statement.text(), statement.start(), r,
                                standardConformingStrings))
                        : bindsResolved(verdict) ? prove(reads, index + 1, searchPath, standardConformingStrings,
                                parameterTypes, simpleQuery)
                        : CompletableFuture.completedFuture(PipelineRefusals.typeNamesNotFollowed()));
    }

    /**
     * A statement's text replaced by its rewrite, which L3 allowed (or kept, with parameters whose bound names the
     * session resolves).
     */
    private record Replacement(StatementText statement, String text,
                               List<Verdict.TypeNameParameter> typeNameParameters) {
    }

    /** Whether nothing of an allow waits for a Bind: only a served statement's Binds are followed. */
    private static boolean bindsResolved(Verdict verdict) {
        return !(verdict instanceof Verdict.Allow a) || a.typeNameParameters().isEmpty();
    }

    /** Asynchronous L3 serving covered catalogs filtered: see {@link GuardPipeline#proveOrRewrite}. */
    CompletionStage<Verdict> proveOrRewrite(String text, List<StatementText> reads, String searchPath,
                                              boolean standardConformingStrings, List<Integer> parameterTypes,
                                              boolean simpleQuery) {
        return pendingRefresh().thenCompose(ignored -> proveOrRewrite(text, reads, 0, tableSelection(), searchPath,
                standardConformingStrings, parameterTypes, simpleQuery, new ArrayList<>()));
    }

    private CompletableFuture<Verdict> proveOrRewrite(String text, List<StatementText> reads, int index,
                                                        TableSelection table, String searchPath,
                                                        boolean standardConformingStrings,
                                                        List<Integer> parameterTypes, boolean simpleQuery,
                                                        List<Replacement> done) {
        if (index == reads.size()) {
            if (done.isEmpty()) {
                return ALLOWED;
            }
            List<Verdict.TypeNameParameter> typeNames = done.stream().flatMap(r -> r.typeNameParameters().stream())
                    .distinct().sorted(java.util.Comparator.comparingInt(Verdict.TypeNameParameter::number)).toList();
            return CompletableFuture.completedFuture(new Verdict.Rewrite(replaced(text, done), List.of(), true,
                    typeNames));
        }
        StatementText statement = reads.get(index);
        CheckRequest request = new CheckRequest(table, null, searchPath, standardConformingStrings, statement.text(),
                parameterTypes, simpleQuery);
        return served(table, request, statement).thenCompose(served -> {
            if (served.verdict() instanceof Verdict.Refuse r) {
                return CompletableFuture.completedFuture(placed(statement.text(), statement.start(), r,
                        standardConformingStrings));
            }
            List<Verdict.TypeNameParameter> typeNames = served.verdict() instanceof Verdict.Allow a
                    ? a.typeNameParameters()
                    : List.of();
            if (!served.text().equals(statement.text()) || !typeNames.isEmpty()) {
                done.add(new Replacement(statement, served.text(), typeNames));
            }
            return proveOrRewrite(text, reads, index + 1, table, searchPath, standardConformingStrings,
                    parameterTypes, simpleQuery, done);
        });
    }

    /**
     * How L3 serves one statement. A selection without catalog filters rewrites nothing, so its statements are served
     * as written with the check's own verdict, as {@link CatalogCheck#serve} would serve them: asked of the check
     * directly, a statement that differs from one seen before only in its constants costs a shape lookup and no
     * entry in the cache of served texts, where each new literal would push out a text served filtered.
     */
    private CompletableFuture<Served> served(TableSelection table, CheckRequest request, StatementText statement) {
        if (table.filters().isEmpty() && table.views().isEmpty()) {
            return check.check(request, statement).toCompletableFuture()
                    .thenApply(verdict -> new Served(request.sql(), verdict));
        }
        return check.serve(request, statement).toCompletableFuture();
    }

    /**
     * The values a Bind gives to a served statement's regtype parameters, resolved with the session's search_path
     * ({@code BoundTypeNames}): a refusal with PostgreSQL's error for an absent type when one names a hidden type,
     * else {@link Verdict#ALLOW}. Off the caller's thread; never completes exceptionally.
     */
    CompletionStage<Verdict> boundTypeNames(Map<Integer, String> values, String searchPath) {
        return pendingRefresh().thenApplyAsync(ignored -> {
            try (Connection connection = control.getConnection()) {
                return BoundTypeNames.check(connection, tableSelection(), searchPath, values)
                        .<Verdict>map(r -> r).orElse(Verdict.ALLOW);
            } catch (SQLException | RuntimeException e) {
                return PipelineRefusals.catalogUnavailable(e.getMessage());
            }
        }, executor);
    }

    /** {@code text} with each replaced statement's span (offsets as L1 split {@code text}) replaced. */
    private static String replaced(String text, List<Replacement> replacements) {
        StringBuilder out = new StringBuilder(text.length() + 1024);
        int at = 0;
        for (Replacement r : replacements) {
            out.append(text, at, r.statement().start()).append(r.text());
            at = r.statement().start() + r.statement().text().length();
        }
        return out.append(text, at, text.length()).toString();
    }

    /**
     * Every layer for a whole text, on the calling thread (blocking: never on an event loop): L1 and L2 as for a
     * session that declared no cursors, then L3 for each statement that reads.
     */
    public Verdict decideNow(String sql, String searchPath, boolean standardConformingStrings) {
        ReadOnlyGuard.Classification classification = pipeline.classify(sql, standardConformingStrings, login,
                Set.of());
        if (classification.verdict() instanceof Verdict.Refuse refuse) {
            return refuse;
        }
        return proveNow(classification.reads(), searchPath, standardConformingStrings);
    }

    /** L3 alone, on the calling thread (blocking), for the statements L1 split and L2 allowed. */
    public Verdict proveNow(List<StatementText> reads, String searchPath, boolean standardConformingStrings) {
        pendingRefresh().join();
        for (StatementText statement : reads) {
            Verdict verdict = proveNow(statement.text(), statement, statement.start(), searchPath,
                    standardConformingStrings);
            if (verdict instanceof Verdict.Refuse) {
                return verdict;
            }
        }
        return Verdict.ALLOW;
    }

    /**
     * L3 alone, on the calling thread (blocking), for one statement pgward wrote itself (a value sample), which
     * L1 and L2 have nothing to say about.
     */
    public Verdict proveNow(String statement, String searchPath, boolean standardConformingStrings) {
        pendingRefresh().join();
        return proveNow(statement, null, 0, searchPath, standardConformingStrings);
    }

    /** @param split the statement as L1 split it, or null when {@code statement} has not been lexed */
    private Verdict proveNow(String statement, StatementText split, int start, String searchPath,
                               boolean standardConformingStrings) {
        Verdict verdict = check.checkNow(request(statement, searchPath, standardConformingStrings, List.of(),
                false), split);
        return verdict instanceof Verdict.Refuse r ? placed(statement, start, r, standardConformingStrings)
                : bindsResolved(verdict) ? verdict : PipelineRefusals.typeNamesNotFollowed();
    }

    private CheckRequest request(String statement, String searchPath, boolean standardConformingStrings,
                                 List<Integer> parameterTypes, boolean simpleQuery) {
        return new CheckRequest(tableSelection(), null, searchPath, standardConformingStrings, statement,
                parameterTypes, simpleQuery);
    }

    /**
     * A refusal placed in the whole text. PostgreSQL's column errors name the selected relations' columns, and
     * without a hint of PostgreSQL's own (which the check withholds where it could describe a relation outside the
     * selection) point at {@code pgward.describe} for them.
     */
    private Verdict.Refuse placed(String statement, int start, Verdict.Refuse r,
                                    boolean standardConformingStrings) {
        String message = r.message();
        String hint = r.hint();
        ResolvedSelection resolved = resolved();
        if (ColumnHints.appliesTo(r.sqlState()) && resolved.isSet()) {
            message = ColumnHints.appendTo(message, statement, standardConformingStrings, resolved);
            if (hint == null) {
                hint = Hints.describe(ColumnHints.named(statement, standardConformingStrings, resolved));
            }
        }
        int position = r.position() == 0 ? 0 : start + r.position();
        return new Verdict.Refuse(r.sqlState(), message, position, r.rule(), r.detail(), hint);
    }

    /** The selection as the catalog check takes it: OIDs and names in list order; NONE without a selection. */
    /**
     * The selection a statement is proven against now, or null while a refresh reported before it is pending (a
     * statement would wait for it).
     */
    TableSelection selectionNow() {
        return pendingRefresh().isDone() ? tableSelection() : null;
    }

    private TableSelection tableSelection() {
        ResolvedSelection resolved = resolved();
        if (!resolved.isSet() && !resolved.noneExists()) {
            return TableSelection.NONE;
        }
        Converted last = converted;
        if (last != null && last.from() == resolved) {
            return last.to();
        }
        TableSelection table = new TableSelection(resolved.relations().stream()
                .map(r -> new io.pgward.guard.catalog.SelectedRelation(r.oid(), r.displayName())).toList(),
                resolved.noneExists());
        if (resolved.isSet() && !resolved.noneExists()) {
            table = table.withFilters(CatalogFilters.of(resolved.visible(), catalogColumns))
                    .withViews(ViewFilters.of(resolved.visible(), resolved.names(), viewColumns));
        }
        converted = new Converted(resolved, table);
        return table;
    }

    private CompletableFuture<Void> pendingRefresh() {
        return refreshed;
    }

    /** Called by the check on a schema change, on whatever thread noticed it: queues a refresh and returns. */
    private synchronized void refreshLater() {
        refreshed = refreshed.thenRunAsync(this::refresh, executor).exceptionally(failure -> null);
    }

    private void refresh() {
        try {
            report(selection.refresh(control));
        } catch (SQLException | RuntimeException e) {
            log.warn("re-resolving the table selection of login \"{}\" failed ({}); the last one stands",
                    login.name(), e.getMessage());
        }
    }

    private void report(ResolvedSelection resolved) {
        if (resolved.noneExists()) {
            log.warn("login \"{}\": none of its selected tables or views exists; every statement is refused",
                    login.name());
        } else if (!resolved.missing().isEmpty()) {
            log.warn("login \"{}\": selected relations that do not exist are left out: {}", login.name(),
                    resolved.missing());
        }
    }
}
