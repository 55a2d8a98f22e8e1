package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Stopping pgward ({@code PgwardServer.drain}, what SIGTERM runs): no new clients; a running statement finishes and
 * its client gets its result, an idle session ends at once with 57P01, and a statement that outlasts the drain time
 * is ended.
 */
@PostgresTest
class DrainIT {

    /** A thread of its own each: the common pool may have a single worker on a small machine. */
    private static final java.util.concurrent.Executor THREADS = r -> Thread.ofPlatform().daemon().start(r);

    private static CompletableFuture<String> run(Connection c, String sql) {
        return CompletableFuture.supplyAsync(() -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getString(1);
            } catch (SQLException e) {
                return "error " + e.getSQLState();
            }
        }, THREADS);
    }

    private static String stateOf(Connection c) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            return "open";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    @Test
    void aRunningStatementFinishesAndIdleSessionsEnd(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(database);
             Connection busy = proxy.connect("app");
             Connection idle = proxy.connect("analyst")) {
            CompletableFuture<String> running = run(busy, "SELECT 'finished' FROM pg_sleep(1.5)");
            Thread.sleep(300);
            long started = System.nanoTime();
            CompletableFuture<Void> drained = CompletableFuture.runAsync(
                    () -> proxy.server().drain(Duration.ofSeconds(20)), THREADS);
            Thread.sleep(300);
            String state = stateOf(idle);
            assertTrue(state.equals("57P01") || state.startsWith("08"), "the idle session ended: " + state);
            assertThrows(SQLException.class, () -> proxy.connect("analyst"), "a new client is not accepted");
            assertEquals("finished", running.get(10, TimeUnit.SECONDS));
            drained.get(10, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(millis < 5_000, "the drain waited for the statement only, took " + millis + " ms");
            assertTrue(busy.isClosed() || !busy.isValid(1), "the busy session ended after its statement");
        }
    }

    @Test
    void aStatementThatOutlastsTheDrainTimeIsEnded(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(database);
             Connection busy = proxy.connect("app")) {
            CompletableFuture<String> statement = run(busy, "SELECT 'finished' FROM pg_sleep(30)");
            Thread.sleep(300);
            long started = System.nanoTime();
            proxy.server().drain(Duration.ofMillis(500));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(millis < 5_000, "the drain took " + millis + " ms");
            String outcome = statement.get(10, TimeUnit.SECONDS);
            assertTrue(outcome.equals("error 57P01") || outcome.startsWith("error 08"), outcome);
        }
        int running = -1;
        for (int attempt = 0; attempt < 50 && running != 0; attempt++) {
            try (Connection direct = database.connect(); Statement s = direct.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE query LIKE "
                         + "'%pg_sleep(30)%' AND state = 'active' AND pid <> pg_backend_pid()")) {
                rs.next();
                running = rs.getInt(1);
            }
            Thread.sleep(100);
        }
        assertEquals(0, running, "the server still runs the ended statement");
    }
}
