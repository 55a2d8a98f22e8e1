package io.pgward.wire.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.pgward.wire.config.PgwardConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * pgward's HTTP port ({@code metrics.listen}): {@code /metrics} in Prometheus' text format, {@code /livez} (the
 * process serves its PostgreSQL port) and {@code /readyz} (also the database server and the catalog check's server
 * accept connections, {@link ServerProbe}; probed at most once a second). Nothing else is served.
 */
public final class MetricsServer implements AutoCloseable {

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    private static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;

    private final HttpServer http;
    private final ExecutorService executor;
    private final PgwardMetrics metrics;
    private final BooleanSupplier live;
    private final List<ServerProbe> probes;
    private volatile String lastProblem;
    private volatile long lastProbe;

    private MetricsServer(HttpServer http, PgwardMetrics metrics, BooleanSupplier live, List<ServerProbe> probes) {
        this.http = http;
        this.metrics = metrics;
        this.live = live;
        this.probes = probes;
        this.executor = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("pgward-metrics")
                .factory());
        http.setExecutor(executor);
        http.createContext("/", this::handle);
    }

    /**
     * Serves on {@code address}.
     *
     * @param live whether pgward still serves its PostgreSQL port
     * @throws IllegalStateException when the address cannot be bound
     */
    public static MetricsServer start(PgwardConfig config, PgwardMetrics metrics, BooleanSupplier live) {
        PgwardConfig.Listen address = config.metrics().orElseThrow();
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(address.host(), address.port()), 16);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serve metrics on " + address.host() + ":" + address.port()
                    + ": " + e.getMessage(), e);
        }
        String user = config.logins().values().iterator().next().backendUser();
        PgwardConfig.Backend backend = config.backend();
        List<ServerProbe> probes = new ArrayList<>();
        probes.add(new ServerProbe(backend.host(), backend.port(), user, PROBE_TIMEOUT));
        if (!backend.controlHost().equals(backend.host()) || backend.controlPort() != backend.port()) {
            probes.add(new ServerProbe(backend.controlHost(), backend.controlPort(), user, PROBE_TIMEOUT));
        }
        MetricsServer server = new MetricsServer(http, metrics, live, List.copyOf(probes));
        http.start();
        return server;
    }

    public int port() {
        return http.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                respond(exchange, 405, "text/plain; charset=utf-8", "only GET\n");
                return;
            }
            switch (exchange.getRequestURI().getPath()) {
                case "/metrics" -> respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
                        metrics.scrape());
                case "/livez" -> respond(exchange, live.getAsBoolean() ? 200 : 503, "text/plain; charset=utf-8",
                        live.getAsBoolean() ? "ok\n" : "pgward no longer serves its port\n");
                case "/readyz" -> {
                    String problem = live.getAsBoolean() ? readiness().orElse(null)
                            : "pgward no longer serves its port";
                    respond(exchange, problem == null ? 200 : 503, "text/plain; charset=utf-8",
                            problem == null ? "ok\n" : problem + "\n");
                }
                default -> respond(exchange, 404, "text/plain; charset=utf-8",
                        "not found: pgward serves /metrics, /livez and /readyz\n");
            }
        }
    }

    /** The probes' first problem, probing again when the last probe is over a second old. */
    private Optional<String> readiness() {
        long now = System.nanoTime();
        if (lastProbe == 0 || now - lastProbe > PROBE_INTERVAL_NANOS) {
            String problem = null;
            for (ServerProbe probe : probes) {
                problem = probe.problem().orElse(null);
                if (problem != null) {
                    break;
                }
            }
            lastProblem = problem;
            lastProbe = System.nanoTime();
        }
        return Optional.ofNullable(lastProblem);
    }

    private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }
}
