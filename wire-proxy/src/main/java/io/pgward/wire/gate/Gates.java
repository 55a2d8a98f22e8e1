package io.pgward.wire.gate;

import io.pgward.guard.Verdict;
import io.pgward.guard.policy.GuardPipeline;
import io.pgward.nl.NlSettings;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.metrics.PgwardMetrics;
import io.pgward.nl.PgwardCallSites;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Which gate a login's statements pass. Read-write logins (trusted applications) are not checked, but the DDL they
 * run drops the catalog check's verdicts at once, and their {@code pgward.*} calls are answered. Each session of a
 * read-only login gets its own {@link GuardGate} over the shared {@link GuardPipeline} (L1, L2, L3); its backend
 * session also runs with {@code default_transaction_read_only=on} and the login's statement timeout (L4), so that
 * even a guard bug cannot write.
 */
public final class Gates implements SessionGates {

    private final GuardPipeline pipeline;
    /**
     * Where L1 and L2 judge texts not seen before: platform threads, one per text being judged (each session has at
     * most one in flight, so there are never more than sessions), reused when idle. Not virtual threads: the
     * judging is CPU-bound and never blocks, so a virtual thread would hold its carrier until it is done, and a
     * few long judgements would hold every carrier that all other virtual threads (the catalog checks among them)
     * need. Platform threads are time-sliced by the operating system, so one session's statement cannot hold up
     * another session's; the {@code ComplexityEnvelope} bounds how long any one takes.
     */
    private final ExecutorService deciders = Executors.newCachedThreadPool(Thread.ofPlatform().daemon()
            .name("pgward-guard-", 0).factory());
    private final PgwardFunctions functions;
    private final NlGateway nl;

    private Gates(GuardPipeline pipeline, Optional<NlSettings> nlSettings, AuditLog audit) {
        this.pipeline = pipeline;
        boolean catalog = pipeline.checksCatalog();
        this.nl = catalog ? nlSettings.map(settings -> new NlGateway(settings, audit)).orElse(null) : null;
        this.functions = catalog ? new PgwardFunctions(pipeline, nl == null ? NlFunctions.NOT_CONFIGURED : nl) : null;
    }

    /**
     * Every layer: what pgward runs with. With an {@code nl:} section, the natural-language {@code pgward.*}
     * functions answer; without one, each says how to configure it. They write questions, attempts and verdicts
     * to {@code audit} (none when null).
     */
    public static Gates standard(PgwardConfig config, AuditLog audit) {
        return new Gates(GuardPipeline.withCatalog(new ControlConnections(config.backend(),
                config.pool().idleTimeout())), config.nl(), audit);
    }

    /** Layers L1, L2 and L4 without the catalog check: no table selection can be enforced. */
    public static Gates withoutCatalog() {
        return new Gates(GuardPipeline.withoutCatalog(), Optional.empty(), null);
    }

    @Override
    public StatementGate forSession(PgwardConfig.Login login, Executor loop) {
        return switch (login.mode()) {
            case READ_WRITE -> pipeline.checksCatalog() ? new SchemaWatch(pipeline, functions, login)
                    : StatementGate.ALLOW_ALL;
            case READ_ONLY -> {
                if (!enforceable(login)) {
                    throw new IllegalStateException("login \"" + login.name() + "\" has a table selection, which "
                            + "only the catalog check can enforce");
                }
                yield new GuardGate(pipeline, deciders, loop, login, functions);
            }
        };
    }

    @Override
    public void check(PgwardConfig.Login login) {
        if (!enforceable(login)) {
            throw new IllegalArgumentException("logins." + login.name() + ".tables: a table selection needs the "
                    + "catalog check, which this pgward runs without");
        }
    }

    @Override
    public void retain(java.util.Collection<PgwardConfig.Login> configured) {
        if (pipeline.checksCatalog()) {
            pipeline.retain(configured.stream().filter(login -> login.mode() == PgwardConfig.Mode.READ_ONLY)
                    .map(ControlConnections::policy).toList());
        }
        if (nl != null) {
            nl.retain(configured);
        }
    }

    private boolean enforceable(PgwardConfig.Login login) {
        return pipeline.checksCatalog() || login.mode() != PgwardConfig.Mode.READ_ONLY
                || login.policy().tables().isEmpty();
    }

    @Override
    public void countIn(PgwardMetrics metrics) {
        if (pipeline.checksCatalog()) {
            metrics.catalogCheck(() -> {
                GuardPipeline.ControlPoolStats stats = pipeline.controlPoolStats();
                return new int[] {stats.active(), stats.idle(), stats.waiting()};
            });
        }
        if (nl != null) {
            nl.countIn(metrics);
        }
    }

    @Override
    public void close() {
        deciders.shutdown();
        if (nl != null) {
            nl.close();
        }
        pipeline.close();
    }

    /**
     * A read-write login's gate: everything passes, but the {@code pgward.*} functions are answered (with what the
     * login's role can read; a question's SQL is still checked by the read-only guard, so asking never writes); DDL
     * tells the guard its verdicts may be stale.
     */
    private record SchemaWatch(GuardPipeline pipeline, PgwardFunctions functions, PgwardConfig.Login login)
            implements StatementGate {
        private static final CompletionStage<Verdict> ALLOWED = CompletableFuture.completedFuture(Verdict.ALLOW);

        @Override
        public CompletionStage<Verdict> check(GateRequest request) {
            if (request.kind() == GateRequest.Kind.FUNCTION_CALL || !PgwardCallSites.mayCall(request.sql())) {
                return ALLOWED;
            }
            CompletionStage<Verdict> called = functions.check(request, login, written -> ALLOWED);
            return called == null ? ALLOWED : called;
        }

        @Override
        public CompletionStage<Verdict> checkBoundCalls(GateRequest prepared, Map<Integer, String> values) {
            return functions.calls().bound(prepared, login, values, written -> ALLOWED);
        }

        @Override
        public boolean watchesSchemaChanges() {
            return true;
        }

        @Override
        public void schemaChanged() {
            pipeline.schemaChanged();
        }

        /** The guard's control connections to them are sessions there too. */
        @Override
        public CompletionStage<Void> freeDatabases(java.util.Set<String> databases) {
            return pipeline.closeControlConnectionsTo(databases);
        }
    }
}
