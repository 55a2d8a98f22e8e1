package io.pgward.wire.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.pool.BackendPool;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * What one running pgward counts, in Prometheus' text format ({@link #scrape}). Labels name only configured logins,
 * verdict kinds, refusal rules and fixed states: never SQL text, a client's user name before it logged in, or a
 * secret. Each login's meters are made once ({@link #forLogin}), so a statement costs a few additions.
 */
public final class PgwardMetrics {

    /** Guard decisions: tens of microseconds from a cache, milliseconds to seconds through the catalog check. */
    private static final Duration[] DECISION_BUCKETS = {Duration.ofNanos(10_000), Duration.ofNanos(25_000),
        Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
        Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5)};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ConcurrentHashMap<String, LoginMetrics> logins = new ConcurrentHashMap<>();
    private final LongAdder bytesToServer = new LongAdder();
    private final LongAdder bytesToClient = new LongAdder();
    private final LongAdder rowsToClient = new LongAdder();
    final Timer immediateDecisions = decisions("immediate");
    final Timer waitedDecisions = decisions("waited");

    public PgwardMetrics() {
        FunctionCounter.builder("pgward.relayed.bytes", bytesToServer, LongAdder::sum)
                .description("Bytes relayed from clients to the database server").tag("direction", "to_server")
                .baseUnit("bytes").register(registry);
        FunctionCounter.builder("pgward.relayed.bytes", bytesToClient, LongAdder::sum)
                .description("Bytes relayed from the database server to clients").tag("direction", "to_client")
                .baseUnit("bytes").register(registry);
        FunctionCounter.builder("pgward.relayed.rows", rowsToClient, LongAdder::sum)
                .description("Result rows the database server sent through pgward (rows past a row cap, which "
                        + "the client never gets, included)").register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
    }

    private Timer decisions(String path) {
        return Timer.builder("pgward.guard.decision")
                .description("Time from a statement's arrival to its verdict; immediate: decided without waiting "
                        + "(caches, the text's own rules), waited: decided by the catalog check or another wait")
                .tag("path", path).serviceLevelObjectives(DECISION_BUCKETS).register(registry);
    }

    /** The backend pool's connections and waits. */
    public PgwardMetrics pool(BackendPool pool) {
        poolGauge("pgward.backend.connections", "Connections to the database server, idle in the pool",
                pool, p -> p.stats().idle(), "state", "idle");
        poolGauge("pgward.backend.connections", "Connections to the database server, in use or opening",
                pool, p -> p.stats().open() - p.stats().idle(), "state", "in_use");
        Gauge.builder("pgward.pool.waiting.clients", pool, p -> p.stats().waiting())
                .description("Clients waiting now for a connection to the database server").register(registry);
        FunctionCounter.builder("pgward.pool.waits", pool, p -> p.stats().waits())
                .description("Clients that had to wait for a connection to the database server").register(registry);
        FunctionCounter.builder("pgward.pool.timeouts", pool, p -> p.stats().timeouts())
                .description("Waits for a connection that ended in 53300 (pool.wait_timeout)").register(registry);
        return this;
    }

    private void poolGauge(String name, String description, BackendPool pool, ToDoubleFunction<BackendPool> value,
                           String tag, String tagValue) {
        Gauge.builder(name, pool, value).description(description).tag(tag, tagValue).register(registry);
    }

    /**
     * The catalog check's connections over every database it serves: {@code stats} gives active, idle and waiting.
     * Held strongly: a gauge holds its object weakly, and nothing else holds this one.
     */
    public PgwardMetrics catalogCheck(java.util.function.Supplier<int[]> stats) {
        Gauge.builder("pgward.catalog.check.connections", stats, s -> s.get()[0])
                .description("Catalog check connections running a check").tag("state", "active")
                .strongReference(true).register(registry);
        Gauge.builder("pgward.catalog.check.connections", stats, s -> s.get()[1])
                .description("Catalog check connections open and free").tag("state", "idle")
                .strongReference(true).register(registry);
        Gauge.builder("pgward.catalog.check.waiting", stats, s -> s.get()[2])
                .description("Catalog checks waiting for a connection").strongReference(true).register(registry);
        return this;
    }

    /** Lines the audit log lost because its writer could not keep up. */
    public PgwardMetrics audit(AuditLog audit) {
        FunctionCounter.builder("pgward.audit.dropped.lines", audit, AuditLog::droppedLines)
                .description("Audit lines lost because the audit output could not keep up").register(registry);
        return this;
    }

    /** The meters of one configured login; made on first use. */
    public LoginMetrics forLogin(String login) {
        return logins.computeIfAbsent(login, name -> new LoginMetrics(this, name));
    }

    /** The logins that have meters, by name: every login that ever had a session, removed ones included. */
    public java.util.SortedMap<String, LoginMetrics> logins() {
        return new java.util.TreeMap<>(logins);
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    void toServer(int bytes) {
        bytesToServer.add(bytes);
    }

    void toClient(int bytes, int rows) {
        bytesToClient.add(bytes);
        rowsToClient.add(rows);
    }

    /** Every meter in Prometheus' text exposition format. */
    public String scrape() {
        return registry.scrape();
    }
}
