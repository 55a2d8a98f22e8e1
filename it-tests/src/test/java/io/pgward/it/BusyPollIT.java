package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With {@code io.busy_poll} on and one event loop, everything the relay does is still done: work that other
 * threads hand to the event loop while it polls (a verdict decided off the loop, a CancelRequest, a pool
 * hand-over) is run within the polling budget, and many sessions share the one polling loop.
 */
@PostgresTest
class BusyPollIT {

    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase database) throws SQLException {
        proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 20,
                config -> config.withIo(new PgwardConfig.Io(1, Duration.ofNanos(200_000))));
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE polled (id int PRIMARY KEY, label text)");
            s.execute("INSERT INTO polled SELECT g, 'row ' || g FROM generate_series(1, 1000) g");
        }
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void runsOnOneEventLoop() {
        assertEquals(1, proxy.server().ioThreads());
    }

    @Test
    void relaysSimpleAndPreparedStatementsOfEveryLogin() throws SQLException {
        for (String login : List.of("app", "analyst")) {
            Properties simple = new Properties();
            simple.setProperty("preferQueryMode", "simple");
            try (Connection c = proxy.connect(login, simple); Statement s = c.createStatement()) {
                for (int id = 1; id <= 300; id++) {
                    // A new literal each time: the read-only login's verdicts come from the guard's shape cache.
                    try (ResultSet rs = s.executeQuery("SELECT label FROM polled WHERE id = " + id)) {
                        assertTrue(rs.next());
                        assertEquals("row " + id, rs.getString(1));
                    }
                }
            }
            try (Connection c = proxy.connect(login);
                 PreparedStatement p = c.prepareStatement("SELECT label FROM polled WHERE id = ?")) {
                for (int id = 1; id <= 300; id++) {
                    p.setInt(1, id);
                    try (ResultSet rs = p.executeQuery()) {
                        assertTrue(rs.next());
                        assertEquals("row " + id, rs.getString(1));
                    }
                }
            }
        }
    }

    @Test
    void refusesWhatTheGuardRefuses() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.execute("DELETE FROM polled"));
            assertEquals("42501", e.getSQLState());
            // A text the guard has not seen in any shape: decided off the event loop, handed back to it.
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM polled p JOIN polled q USING (id) "
                    + "WHERE p.label LIKE 'row 1%'")) {
                assertTrue(rs.next());
                assertEquals(112, rs.getInt(1));
            }
        }
    }

    @Test
    void aCancelReachesAStatementWhileTheLoopPolls() throws Exception {
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement()) {
            CompletableFuture<String> sleeping = CompletableFuture.supplyAsync(() -> {
                try {
                    s.execute("SELECT pg_sleep(30)");
                    return "finished";
                } catch (SQLException e) {
                    return e.getSQLState();
                }
            });
            Thread.sleep(500);
            long started = System.nanoTime();
            s.cancel();
            assertEquals("57014", sleeping.get(20, TimeUnit.SECONDS));
            assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) < 10, "cancelled promptly");
        }
    }

    @Test
    void manySessionsShareThePollingLoop() throws Exception {
        List<CompletableFuture<Integer>> sessions = new ArrayList<>();
        for (int n = 0; n < 8; n++) {
            String login = n % 2 == 0 ? "app" : "analyst";
            sessions.add(CompletableFuture.supplyAsync(() -> {
                int sum = 0;
                try (Connection c = proxy.connect(login);
                     PreparedStatement p = c.prepareStatement("SELECT id FROM polled WHERE id = ?")) {
                    for (int id = 1; id <= 200; id++) {
                        p.setInt(1, id);
                        try (ResultSet rs = p.executeQuery()) {
                            rs.next();
                            sum += rs.getInt(1);
                        }
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                return sum;
            }));
        }
        for (CompletableFuture<Integer> session : sessions) {
            assertEquals(200 * 201 / 2, session.get(60, TimeUnit.SECONDS));
        }
    }
}
