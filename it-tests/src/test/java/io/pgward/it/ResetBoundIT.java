package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client that leaves a statement running in an extended-protocol batch without its Sync leaves its backend
 * connection in a reset that cannot finish until the statement does. Behind a pool of one connection, the next
 * client waits for that connection; the reset must give it up (cancel the statement, close the connection) soon
 * enough that the waiting client gets a new one within its {@code pool.wait_timeout} (2 s in the fixture) instead
 * of 53300.
 */
@PostgresTest
class ResetBoundIT {

    private static final String LEFT_RUNNING = "select pg_sleep(60) /* left running by a client that went away */";

    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 1);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void aClientWaitingBehindAResetThatCannotFinishIsServedWithinItsWait() throws Exception {
        try (RawClient leaving = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            // Without a Sync pgward owes the client no ReadyForQuery, so the connection goes to its reset, whose own
            // Sync the server reads only once the statement ends. (A statement pgward owes a ReadyForQuery for is
            // cancelled and its connection closed at once, without a reset.)
            leaving.parse("", LEFT_RUNNING);
            leaving.bind("", "");
            leaving.execute("");
            leaving.flush();
            awaitRunning(1);
        }
        long started = System.nanoTime();
        try (Connection next = proxy.connect("app");
             Statement s = next.createStatement();
             ResultSet r = s.executeQuery("select 1")) {
            assertTrue(r.next());
        }
        long waitedMillis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(waitedMillis < 2_000, "the next client waited " + waitedMillis + " ms");
        // The reset that gave the connection up cancelled what its client left running.
        awaitRunning(0);
    }

    private static void awaitRunning(int expected) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        int running;
        while ((running = running()) != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(expected, running, "statements left running");
    }

    private static int running() throws SQLException {
        try (Connection direct = database.connect();
             Statement s = direct.createStatement();
             ResultSet r = s.executeQuery("select count(*) from pg_stat_activity where state = 'active' and query = '"
                     + LEFT_RUNNING.replace("'", "''") + "'")) {
            r.next();
            return r.getInt(1);
        }
    }
}
