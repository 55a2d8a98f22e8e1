package io.pgward.wire.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** One configured login's meters. {@link #NONE} counts nothing (sessions made without a server, in tests). */
public class LoginMetrics {

    public static final LoginMetrics NONE = new LoginMetrics();

    private final PgwardMetrics metrics;
    private final String login;
    private final AtomicInteger sessions = new AtomicInteger();
    private final Counter opened;
    private final Counter allowed;
    private final Counter rowCapStops;
    /** By verdict and rule beside the common allow, and questions and attempts by outcome. */
    private final ConcurrentHashMap<String, Counter> statements = new ConcurrentHashMap<>();
    /** For SHOW STATS; the Prometheus series of bytes are pgward's whole, without a login label. */
    private final java.util.concurrent.atomic.LongAdder bytesFromClients = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder bytesToClients = new java.util.concurrent.atomic.LongAdder();

    private LoginMetrics() {
        this.metrics = null;
        this.login = null;
        this.opened = null;
        this.allowed = null;
        this.rowCapStops = null;
    }

    LoginMetrics(PgwardMetrics metrics, String login) {
        this.metrics = metrics;
        this.login = login;
        MeterRegistry registry = metrics.registry();
        Gauge.builder("pgward.client.connections", sessions, AtomicInteger::get)
                .description("Client sessions open now, past authentication").tag("login", login).register(registry);
        this.opened = Counter.builder("pgward.client.sessions").description("Client sessions that logged in")
                .tag("login", login).register(registry);
        this.allowed = statement("allow", "");
        this.rowCapStops = Counter.builder("pgward.row.cap.stops")
                .description("Results stopped at the login's row cap").tag("login", login).register(registry);
    }

    private Counter statement(String verdict, String rule) {
        return Counter.builder("pgward.statements").description("Statements judged, by verdict and refusal rule")
                .tags("login", login, "verdict", verdict, "rule", rule).register(metrics.registry());
    }

    public void sessionOpened() {
        if (metrics != null) {
            sessions.incrementAndGet();
            opened.increment();
        }
    }

    public void sessionClosed() {
        if (metrics != null) {
            sessions.decrementAndGet();
        }
    }

    /**
     * One verdict.
     *
     * @param verdict allow, refuse, answer or rewrite
     * @param rule the refusal's rule, or null
     * @param nanos from the statement's arrival to its verdict
     * @param waited the verdict was not there when the statement arrived (the catalog check, a question)
     */
    public void statement(String verdict, String rule, long nanos, boolean waited) {
        if (metrics == null) {
            return;
        }
        if (rule == null && verdict.equals("allow")) {
            allowed.increment();
        } else {
            String r = rule == null ? "" : rule;
            statements.computeIfAbsent(verdict + '\0' + r, k -> statement(verdict, r)).increment();
        }
        (waited ? metrics.waitedDecisions : metrics.immediateDecisions).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A question answered; {@code outcome} as the audit's nl-verdict rule (valid-sql, not-about-database, ...). */
    public void nlQuestion(String outcome) {
        if (metrics != null) {
            statements.computeIfAbsent("nl-question\0" + outcome, k -> Counter.builder("pgward.nl.questions")
                    .description("Questions in plain language, by outcome").tags("login", login, "outcome", outcome)
                    .register(metrics.registry())).increment();
        }
    }

    /** One SQL the model wrote for a question; {@code passed}: the guard allowed it. */
    public void nlAttempt(boolean passed) {
        if (metrics != null) {
            String result = passed ? "passed" : "rejected";
            statements.computeIfAbsent("nl-attempt\0" + result, k -> Counter.builder("pgward.nl.attempts")
                    .description("SQL the model wrote for questions, by whether the guard allowed it")
                    .tags("login", login, "result", result).register(metrics.registry())).increment();
        }
    }

    /**
     * What SHOW STATS shows of this login.
     *
     * @param verdicts statements by verdict: allow, refuse, answer, rewrite
     */
    public record Totals(long sessions, long openSessions, java.util.Map<String, Long> verdicts, long rowCapStops,
                         long bytesFromClients, long bytesToClients) {
    }

    public Totals totals() {
        if (metrics == null) {
            return new Totals(0, 0, java.util.Map.of(), 0, 0, 0);
        }
        java.util.Map<String, Long> verdicts = new java.util.TreeMap<>();
        verdicts.put("allow", (long) allowed.count());
        statements.forEach((key, counter) -> {
            String verdict = key.substring(0, key.indexOf('\0'));
            if (!verdict.startsWith("nl-")) {
                verdicts.merge(verdict, (long) counter.count(), Long::sum);
            }
        });
        return new Totals((long) opened.count(), sessions.get(), verdicts, (long) rowCapStops.count(),
                bytesFromClients.sum(), bytesToClients.sum());
    }

    public void rowCapStop() {
        if (metrics != null) {
            rowCapStops.increment();
        }
    }

    public void toServer(int bytes) {
        if (metrics != null) {
            bytesFromClients.add(bytes);
            metrics.toServer(bytes);
        }
    }

    /** A run of the server's messages relayed to a client, holding {@code rows} DataRows. */
    public void toClient(int bytes, int rows) {
        if (metrics != null) {
            bytesToClients.add(bytes);
            metrics.toClient(bytes, rows);
        }
    }
}
