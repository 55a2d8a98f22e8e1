package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@code metrics.listen}: /metrics scraped during a real workload through pgward (the counters of sessions,
 * verdicts by rule, the row cap, relayed bytes and rows and guard decisions move, and no statement text shows),
 * /livez and /readyz, which fails while the database server cannot be reached.
 */
@PostgresTest
class MetricsIT {

    private static final String SECRET_LITERAL = "metrics_never_show_this_literal";

    private static UnaryOperator<PgwardConfig> withMetrics(UnaryOperator<PgwardConfig> before) {
        return config -> before.apply(config).withMetrics(new PgwardConfig.Listen("127.0.0.1", 0));
    }

    private static String metrics(ProxyFixture proxy) {
        try {
            return get(proxy, "/metrics").body();
        } catch (Exception e) {
            throw new AssertionError("GET /metrics failed", e);
        }
    }

    private static HttpResponse<String> get(ProxyFixture proxy, String path) throws Exception {
        return Scrape.get(proxy, path);
    }

    private static double value(String scrape, String sample) {
        return Scrape.value(scrape, sample);
    }

    @Test
    void aWorkloadMovesTheCountersAndNoStatementTextShows(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null,
                PgwardConfig.TlsMode.DISABLE, 4, withMetrics(ProxyFixture.rowCap("analyst", 3)))) {
            String before = get(proxy, "/metrics").body();
            assertEquals(0.0, value(before, "pgward_relayed_rows_total"));
            try (Connection analyst = proxy.connect("analyst"); Statement s = analyst.createStatement()) {
                for (int i = 0; i < 5; i++) {
                    try (ResultSet rs = s.executeQuery("SELECT " + i + " AS n")) {
                        assertTrue(rs.next());
                    }
                }
                assertThrows(SQLException.class, () -> s.execute("CREATE TABLE " + SECRET_LITERAL + " (x int)"));
                SQLException capped = assertThrows(SQLException.class, () -> {
                    try (ResultSet rs = s.executeQuery("SELECT g FROM generate_series(1, 100) g")) {
                        while (rs.next()) {
                            // read to the cap
                        }
                    }
                });
                assertEquals("54000", capped.getSQLState());
                try (Connection app = proxy.connect("app"); Statement a = app.createStatement();
                     ResultSet rs = a.executeQuery("SELECT '" + SECRET_LITERAL + "'")) {
                    assertTrue(rs.next());
                    String during = get(proxy, "/metrics").body();
                    assertEquals(1.0, value(during, "pgward_client_connections\\{login=\"analyst\"\\}"));
                    assertEquals(1.0, value(during, "pgward_client_connections\\{login=\"app\"\\}"));
                    assertTrue(value(during, "pgward_backend_connections\\{state=\"in_use\"\\}") >= 2, during);
                }
            }
            // The server sees a closed connection a moment after the client has closed it.
            ReloadUnderLoadIT.await(() -> value(metrics(proxy), "pgward_client_connections\\{login=\"analyst\"\\}")
                    == 0.0, "pgward counts the analyst's connection closed");
            HttpResponse<String> response = get(proxy, "/metrics");
            assertEquals(200, response.statusCode());
            assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
            String after = response.body();
            assertTrue(value(after, "pgward_statements_total\\{login=\"analyst\",rule=\"\",verdict=\"allow\"\\}")
                    >= 6, after);
            assertEquals(1.0, value(after,
                    "pgward_statements_total\\{login=\"analyst\",rule=\"[a-z-]+\",verdict=\"refuse\"\\}"));
            assertTrue(value(after, "pgward_statements_total\\{login=\"app\",rule=\"\",verdict=\"allow\"\\}") >= 1);
            assertEquals(1.0, value(after, "pgward_row_cap_stops_total\\{login=\"analyst\"\\}"));
            assertEquals(1.0, value(after, "pgward_client_sessions_total\\{login=\"analyst\"\\}"));
            assertEquals(0.0, value(after, "pgward_client_connections\\{login=\"analyst\"\\}"));
            assertTrue(value(after, "pgward_relayed_rows_total") >= 9, after);
            assertTrue(value(after, "pgward_relayed_bytes_total\\{direction=\"to_server\"\\}") > 100);
            assertTrue(value(after, "pgward_relayed_bytes_total\\{direction=\"to_client\"\\}") > 100);
            double decisions = value(after, "pgward_guard_decision_seconds_count\\{path=\"immediate\"\\}")
                    + value(after, "pgward_guard_decision_seconds_count\\{path=\"waited\"\\}");
            assertTrue(decisions >= 8, after);
            assertTrue(value(after, "pgward_catalog_check_connections\\{state=\"idle\"\\}") >= 0);
            assertFalse(after.contains(SECRET_LITERAL), "a statement's text shows in the metrics");
            assertFalse(after.contains(ProxyFixture.PASSWORD), "a password shows in the metrics");
        }
    }

    @Test
    void healthAnswersAndNothingElseIsServed(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null,
                PgwardConfig.TlsMode.DISABLE, 2, withMetrics(UnaryOperator.identity()))) {
            assertEquals(200, get(proxy, "/livez").statusCode());
            assertEquals(200, get(proxy, "/readyz").statusCode());
            assertEquals(404, get(proxy, "/admin").statusCode());
            int port = proxy.server().metricsPort().orElseThrow();
            HttpResponse<String> post = Scrape.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/metrics")).POST(HttpRequest.BodyPublishers.ofString("x")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode());
        }
    }

    @Test
    void notReadyWhileTheDatabaseServerCannotBeReached(TestDatabase database) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        int deadPort = closedPort;
        try (ProxyFixture proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null,
                PgwardConfig.TlsMode.DISABLE, 2, withMetrics(config -> config.withBackend(
                        new PgwardConfig.Backend("127.0.0.1", deadPort, PgwardConfig.SslMode.DISABLE, null))))) {
            assertEquals(200, get(proxy, "/livez").statusCode());
            HttpResponse<String> ready = get(proxy, "/readyz");
            assertEquals(503, ready.statusCode());
            assertTrue(ready.body().contains("127.0.0.1:" + deadPort + " cannot be reached"), ready.body());
        }
    }
}
