package io.pgward.guard.policy;

import com.zaxxer.hikari.HikariDataSource;
import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.guard.catalog.CatalogCheck;
import io.pgward.guard.catalog.CatalogRefusals;
import io.pgward.guard.catalog.SchemaPoll;
import io.pgward.guard.classify.ComplexityEnvelope;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.selection.SelectedNames;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guard of a whole pgward, the one place where a statement of a read-only login is decided: layer L1 (the
 * lexer splits the text where the server will), L2 (each statement classified), then L3 (PostgreSQL's own analysis
 * of each statement that reads, against the login's table selection, see {@link LoginGuard}) and the column hints
 * of its refusals. Every front door (the wire gate, natural-language validation, value sampling, describe) calls
 * it; a new rule or layer is a change here only.
 *
 * <p>L1 and L2 are {@link #classify judged} once per text; their statements are handed to L3 as they were split,
 * not as a text to read again. L3 keeps one {@link CatalogCheck} per (backend role, database), each on a control
 * pool that logs in as that role, and one {@link LoginGuard} per (login, database). They are made on first use on
 * this pipeline's own virtual threads; one that cannot be made (the database is down) is forgotten, so the next
 * statement tries again, and meanwhile statements are refused (fail closed).
 *
 * <p>Control connections are sessions on their database, which PostgreSQL counts against DROP DATABASE and CREATE
 * DATABASE ... TEMPLATE, so none is kept where nobody works ({@link ControlPools}): the pools of a (role, database)
 * with no statement for {@link ControlConnections#idleTimeout} are closed, with the check, its verdicts and its place
 * in the schema poll, and made again by the next statement; those of a template database are closed after each use;
 * {@link #closeControlConnectionsTo} closes them before a statement that needs the database unused. Every use runs
 * inside {@link #withLogin}, which keeps them open until it ends.
 *
 * <p>Thread-safe. Nothing here blocks the caller of {@link #cached}, {@link #prove} or {@link #schemaChanged}: all
 * JDBC runs on the pipeline's executor or on the catalog check's.
 */
public final class GuardPipeline implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GuardPipeline.class);

    /** Where the catalog layer's control connections go. */
    public interface ControlConnections {
        /** The JDBC URL of {@code database} as the control connections reach it (host, port, TLS settings). */
        String jdbcUrl(String database);

        /** Connections of the catalog check per (backend role, database). */
        int checkConnections();

        /**
         * How long the control pools of a (backend role, database) are kept after its last statement, and a control
         * connection idle ({@link CatalogCheck#controlPool}); zero keeps them while the login is configured.
         */
        default Duration idleTimeout() {
            return CatalogCheck.DEFAULT_IDLE_TIMEOUT;
        }
    }

    /**
     * A login's whole policy, not only its name: after a reload changes a login's selection, its new sessions must
     * not be judged with the selection its earlier sessions resolved.
     */
    private record LoginKey(LoginPolicy login, String database) {

        /**
         * Every statement looks its login up: the hash leaves out the selection's entries, which a large selection
         * would make the longest part of the lookup; equals still compares the whole policy, at once when a session
         * passes the same instance again.
         */
        @Override
        public int hashCode() {
            return java.util.Objects.hash(login.name(), login.backendUser(), login.tables().size(), database);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof LoginKey key && login.equals(key.login) && database.equals(key.database);
        }
    }

    private final ControlConnections connections;
    private final ReadOnlyGuard guard;
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("pgward-catalog-setup-", 0).factory());
    private final ConcurrentHashMap<String, CompletableFuture<ControlPools>> pools = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<LoginKey, CompletableFuture<LoginGuard>> logins = new ConcurrentHashMap<>();
    /** One schema poll per database for the checks of every backend role on it (see {@link SchemaPoll}). */
    private final ConcurrentHashMap<String, SchemaPoll> schemaPolls = new ConcurrentHashMap<>();
    private final ChecksAhead checksAhead = new ChecksAhead();
    /** Closes the control pools unused for the idle timeout; null without a catalog layer or an idle timeout. */
    private final ScheduledExecutorService idleCloser;
    private volatile boolean closed;

    private GuardPipeline(ControlConnections connections) {
        this.connections = connections;
        this.guard = new ReadOnlyGuard(connections != null);
        Duration idle = connections == null ? Duration.ZERO : connections.idleTimeout();
        if (idle.isZero()) {
            idleCloser = null;
        } else {
            // Looks a few times per timeout, so that pools go within a fraction of it after it has passed.
            long every = Math.clamp(idle.toMillis() / 4, 10, 30_000);
            idleCloser = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                    .name("pgward-control-idle").factory());
            idleCloser.scheduleWithFixedDelay(() -> closeUnusedSince(System.nanoTime() - idle.toNanos()), every,
                    every, TimeUnit.MILLISECONDS);
        }
    }

    /** Every layer: L1, L2 and the catalog check L3 on control connections made by {@code connections}. */
    public static GuardPipeline withCatalog(ControlConnections connections) {
        return new GuardPipeline(java.util.Objects.requireNonNull(connections, "connections"));
    }

    /** L1 and L2 alone: their verdicts are final, and no table selection can be enforced. */
    public static GuardPipeline withoutCatalog() {
        return new GuardPipeline(null);
    }

    /** Whether statements that read are proven by L3 ({@link #prove}). */
    public boolean checksCatalog() {
        return connections != null;
    }

    /**
     * L1 and L2's classification for this text when it is cached, or null when it must be {@link #classify judged};
     * lets a caller keep the slow path off a thread that must not block.
     */
    public ReadOnlyGuard.Classification cached(String sql, boolean standardConformingStrings, LoginPolicy login) {
        return guard.cached(sql, standardConformingStrings, login.readOnlyPolicy(checksCatalog()));
    }

    /**
     * The longest text a session keeps for {@link #sameShape}: a dashboard query of a few KB, and at most four of
     * them per session, so a thousand sessions hold tens of MB at worst.
     */
    public static final int SAME_SHAPE_MAX_CHARS = 4096;

    /**
     * What a session may keep of a text every layer has just allowed as {@link Verdict#ALLOW} (no rewrite, and not a
     * text that changes search_path, declares a cursor or ends a transaction), so that a text of the same shape is
     * allowed by {@link #allowsAsSame} without lexing; null when nothing can be kept (the text has no shape, or a
     * layer does not share its allow by shape, or the text is longer than {@link #SAME_SHAPE_MAX_CHARS}). Lexes
     * the text: on an event loop only a text of at most {@link ReadOnlyGuard#SHAPE_ON_CALLER_MAX_CHARS}
     * characters, as {@link #cached} does. Thread-safe.
     *
     * @param parameterTypes the types a Parse gave; empty for a simple Query
     */
    public SameShape sameShape(LoginPolicy login, String database, String sql, boolean standardConformingStrings,
                               String searchPath, List<Integer> parameterTypes, boolean simpleQuery) {
        if (sql.length() > SAME_SHAPE_MAX_CHARS) {
            return null;
        }
        LoginGuard loginGuard = checksCatalog() ? loginGuardNow(login, database) : null;
        if (checksCatalog() && loginGuard == null) {
            return null;
        }
        return SameShape.of(guard, login.readOnlyPolicy(checksCatalog()), loginGuard, new SameShape.Context(login,
                database, sql, standardConformingStrings, searchPath, parameterTypes, simpleQuery));
    }

    /**
     * Whether {@code sql} has the shape of the text {@code same} was made from, in the same context, and every layer
     * still shares its allow by that shape: then the text's verdict is {@link Verdict#ALLOW}, as the full path would
     * give it. False sends the text down the full path. No lexing, no allocation but a few keys, never blocking.
     */
    public boolean allowsAsSame(SameShape same, String sql, boolean standardConformingStrings, String searchPath,
                                List<Integer> parameterTypes, boolean simpleQuery) {
        // A reload or a schema change replaces the login's guard or its selection, and the kept keys hold the old.
        LoginGuard current = checksCatalog() ? loginGuardNow(same.login(), same.database()) : null;
        if (current != null) {
            current.pools().touch();
        }
        return same.allows(guard, current, sql, standardConformingStrings, searchPath, parameterTypes, simpleQuery);
    }

    /** No verdict holds at this epoch: see {@link #verdictEpoch}. */
    public static final long UNKNOWN_EPOCH = Long.MIN_VALUE;

    /**
     * The login's {@link CatalogCheck#verdictEpoch()} on {@code database}, without waiting: a statement judged at
     * another epoch may resolve its names differently now. {@link #UNKNOWN_EPOCH} while the login's catalog layer is
     * not ready.
     */
    public long verdictEpoch(LoginPolicy login, String database) {
        LoginGuard loginGuard = checksCatalog() ? loginGuardNow(login, database) : null;
        return loginGuard == null ? UNKNOWN_EPOCH : loginGuard.check().verdictEpoch();
    }

    /** The login's guard if it is ready, without waiting; null otherwise. */
    private LoginGuard loginGuardNow(LoginPolicy login, String database) {
        CompletableFuture<LoginGuard> known = logins.get(new LoginKey(login, database));
        return known != null && known.isDone() && !known.isCompletedExceptionally() ? known.join() : null;
    }

    /**
     * L1 and L2 for a whole text: CPU-bound and bounded ({@code ComplexityEnvelope}), never blocking; call it off
     * an event loop for a text not {@link #cached}.
     *
     * @param declaredCursors the cursors the session declared, which it may fetch, move or close
     */
    public ReadOnlyGuard.Classification classify(String sql, boolean standardConformingStrings, LoginPolicy login,
                                                 Set<String> declaredCursors) {
        return guard.check(sql, standardConformingStrings, login.readOnlyPolicy(checksCatalog()), declaredCursors);
    }

    /**
     * L3 for the statements of a text that L1 and L2 allowed ({@link ReadOnlyGuard.Classification#reads()}), one after
     * the other; the first refusal refuses the text, its position counted in the whole text. The stage never
     * completes exceptionally: a catalog layer that is not available is a refusal.
     *
     * @param parameterTypes the types a Parse gave; empty for a simple Query
     * @param simpleQuery the text came in a simple Query, whose {@code $n} PostgreSQL refuses (see
     *                    {@link io.pgward.guard.catalog.CheckRequest#simpleQuery()})
     */
    public CompletionStage<Verdict> prove(LoginPolicy login, String database, List<StatementText> reads,
                                            String searchPath, boolean standardConformingStrings,
                                            List<Integer> parameterTypes, boolean simpleQuery) {
        if (reads.isEmpty()) {
            return CompletableFuture.completedFuture(Verdict.ALLOW);
        }
        if (searchPath == null) {
            return CompletableFuture.completedFuture(PipelineRefusals.searchPathUnknown());
        }
        return withLogin(login, database, loginGuard -> loginGuard.prove(reads, searchPath,
                        standardConformingStrings, parameterTypes, simpleQuery))
                .exceptionally(failure -> PipelineRefusals.catalogUnavailable(rootMessage(failure)));
    }

    /**
     * As {@link #prove}, and a statement that reads covered catalogs is served filtered: each query of {@code text}
     * (a SELECT or WITH) has its catalog references replaced by the login's filter subqueries
     * ({@code CatalogRewrite}), and when L3 allows the rewritten statement, the verdict is a
     * {@link Verdict.Rewrite} of the whole text with those statements replaced (keeping the client's parameters).
     * A statement refused after the rewrite gets the verdict of its own text, as from {@link #prove}. Logins without
     * a selection have no filters: their verdicts are {@link #prove}'s.
     *
     * <p>The caller must not use this for a text that may change search_path: the session would not learn the new
     * one from a rewritten statement.
     *
     * @param text the whole text L1 split into {@code reads}
     */
    public CompletionStage<Verdict> proveOrRewrite(LoginPolicy login, String database, String text,
                                                     List<StatementText> reads, String searchPath,
                                                     boolean standardConformingStrings, List<Integer> parameterTypes,
                                                     boolean simpleQuery) {
        if (reads.isEmpty()) {
            return CompletableFuture.completedFuture(Verdict.ALLOW);
        }
        if (searchPath == null) {
            return CompletableFuture.completedFuture(PipelineRefusals.searchPathUnknown());
        }
        CompletableFuture<Verdict> ahead = checksAhead.take(ChecksAhead.Key.of(login, database, text, reads,
                searchPath, standardConformingStrings, parameterTypes, simpleQuery));
        return ahead != null ? ahead : rewrittenOrProven(login, database, text, reads, searchPath,
                standardConformingStrings, parameterTypes, simpleQuery);
    }

    /** {@link #proveOrRewrite}'s check itself, for reads and a search_path it has already looked at. */
    private CompletableFuture<Verdict> rewrittenOrProven(LoginPolicy login, String database, String text,
                                                         List<StatementText> reads, String searchPath,
                                                         boolean standardConformingStrings,
                                                         List<Integer> parameterTypes, boolean simpleQuery) {
        return withLogin(login, database, loginGuard -> loginGuard.proveOrRewrite(text, reads, searchPath,
                        standardConformingStrings, parameterTypes, simpleQuery))
                .exceptionally(failure -> PipelineRefusals.catalogUnavailable(rootMessage(failure)));
    }

    /**
     * Starts L3 for a text of one query while L1 and L2 still judge it ({@link #classify}), so that the two overlap
     * instead of taking turns: for a text not seen before, L2's parse takes a few hundred microseconds, on another
     * thread than the check's round trip. The caller then decides as always, L1 and L2 first: {@link #proveOrRewrite}
     * with the same arguments takes the check started here while it runs ({@link ChecksAhead}) and finds its verdict
     * cached once it has finished. Nothing here decides anything.
     *
     * <p>Only a text that is exactly one statement starting a query (SELECT, WITH, VALUES, TABLE or a parenthesis),
     * which L1 and L2, when they allow it, hand to {@link #proveOrRewrite} as its one read. L3 analyses any such
     * text safely without L2: it is where L2 leaves the queries it cannot parse, and it analyses a query inside a
     * statement of its own that runs nothing and rolls back. A text L2 refuses gets L2's refusal; its check here is
     * PostgreSQL work for nothing, as much as a new text that L2 allows costs. Lexing and the rest run on this
     * pipeline's threads, not the caller's.
     *
     * @return the verdict of the check started, for tests; {@link Verdict#ALLOW} at once when none was started
     */
    public CompletionStage<Verdict> checkAhead(LoginPolicy login, String database, String text,
                                               boolean standardConformingStrings, String searchPath,
                                               List<Integer> parameterTypes, boolean simpleQuery) {
        if (!checksCatalog() || searchPath == null || text.length() > ComplexityEnvelope.MAX_TEXT_CHARS) {
            return CompletableFuture.completedFuture(Verdict.ALLOW);
        }
        CompletableFuture<List<StatementText>> lexed;
        try {
            lexed = CompletableFuture.supplyAsync(() -> ChecksAhead.oneQuery(text, standardConformingStrings),
                    executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(Verdict.ALLOW);   // stopping: the decision fails on its own
        }
        return lexed.thenCompose(reads -> {
            if (reads.isEmpty()) {
                return CompletableFuture.completedFuture(Verdict.ALLOW);
            }
            CompletableFuture<Verdict> check = rewrittenOrProven(login, database, text, reads, searchPath,
                    standardConformingStrings, parameterTypes, simpleQuery);
            checksAhead.keep(ChecksAhead.Key.of(login, database, text, reads, searchPath, standardConformingStrings,
                    parameterTypes, simpleQuery), check);
            return check;
        });
    }

    /**
     * Before a Bind of a statement served with {@link Verdict.Rewrite#typeNameParameters}: the values bound to those
     * parameters, by number (null for NULL or a binary value, which names nothing), resolved as the session would.
     * A refusal carries PostgreSQL's error for an absent type when a value names a hidden one. Never completes
     * exceptionally.
     */
    public CompletionStage<Verdict> boundTypeNames(LoginPolicy login, String database, String searchPath,
                                                   Map<Integer, String> values) {
        if (searchPath == null) {
            return CompletableFuture.completedFuture(PipelineRefusals.searchPathUnknown());
        }
        return withLogin(login, database, loginGuard -> loginGuard.boundTypeNames(values, searchPath))
                .exceptionally(failure -> PipelineRefusals.catalogUnavailable(rootMessage(failure)));
    }

    /**
     * A refusal by L1 or L2, unless PostgreSQL's grammar rejects the text: then PostgreSQL's own error (a syntax
     * error stays a syntax error, never a permission error). Only a refusal for privileges (42501), and L3's
     * syntax error about its own wrapping of the text, are asked about; without a catalog layer, or when the grammar
     * cannot be asked, the refusal stands. The stage never completes exceptionally.
     */
    public CompletionStage<Verdict> grammarFirst(LoginPolicy login, String database, String text,
                                                   boolean standardConformingStrings, Verdict.Refuse refusal) {
        boolean wrapperSyntax = refusal.sqlState().equals(SqlStates.SYNTAX_ERROR)
                && refusal.rule().equals(CatalogRefusals.POSTGRES_ERROR);
        if (connections == null
                || !(refusal.sqlState().equals(SqlStates.INSUFFICIENT_PRIVILEGE) || wrapperSyntax)) {
            return CompletableFuture.completedFuture(refusal);
        }
        return withLogin(login, database, loginGuard -> loginGuard.check().grammar(text, standardConformingStrings))
                .<Verdict>thenApply(rejected -> rejected.<Verdict>map(r -> r).orElse(refusal))
                .exceptionally(failure -> refusal);
    }

    /**
     * Runs {@code work} with what L3 knows of one login on one database ({@link #forLogin}); the control pools of the
     * login's role there stay open until the stage {@code work} returns has completed, and the idle timeout counts
     * from then. Everything that uses a {@link LoginGuard}'s check or control pool runs inside one.
     */
    public <T> CompletableFuture<T> withLogin(LoginPolicy login, String database,
                                              Function<LoginGuard, ? extends CompletionStage<T>> work) {
        CompletableFuture<LoginGuard> made = forLogin(login, database);
        return made.thenCompose(loginGuard -> {
            ControlPools used = loginGuard.pools();
            if (!used.use()) {
                // Closed for being unused just after it was looked up: forgotten here too, so that the next look
                // makes new pools rather than finding these again before their closing has forgotten them.
                logins.remove(new LoginKey(login, database), made);
                pools.computeIfPresent(poolKey(login, database), (k, p) -> p.getNow(null) == used ? null : p);
                return withLogin(login, database, work);
            }
            CompletionStage<T> stage;
            try {
                stage = work.apply(loginGuard);
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            return stage.toCompletableFuture().whenComplete((result, failure) -> {
                if (used.release()) {
                    closeRetired(used);
                }
            });
        });
    }

    /**
     * What L3 knows of one login on one database, made on first use off the caller's thread. Its pools may be
     * closed once no {@link #withLogin} uses them: use it only inside one.
     */
    public CompletableFuture<LoginGuard> forLogin(LoginPolicy login, String database) {
        if (connections == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("this guard has no catalog layer"));
        }
        // A fast path for every statement of every session: a key that hashes the policy without building a text.
        LoginKey key = new LoginKey(login, database);
        CompletableFuture<LoginGuard> known = logins.get(key);
        if (known != null) {
            return known;
        }
        return logins.computeIfAbsent(key, k -> pools(login, database).thenApplyAsync(p -> {
            try {
                return new LoginGuard(this, login, p, SelectedNames.parse(login.tablesKey(), login.tables()),
                        executor);
            } catch (SQLException e) {
                throw new IllegalStateException("resolving the table selection failed: " + e.getMessage(), e);
            }
        }, executor).whenComplete((made, failure) -> {
            if (failure != null) {
                log.warn("the catalog check for login \"{}\" on database \"{}\" is not available: {}", login.name(),
                        database, failure.getMessage());
                logins.remove(k);
            }
        }));
    }

    /**
     * The control pools of a role on a database, with the password they log in with: a reload that changes a login's
     * backend password gets pools that use the new one.
     */
    private static String poolKey(LoginPolicy login, String database) {
        return login.backendUser() + "\0" + login.backendPassword() + "\0" + database;
    }

    private CompletableFuture<ControlPools> pools(LoginPolicy login, String database) {
        String key = poolKey(login, database);
        return pools.computeIfAbsent(key, k -> CompletableFuture.supplyAsync(() -> {
            if (closed) {
                throw new IllegalStateException("pgward is stopping");
            }
            String url = connections.jdbcUrl(database);
            Duration idle = connections.idleTimeout();
            HikariDataSource checkPool = CatalogCheck.controlPool(url, login.backendUser(), login.backendPassword(),
                    connections.checkConnections(), idle);
            try {
                HikariDataSource control = CatalogCheck.controlPool(url, login.backendUser(),
                        login.backendPassword(), 2, idle);
                try {
                    boolean template = ControlPools.isTemplate(control, database);
                    SchemaPoll poll = schemaPolls.computeIfAbsent(database,
                            d -> new SchemaPoll(CatalogCheck.Options.DEFAULTS.pollInterval()));
                    return new ControlPools(new CatalogCheck(checkPool, CatalogCheck.Options.DEFAULTS, poll, control),
                            control, database, template);
                } catch (SQLException e) {
                    control.close();
                    throw new IllegalStateException("reading whether the database is a template failed: "
                            + e.getMessage(), e);
                } catch (RuntimeException e) {
                    control.close();
                    throw e;
                }
            } catch (RuntimeException e) {
                checkPool.close();
                throw e;
            }
        }, executor).whenComplete((made, failure) -> {
            if (failure != null) {
                pools.remove(k);
            }
        }));
    }

    /**
     * After a reload: forgets what was made for login policies that are no longer configured (their resolved
     * selections) and closes the control pools no configured login logs in with, once the checks under way on them
     * have ended. A session still running with an older policy gets its selection resolved again on its next
     * statement.
     */
    public void retain(java.util.Collection<LoginPolicy> configured) {
        java.util.Set<LoginPolicy> kept = java.util.Set.copyOf(configured);
        logins.entrySet().removeIf(entry -> {
            if (kept.contains(entry.getKey().login())) {
                return false;
            }
            entry.getValue().thenAccept(LoginGuard::forget);
            return true;
        });
        java.util.Set<String> roles = new java.util.HashSet<>();
        kept.forEach(login -> roles.add(poolKey(login, "")));
        for (Map.Entry<String, CompletableFuture<ControlPools>> entry : pools.entrySet()) {
            String role = entry.getKey().substring(0, entry.getKey().lastIndexOf('\0') + 1);
            if (!roles.contains(role) && pools.remove(entry.getKey(), entry.getValue())) {
                entry.getValue().thenAccept(this::closeWhenUnused);
            }
        }
    }

    /**
     * Before a statement that needs these databases unused (DROP DATABASE, ALTER DATABASE ... RENAME, CREATE
     * DATABASE ... TEMPLATE): closes the control pools to them, of every role, and completes (never exceptionally)
     * once the unused ones are closed. Pools in use close when that use ends; a use is always on behalf of a session
     * connected to the same database, which makes the statement fail on its own. The next statement of a session
     * there makes new pools. Returns at once, so an event loop may call it.
     */
    public CompletableFuture<Void> closeControlConnectionsTo(Set<String> databases) {
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (CompletableFuture<ControlPools> made : pools.values()) {
            ControlPools p = made.getNow(null);
            if (p != null && databases.contains(p.database())) {
                closing.add(closeWhenUnused(p));
            }
        }
        return CompletableFuture.allOf(closing.toArray(CompletableFuture<?>[]::new));
    }

    /** Closes the pools of (role, database) that nobody has used since {@code idleSince}; the idle closer's tick. */
    private void closeUnusedSince(long idleSince) {
        for (CompletableFuture<ControlPools> made : pools.values()) {
            ControlPools p = made.getNow(null);
            if (p != null && p.retireIfIdleSince(idleSince)) {
                log.debug("closing the control pools on database \"{}\": no statement for {}", p.database(),
                        connections.idleTimeout());
                closeRetired(p);
            }
        }
    }

    /** Forgets {@code p} now, and closes it once its uses under way have ended (then completes). */
    private CompletableFuture<Void> closeWhenUnused(ControlPools p) {
        forget(p);
        return p.retireWhenUnused() ? closeRetired(p) : CompletableFuture.completedFuture(null);
    }

    /**
     * Closes retired pools off the caller's thread, after forgetting them and every {@link LoginGuard} made on
     * them (with their resolved selections; the check's verdicts go with it): the next statement makes new ones.
     */
    private CompletableFuture<Void> closeRetired(ControlPools p) {
        forget(p);
        try {
            return CompletableFuture.runAsync(p::close, executor).exceptionally(failure -> {
                log.warn("closing the control pools on database \"{}\" failed: {}", p.database(),
                        failure.getMessage());
                return null;
            });
        } catch (RejectedExecutionException e) {
            p.close();   // stopping: close() closes every pool all the same
            return CompletableFuture.completedFuture(null);
        }
    }

    /** No statement finds {@code p} or a {@link LoginGuard} made on it any more. */
    private void forget(ControlPools p) {
        pools.values().removeIf(made -> made.getNow(null) == p);
        logins.values().removeIf(made -> {
            LoginGuard loginGuard = made.isDone() && !made.isCompletedExceptionally() ? made.join() : null;
            if (loginGuard == null || loginGuard.pools() != p) {
                return false;
            }
            loginGuard.forget();
            return true;
        });
    }

    /**
     * The catalog check's connections, summed over every (backend role, database) it serves, for metrics.
     *
     * @param active connections running a check now
     * @param idle connections open and free
     * @param waiting checks waiting for a connection
     */
    public record ControlPoolStats(int active, int idle, int waiting) {
    }

    public ControlPoolStats controlPoolStats() {
        int active = 0;
        int idle = 0;
        int waiting = 0;
        for (CompletableFuture<ControlPools> made : pools.values()) {
            ControlPools p = made.getNow(null);
            com.zaxxer.hikari.HikariPoolMXBean bean = p == null ? null : p.check().poolStats();
            if (bean != null) {
                active += bean.getActiveConnections();
                idle += bean.getIdleConnections();
                waiting += bean.getThreadsAwaitingConnection();
            }
        }
        return new ControlPoolStats(active, idle, waiting);
    }

    /**
     * A read-write login ran DDL: every check drops its verdicts now, and the selections are resolved again on
     * the pipeline's executor; a statement proven meanwhile waits for its login's new selection. Returns at once
     * and takes no connection, so an event loop may call it.
     */
    public void schemaChanged() {
        checksAhead.clear();
        for (CompletableFuture<ControlPools> made : pools.values()) {
            ControlPools p = made.getNow(null);
            if (p != null) {
                p.check().invalidate();
            }
        }
    }

    /** The databases whose schema is polled now, for tests. */
    Set<String> polledDatabases() {
        return schemaPolls.entrySet().stream().filter(entry -> entry.getValue().polling()).map(Map.Entry::getKey)
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
    }

    /** The (backend role, database) pairs with control pools now, for tests. */
    int controlPoolsOpen() {
        return pools.size();
    }

    /** Checks started ahead that are still running and not taken, for tests. */
    int checksAheadKept() {
        return checksAhead.kept();
    }

    @Override
    public void close() {
        closed = true;
        if (idleCloser != null) {
            idleCloser.shutdownNow();
        }
        List<CompletableFuture<ControlPools>> all = new ArrayList<>(pools.values());
        for (CompletableFuture<ControlPools> made : all) {
            made.thenAccept(ControlPools::close);
        }
        schemaPolls.values().forEach(SchemaPoll::close);
        executor.shutdown();
        guard.close();
    }

    private static String rootMessage(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }
}
