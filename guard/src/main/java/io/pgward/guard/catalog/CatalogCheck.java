package io.pgward.guard.catalog;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.StatementText;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Layer L3 of the guard: the catalog check. PostgreSQL analyses each query a read-only login sends (see
 * {@link CheckTransaction}); the stored parse tree tells which relations, functions, operators and types the query
 * uses, resolved exactly as the server resolves them for the session's role and search_path, and the table
 * selection's rules are applied to that.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Fail closed: an exception, a timeout or a parse tree that cannot be read is a refusal, never an allow.</li>
 *   <li>A verdict is cached per {@link CheckRequest} (selection, role, search_path, standard_conforming_strings,
 *       statement text, parameter types); a cached statement costs no round trip. An allow that
 *       {@link ShapeSharing} finds independent of the statement's constant values is cached as well per the same
 *       request with the text replaced by its {@link ConstantShape} key, so a statement that differs only in
 *       literal values is answered without a round trip (docs/verdicts-by-shape.md says why that is sound).
 *       Both are dropped whenever the schema changes: a poll of {@link SchemaFingerprint} notices changes by
 *       anyone within one poll interval, and {@link #invalidate()} drops them at once (the proxy calls it when a
 *       read-write login runs DDL). A check that started before a change never stores its verdict. The catalog rows a
 *       check reads (relations, types, functions, operators, view definitions) are shared by the checks on the
 *       same terms ({@link SharedRows}).</li>
 *   <li>Blocking JDBC runs on this class's own executor (virtual threads); {@link #check} returns at once.
 *       Concurrent checks of one request share one round trip.</li>
 * </ul>
 * Thread-safe; one instance serves every session. {@link #close()} stops the poll and closes the pool.
 */
public final class CatalogCheck implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CatalogCheck.class);

    /**
     * @param timeout statement_timeout of each check transaction
     * @param cacheSize verdicts kept, least recently used dropped first
     * @param pollInterval how often the schema fingerprint is read; zero turns polling off (then only
     *                     {@link #invalidate()} drops the cache)
     */
    public record Options(Duration timeout, int cacheSize, Duration pollInterval) {
        public static final Options DEFAULTS = new Options(Duration.ofSeconds(5), 10_000, Duration.ofSeconds(1));

        public Options {
            Objects.requireNonNull(timeout, "timeout");
            Objects.requireNonNull(pollInterval, "pollInterval");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, was " + timeout);
            }
            if (cacheSize < 1) {
                throw new IllegalArgumentException("cacheSize must be at least 1, was " + cacheSize);
            }
            if (pollInterval.isNegative()) {
                throw new IllegalArgumentException("pollInterval must not be negative, was " + pollInterval);
            }
        }
    }

    private record InFlight(long epoch, CheckRequest request) {
    }

    private final HikariDataSource pool;
    private final Options options;
    private final VerdictCache cache;
    private final SharedRows shared = new SharedRows();
    private static final java.util.concurrent.atomic.AtomicLong INSTANCES = new java.util.concurrent.atomic.AtomicLong();
    private final long instance = INSTANCES.incrementAndGet();
    private final LongAdder roundTrips = new LongAdder();
    private final LongAdder shapeHits = new LongAdder();
    private final LongAdder rewrites = new LongAdder();
    private final ConcurrentHashMap<InFlight, CompletableFuture<Verdict>> inFlight = new ConcurrentHashMap<>();
    private static final int GRAMMAR_CACHE_LIMIT = 1_000;
    private final ConcurrentHashMap<GrammarKey, Optional<Verdict.Refuse>> grammar = new ConcurrentHashMap<>();
    private final List<Runnable> schemaListeners = new CopyOnWriteArrayList<>();
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("pgward-catalog-check-", 0).factory());
    /**
     * The poll that compares fingerprints for this check, or null for none (then verdicts never wait for one): its
     * own, or one it takes part in with other roles' checks on its database.
     */
    private final SchemaPoll poll;
    /** Whether {@link #poll} is this check's own, to be closed with it. */
    private final boolean ownsPoll;
    private volatile String fingerprint;

    /**
     * Takes ownership of {@code pool}: see {@link #controlPool} for the settings the check relies on. A polling check
     * reads its first fingerprint here, so that verdicts are kept from the first check on (none is kept before that
     * reading: {@link #storingEpoch}).
     */
    public CatalogCheck(HikariDataSource pool, Options options) {
        this(pool, options, true);
    }

    /** @param readFirstFingerprint false leaves the first reading to the poll (an interval on) or to {@link #poll} */
    CatalogCheck(HikariDataSource pool, Options options, boolean readFirstFingerprint) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.options = Objects.requireNonNull(options, "options");
        this.cache = new VerdictCache(options.cacheSize());
        this.ownsPoll = true;
        if (options.pollInterval().isZero()) {
            poll = null;
        } else {
            if (readFirstFingerprint) {
                poll();
            }
            poll = new SchemaPoll(options.pollInterval());
            poll.add(this, pool);
        }
    }

    /**
     * A check whose schema {@code poll} watches together with the checks of other backend roles on the same
     * database, reading the fingerprint through {@code readWith} (see {@link SchemaPoll}); its first reading is made
     * here. {@code options}' poll interval is the shared poll's business and is not used.
     */
    public CatalogCheck(HikariDataSource pool, Options options, SchemaPoll poll, DataSource readWith) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.options = Objects.requireNonNull(options, "options");
        this.cache = new VerdictCache(options.cacheSize());
        this.poll = Objects.requireNonNull(poll, "poll");
        this.ownsPoll = false;
        pollWith(readWith);
        poll.add(this, readWith);
    }

    /** HikariCP's setting of how long after its last use a connection is handed out without a test. */
    static final String UNTESTED_IDLE_PROPERTY = "com.zaxxer.hikari.aliveBypassWindowMs";
    /**
     * A person at a BI tool sends a statement every few seconds: each check would otherwise wait for the pool's
     * test of its connection (its default is half a second).
     */
    static final long UNTESTED_IDLE_MILLIS = 60_000;

    /** The check's connection pool as Hikari counts it, or null before the pool has started. */
    public com.zaxxer.hikari.HikariPoolMXBean poolStats() {
        return pool.getHikariPoolMXBean();
    }

    /** How long a control connection of {@link #controlPool(String, String, String, int)} may stay idle. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);

    /** HikariCP's least idle timeout: a shorter one it replaces with its default of ten minutes. */
    static final Duration LEAST_IDLE_TIMEOUT = Duration.ofSeconds(10);

    /** A control pool as {@link #controlPool(String, String, String, int, Duration)} makes it, idle ten minutes. */
    public static HikariDataSource controlPool(String jdbcUrl, String user, String password, int size) {
        return controlPool(jdbcUrl, user, password, size, DEFAULT_IDLE_TIMEOUT);
    }

    /**
     * A control pool as the check needs it: autocommit, and every statement sent as one extended-protocol Parse
     * ({@code preferQueryMode=extended}), which is what lets PostgreSQL prove a text is one statement.
     *
     * <p>It keeps no connection for its own sake (no minimum idle): each is a session PostgreSQL counts as accessing
     * the database, which makes DROP DATABASE and CREATE DATABASE ... TEMPLATE of it fail. One idle longer than
     * {@code idleTimeout} is closed (HikariCP looks every 30 s; at least {@link #LEAST_IDLE_TIMEOUT}, zero keeps
     * it). Not shorter, because a check on a new connection pays its setup first ({@link PreparedReads}: preparing
     * the catalog reads and planning them again, most of a check's time) and HikariCP's test of a connection not
     * used for {@link #UNTESTED_IDLE_MILLIS}: a login that sends a statement every few minutes keeps its warm
     * connections with the default of ten minutes. The pool's surplus after a burst is what this closes; a login that
     * has gone quiet has its pools closed as a whole by the guard.
     */
    public static HikariDataSource controlPool(String jdbcUrl, String user, String password, int size,
                                               Duration idleTimeout) {
        // Read by each pool as it is made: a check on a connection used less than this long ago goes without
        // HikariCP's test of it (an empty query, one more round trip); checkNow runs a check again when its
        // connection turns out to be gone. An operator's own setting of the property stands.
        if (System.getProperty(UNTESTED_IDLE_PROPERTY) == null) {
            System.setProperty(UNTESTED_IDLE_PROPERTY, Long.toString(UNTESTED_IDLE_MILLIS));
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setIdleTimeout(idleTimeout.isZero() ? 0
                : Math.max(idleTimeout.toMillis(), LEAST_IDLE_TIMEOUT.toMillis()));
        config.setAutoCommit(true);
        config.setPoolName("pgward-catalog");
        config.setConnectionTimeout(5_000);
        config.addDataSourceProperty("preferQueryMode", "extended");
        config.addDataSourceProperty("ApplicationName", "pgward catalog check");
        // Every check creates its temporary function, and by default pgjdbc drops its server-prepared statements on any
        // CREATE, so each check would parse and plan its fixed catalog queries again: most of a check's time. The
        // statements the check prepares read only system catalogs, whose row types DDL does not change, and
        // PostgreSQL replans them itself when the catalog changes.
        config.addDataSourceProperty("flushCacheOnDdl", "false");
        // HikariCP drops a connection on 0A000, which is how a standby refuses BEGIN READ WRITE; the check needs
        // the connection to ask pg_is_in_recovery() and report the standby.
        config.setExceptionOverride(new com.zaxxer.hikari.SQLExceptionOverride() {
            @java.lang.Override
            public Override adjudicate(SQLException e) {
                return SqlStates.FEATURE_NOT_SUPPORTED.equals(e.getSQLState())
                        ? Override.DO_NOT_EVICT : Override.CONTINUE_EVICT;
            }
        });
        return new HikariDataSource(config);
    }

    /** Checks one statement off the caller's thread. The stage never completes exceptionally. */
    public CompletionStage<Verdict> check(CheckRequest request) {
        return check(request, null);
    }

    /**
     * Checks one statement that L1 has split off the caller's thread; its tokens are used, not lexed again. The
     * stage never completes exceptionally.
     *
     * @param statement the statement whose text is {@code request.sql()}, or null to lex that text here
     */
    public CompletionStage<Verdict> check(CheckRequest request, StatementText statement) {
        return raw(request, statement).thenApply(CatalogRefusals::published);
    }

    /**
     * As {@link #check(CheckRequest, StatementText)}, with the refusals only the serving rewrite reads
     * ({@link CatalogRefusals#nullName}) as they are.
     */
    CompletionStage<Verdict> raw(CheckRequest request, StatementText statement) {
        Objects.requireNonNull(request, "request");
        Verdict cached = cache.get(request);
        if (cached != null) {
            return CompletableFuture.completedFuture(cached);
        }
        if (request.selection().noneExists()) {
            return CompletableFuture.completedFuture(CatalogRefusals.noneExists());
        }
        StatementShape shape;
        try {
            shape = shape(request, statement);
        } catch (LexerException e) {
            return CompletableFuture.completedFuture(CatalogRefusals.checkFailed(e.getMessage()));
        }
        Verdict local = withoutRoundTrip(shape);
        if (local != null) {
            return CompletableFuture.completedFuture(local);
        }
        VerdictCache.ShapeKey shapeKey = shapeKey(request, shape);
        Verdict shared = shapeKey == null ? null : cache.get(shapeKey);
        if (shared != null) {
            shapeHits.increment();
            return CompletableFuture.completedFuture(shared);
        }
        long epoch = storingEpoch();
        InFlight key = new InFlight(epoch, request);
        CompletableFuture<Verdict> mine = new CompletableFuture<>();
        CompletableFuture<Verdict> running = inFlight.putIfAbsent(key, mine);
        if (running != null) {
            return running;
        }
        try {
            executor.execute(() -> {
                try {
                    Verdict verdict = checkNow(request, epoch, shape, shapeKey, mine::complete);
                    mine.complete(verdict);
                } catch (Throwable e) {
                    // Never leave a session waiting: whatever escapes the check is a refusal.
                    mine.complete(CatalogRefusals.checkFailed(e.getClass().getSimpleName()));
                    throw e;
                } finally {
                    inFlight.remove(key, mine);
                }
            });
        } catch (RuntimeException e) {
            inFlight.remove(key, mine);
            mine.complete(CatalogRefusals.checkFailed(e.getClass().getSimpleName()));
        }
        return mine;
    }

    /**
     * Where an allow of one statement is shared by shape ({@link #shared}): the statement's {@link ConstantShape} key
     * with everything else its verdict depends on.
     */
    public static final class SharedShape {

        private final VerdictCache.ShapeKey key;

        private SharedShape(VerdictCache.ShapeKey key) {
            this.key = key;
        }
    }

    /**
     * The key under which this statement's allow is shared with every statement of the same shape, as {@link #check}
     * and {@link #serve} look it up; null for a statement they judge without one (no query in it, or none the check
     * can analyse), or one that {@link #serve} would rewrite with catalog filters (a statement of the same shape reads
     * the same relations, so it would be rewritten too).
     */
    public SharedShape sharedShape(CheckRequest request, StatementText statement) {
        if (request.selection().noneExists() || FilteredCheck.rewrites(request, statement)) {
            return null;
        }
        StatementShape shape;
        try {
            shape = shape(request, statement);
        } catch (LexerException e) {
            return null;
        }
        VerdictCache.ShapeKey key = withoutRoundTrip(shape) == null ? shapeKey(request, shape) : null;
        return key == null ? null : new SharedShape(key);
    }

    /**
     * Whether an allow is shared under this key now (as {@link #check} would answer a statement of that shape, with
     * no search_path change and no type-name parameters); false sends the statement to {@link #check}.
     */
    public boolean shared(SharedShape shape) {
        return cache.get(shape.key) instanceof Verdict.Allow a && !a.changesSearchPath()
                && a.typeNameParameters().isEmpty();
    }

    /** A statement was answered from a {@link #shared} allow without asking the check: counted in shapeHits. */
    public void answeredByShape() {
        shapeHits.increment();
    }

    private record GrammarKey(String text, boolean standardConformingStrings) {
    }

    /**
     * PostgreSQL's error for the first statement of {@code text} its grammar rejects, off the caller's thread
     * ({@link ServerGrammar}: nothing of the text is analysed or run); empty when the grammar accepts it. For a
     * text pgward's own layers refuse: a syntax error is answered as PostgreSQL answers it. Answers are kept per
     * text (a grammar does not change with the schema). The stage never completes exceptionally: a failure is
     * empty, and the caller's refusal stands.
     */
    public CompletionStage<Optional<Verdict.Refuse>> grammar(String text, boolean standardConformingStrings) {
        GrammarKey key = new GrammarKey(text, standardConformingStrings);
        Optional<Verdict.Refuse> known = grammar.get(key);
        if (known != null) {
            return CompletableFuture.completedFuture(known);
        }
        return CompletableFuture.supplyAsync(() -> {
            try (Connection connection = pool.getConnection()) {
                Optional<Verdict.Refuse> answer = ServerGrammar.firstRejection(connection, text,
                        standardConformingStrings);
                if (grammar.size() >= GRAMMAR_CACHE_LIMIT) {
                    grammar.clear();
                }
                grammar.put(key, answer);
                return answer;
            } catch (SQLException | RuntimeException e) {
                log.warn("asking PostgreSQL's grammar about a refused text failed: {}", e.getMessage());
                return Optional.<Verdict.Refuse>empty();
            }
        }, executor).exceptionally(e -> Optional.empty());
    }

    /**
     * How a statement of a login with catalog filters is served: a query that reads covered catalogs is rewritten
     * with the login's filter subqueries and the rewrite checked; when L3 refuses the rewrite, or the statement
     * reads none, the client's own text and its verdict. The outcome is cached per request (the client's text and
     * everything else its verdict depends on) and dropped with the verdicts on a schema change, so a statement seen
     * before costs one lookup: no rewrite, no check. Off the caller's thread; never completes exceptionally.
     *
     * @param statement the statement whose text is {@code request.sql()}, as L1 split it
     */
    public CompletionStage<Served> serve(CheckRequest request, StatementText statement) {
        Objects.requireNonNull(statement, "statement");
        Served cached = cache.served(request);
        if (cached != null) {
            return CompletableFuture.completedFuture(cached);
        }
        long epoch = storingEpoch();
        return FilteredCheck.serve(this, request, statement).thenApply(served -> {
            if (cacheable(served.verdict())) {
                cache.put(request, served, epoch);
            }
            return served;
        });
    }

    void countRewrite() {
        rewrites.increment();
    }

    /** Statements rewritten with catalog filters since this check started (each is then checked). */
    public long catalogRewrites() {
        return rewrites.sum();
    }

    /** Checks one statement on the calling thread (blocking). */
    public Verdict checkNow(CheckRequest request) {
        return checkNow(request, null);
    }

    /**
     * Checks one statement that L1 has split on the calling thread (blocking); its tokens are used, not lexed
     * again.
     *
     * @param statement the statement whose text is {@code request.sql()}, or null to lex that text here
     */
    public Verdict checkNow(CheckRequest request, StatementText statement) {
        return CatalogRefusals.published(rawNow(request, statement));
    }

    private Verdict rawNow(CheckRequest request, StatementText statement) {
        Verdict cached = cache.get(request);
        if (cached != null) {
            return cached;
        }
        if (request.selection().noneExists()) {
            return CatalogRefusals.noneExists();
        }
        StatementShape shape;
        try {
            shape = shape(request, statement);
        } catch (LexerException e) {
            return CatalogRefusals.checkFailed(e.getMessage());
        }
        Verdict local = withoutRoundTrip(shape);
        if (local != null) {
            return local;
        }
        VerdictCache.ShapeKey shapeKey = shapeKey(request, shape);
        Verdict shared = shapeKey == null ? null : cache.get(shapeKey);
        if (shared != null) {
            shapeHits.increment();
            return shared;
        }
        return checkNow(request, storingEpoch(), shape, shapeKey, verdict -> { });
    }

    /**
     * The epoch a check starting now stores its verdict in, or {@link VerdictCache#NEVER} while a polling check has
     * no fingerprint to compare the next one with (before its first reading, or after a failed one). DDL committed
     * then would be part of the next reading, the baseline, and never noticed, so a verdict stored meanwhile could
     * outlive the schema it was reached on. The epoch is read before the fingerprint: a failed reading clears the
     * fingerprint before it advances the epoch.
     */
    private long storingEpoch() {
        long epoch = cache.epoch();
        return poll != null && fingerprint == null ? VerdictCache.NEVER : epoch;
    }

    /** The rows a check may share: none while it stores nothing, on the same terms as its verdict. */
    private SharedRows.Generation sharedRowsFor(long epoch) {
        return epoch == VerdictCache.NEVER ? new SharedRows.Generation() : shared.current();
    }

    /** The request's key in the cache of allows by shape, or null for a statement the check does not analyse. */
    private static VerdictCache.ShapeKey shapeKey(CheckRequest request, StatementShape shape) {
        String key = ConstantShape.key(shape);
        return key == null ? null : VerdictCache.ShapeKey.of(request, key);
    }

    private static StatementShape shape(CheckRequest request, StatementText statement) throws LexerException {
        if (statement == null) {
            return StatementShape.of(request.sql(), request.standardConformingStrings());
        }
        if (!statement.text().equals(request.sql())) {
            throw new IllegalArgumentException("the statement is not the request's text");
        }
        return StatementShape.of(statement);
    }

    /**
     * The check on a pooled connection; once more on another when the first turns out to be gone before anything was
     * decided (the pool does not test a connection that was used in the last {@link #UNTESTED_IDLE_MILLIS}). A check
     * changes nothing it does not roll back, so running it again is the same check.
     *
     * @param decided given an allow as soon as it is final, before the check's connection is free again
     */
    private Verdict checkNow(CheckRequest request, long epoch, StatementShape shape,
                             VerdictCache.ShapeKey shapeKey, Consumer<Verdict> decided) {
        AtomicBoolean given = new AtomicBoolean();
        Consumer<Verdict> once = verdict -> {
            given.set(true);
            decided.accept(verdict);
        };
        Verdict verdict = checkOn(request, epoch, shape, shapeKey, once, () -> !given.get());
        return verdict != null ? verdict : checkOn(request, epoch, shape, shapeKey, once, () -> false);
    }

    /**
     * One attempt of {@link #checkNow}: null when the connection was gone and {@code mayRetry} says the check may run
     * again (nothing was decided yet, and this is not the last attempt).
     */
    private Verdict checkOn(CheckRequest request, long epoch, StatementShape shape, VerdictCache.ShapeKey shapeKey,
                            Consumer<Verdict> decided, java.util.function.BooleanSupplier mayRetry) {
        Connection connection = null;
        try {
            connection = pool.getConnection();
            roundTrips.increment();
            CheckTransaction.Checked checked = CheckTransaction.checked(connection, request, shape,
                    options.timeout(), sharedRowsFor(epoch), allowed -> {
                        remember(request, epoch, shapeKey, allowed);
                        decided.accept(allowed.verdict());
                    });
            if (checked.verdict() != Verdict.ALLOW) {
                remember(request, epoch, shapeKey, checked);
            }
            return checked.verdict();
        } catch (NodeTreeException.TooComplex | StackOverflowError e) {
            // Bounded work: a tree too deep to read is an answer about the statement, not a fault of the check.
            // The stack is a last resort behind NodeTreeParser.MAX_DEPTH; either way the connection is fine.
            log.info("catalog check refused a statement as too complex: {}", e.getMessage());
            return CatalogRefusals.tooComplex(e instanceof NodeTreeException.TooComplex
                    ? e.getMessage() : "its parse tree is too deep to read");
        } catch (SQLException | RuntimeException e) {
            if (e instanceof SQLException s && gone(s, connection) && mayRetry.getAsBoolean()) {
                log.info("a control connection was gone ({}); the check runs again on another", s.getMessage());
                if (connection != null) {
                    pool.evictConnection(connection);
                }
                return null;
            }
            log.warn("catalog check failed with {}: {}; the statement is refused", e.getClass().getSimpleName(),
                    e.getMessage());
            log.debug("catalog check failure", e);
            if (connection != null) {
                pool.evictConnection(connection);
            }
            return CatalogRefusals.checkFailed(e.getClass().getSimpleName()
                    + (e instanceof SQLException s && s.getSQLState() != null ? " " + s.getSQLState() : ""));
        } finally {
            if (connection != null) {
                try {
                    connection.close();
                } catch (SQLException e) {
                    log.debug("closing a control connection failed", e);
                }
            }
        }
    }

    /**
     * The connection broke (08...), or the server ended its session: an administrator's pg_terminate_backend or
     * idle_session_timeout (57P01, 57P05 from PostgreSQL 14), a shutdown (57P02, 57P03). HikariCP closes a
     * connection on such an error, so the check's ROLLBACK after it fails with "Connection is closed" instead.
     */
    private static boolean gone(SQLException e, Connection connection) {
        String state = String.valueOf(e.getSQLState());
        if (state.startsWith("08") || Set.of("57P01", "57P02", "57P03", "57P05").contains(state)) {
            return true;
        }
        try {
            return connection != null && connection.isClosed();
        } catch (SQLException closed) {
            return true;
        }
    }

    private void remember(CheckRequest request, long epoch, VerdictCache.ShapeKey shapeKey,
                          CheckTransaction.Checked checked) {
        if (cacheable(checked.verdict())) {
            cache.put(request, checked.verdict(), epoch);
        }
        if (checked.shareableByShape() && shapeKey != null) {
            cache.put(shapeKey, checked.verdict(), epoch);
        }
    }

    /** Verdicts that need no catalog: a statement with no query in it, or one the check cannot analyse. */
    private static Verdict withoutRoundTrip(StatementShape shape) {
        return switch (shape.kind()) {
            case NO_QUERY -> Verdict.ALLOW;
            case UNKNOWN -> CatalogRefusals.notReadOnly("a statement the catalog check cannot analyse");
            case QUERY, COPY_RELATION -> null;
        };
    }

    /**
     * A timeout or an interrupted check says nothing about the statement; a standby may be promoted. A refusal as
     * too complex may come from a statement_timeout under load, and costs a bounded check to repeat.
     */
    private static boolean cacheable(Verdict verdict) {
        if (verdict instanceof Verdict.Refuse r) {
            return !r.rule().equals(CatalogRefusals.STANDBY) && !r.rule().equals(CatalogRefusals.TOO_COMPLEX)
                    && !r.rule().equals(CatalogRefusals.CHECK_FAILED)
                    && !(r.rule().equals(CatalogRefusals.POSTGRES_ERROR)
                    && (r.sqlState().startsWith("57") || r.sqlState().startsWith("08")
                    || r.sqlState().startsWith("53") || r.sqlState().startsWith("55")
                    || r.sqlState().startsWith("40") || r.sqlState().startsWith("XX")));
        }
        return true;
    }

    /** Drops every cached verdict and tells the schema listeners, now. */
    public void invalidate() {
        cache.clear();
        shared.clear();
        for (Runnable listener : schemaListeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                log.warn("a schema-change listener failed", e);
            }
        }
    }

    /**
     * Runs {@code listener} after each schema change this check notices (and after each {@link #invalidate()}), on
     * the poll thread or the caller of invalidate; it should return quickly. Table selections are re-resolved here.
     *
     * @return what stops the calls: what registered a listener for a login policy a reload dropped runs it, so that
     *         neither the listener nor what it holds outlives that policy
     */
    public Runnable onSchemaChange(Runnable listener) {
        Runnable registered = Objects.requireNonNull(listener, "listener");
        schemaListeners.add(registered);
        return () -> schemaListeners.remove(registered);
    }

    /** The catalog rows the checks share now. */
    SharedRows.Generation sharedRows() {
        return shared.current();
    }

    /**
     * A number that changes whenever the cached verdicts are dropped (a schema change, {@link #invalidate()}): a
     * verdict reached at one epoch may no longer hold at another.
     */
    public long verdictEpoch() {
        // A check made again (after its pools were closed) counts its epochs from zero: each check's are its own.
        return (instance << 32) + cache.epoch();
    }

    /** Verdicts currently cached by statement text. */
    public int cachedVerdicts() {
        return cache.size();
    }

    /** Allows currently cached by {@link ConstantShape} key. */
    public int cachedShapes() {
        return cache.shapes();
    }

    /** Checks that went to the catalog (a control connection) since this check started. */
    public long catalogRoundTrips() {
        return roundTrips.sum();
    }

    /** Statements answered by an allow cached for their shape, without a round trip, since this check started. */
    public long shapeHits() {
        return shapeHits.sum();
    }

    /** Whether a polling check has read a fingerprint to compare the next one with; tests wait for the first. */
    boolean schemaKnown() {
        return fingerprint != null;
    }

    /** Reads the schema fingerprint through the check's own pool and drops the cache if it changed; tests' at will. */
    void poll() {
        pollWith(pool);
    }

    private void pollWith(DataSource source) {
        String now;
        try {
            now = SchemaPoll.read(source);
        } catch (SQLException | RuntimeException e) {
            unknown(e);
            return;
        }
        observe(now);
    }

    /** A fingerprint just read: drops the cache if it is not the last one read. */
    synchronized void observe(String now) {
        String before = fingerprint;
        fingerprint = now;
        if (before != null && !before.equals(now)) {
            log.debug("schema changed; dropping {} cached verdicts", cache.size());
            invalidate();
        }
    }

    /** The fingerprint could not be read: nothing is known about the schema now, so the cache is dropped. */
    synchronized void unknown(Exception failure) {
        log.warn("reading the schema fingerprint failed: {}", failure == null ? "no source" : failure.getMessage());
        fingerprint = null;
        cache.clear();
        shared.clear();
    }

    @Override
    public void close() {
        if (poll != null && ownsPoll) {
            poll.close();
        } else if (poll != null) {
            poll.remove(this);
        }
        executor.shutdown();
        try {
            executor.awaitTermination(options.timeout().toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pool.close();
    }
}
