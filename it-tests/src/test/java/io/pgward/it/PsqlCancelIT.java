package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Ctrl-C in psql sends a CancelRequest with pgward's key; pgward relays it with the backend's key. */
@PostgresTest
class PsqlCancelIT {

    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        proxy = ProxyFixture.start(db);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void ctrlCCancelsTheRunningStatement() throws Exception {
        Path psql = RealClients.require("psql");
        Process process = new ProcessBuilder(psql.toString(), proxy.uri("app"), "-c", "select pg_sleep(10)")
                .start();
        try {
            awaitSleeping(true);
            long started = System.nanoTime();
            new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor();
            assertTrue(process.waitFor(5, TimeUnit.SECONDS), "psql returned after Ctrl-C");
            String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(err.contains("canceling statement due to user request"), err);
            assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) < 5);
            assertEquals(1, process.exitValue());
            awaitSleeping(false);
        } finally {
            process.destroyForcibly();
        }
    }

    private static void awaitSleeping(boolean expected) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity "
                        + "WHERE query = 'select pg_sleep(10)' AND state = 'active'")) {
                    rs.next();
                    if ((rs.getInt(1) > 0) == expected) {
                        return;
                    }
                }
            }
        }
        throw new AssertionError("pg_sleep never became " + (expected ? "active" : "idle"));
    }
}
