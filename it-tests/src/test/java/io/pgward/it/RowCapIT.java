package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * A read-only login with a row cap of {@value #CAP}: a result that passes it hands over exactly the first
 * {@value #CAP} rows and then fails with 54000, with PostgreSQL's error semantics, whether the server was still
 * producing rows (a large result, stopped by the cancel) or had already finished (a result just over the cap).
 */
@PostgresTest
class RowCapIT {

    static final int CAP = 100;
    /** Far beyond the cap: the server is still producing rows when the cap is passed. */
    static final int LARGE = 2_000_000;
    /** Just beyond the cap: the server has usually finished before the cancel arrives. */
    static final int SMALL = CAP + 1;

    private static ProxyFixture proxy;
    private static String databaseName;

    @BeforeAll
    static void start(TestDatabase db) {
        databaseName = db.name();
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                config -> ProxyFixture.rowCap("reader", CAP).apply(ProxyFixture.rowCap("analyst", CAP).apply(config)));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {LARGE, SMALL})
    void aResultPastTheCapSendsTheCapThenFails(int size) throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "reader", databaseName)) {
            client.query("SELECT g FROM generate_series(1, " + size + ") g");
            List<RawClient.Message> reply = client.readUntilReady();

            assertEquals(CAP, count(reply, 'D'), "exactly the rows up to the cap reach the client");
            assertEquals('T', reply.getFirst().type());
            RawClient.Message error = reply.get(reply.size() - 2);
            assertEquals('E', error.type());
            assertEquals(SqlState.PROGRAM_LIMIT_EXCEEDED, error.fields().get('C'));
            assertTrue(error.fields().get('M').contains("row cap of " + CAP + " rows"), error.fields().toString());
            assertEquals(0, count(reply, 'C'), "no CommandComplete: the statement failed");

            client.query("SELECT 'still here'");
            assertEquals(1, count(client.readUntilReady(), 'D'), "the session carries on");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {LARGE, SMALL})
    void theRestOfTheQueryIsSkippedAsAfterAnyError(int size) throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "reader", databaseName)) {
            client.query("SELECT g FROM generate_series(1, " + size + ") g; SELECT 'after'");
            List<RawClient.Message> reply = client.readUntilReady();

            assertEquals(CAP, count(reply, 'D'), "no row of the second statement");
            assertEquals('I', (char) reply.getLast().body()[0]);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {LARGE, SMALL})
    void aTransactionIsAbortedAsAfterAnyError(int size) throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "reader", databaseName)) {
            client.query("BEGIN");
            client.readUntilReady();
            client.query("SELECT g FROM generate_series(1, " + size + ") g");
            List<RawClient.Message> reply = client.readUntilReady();
            assertEquals('E', (char) reply.getLast().body()[0], "the transaction is aborted");

            client.query("SELECT 1");
            List<RawClient.Message> next = client.readUntilReady();
            assertEquals(SqlState.IN_FAILED_SQL_TRANSACTION, next.getFirst().fields().get('C'));
            client.query("ROLLBACK");
            assertEquals('I', (char) client.readUntilReady().getLast().body()[0]);
        }
    }

    /**
     * PostgreSQL keeps the unnamed prepared statement after a failed statement and its transaction's end, also where
     * pgward aborts the transaction itself (the statement ended before the cap's cancel arrived).
     */
    @ParameterizedTest
    @ValueSource(ints = {LARGE, SMALL})
    void theUnnamedStatementOutlivesTheAbortOfATransaction(int size) throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "reader", databaseName)) {
            client.query("BEGIN");
            client.readUntilReady();
            client.parse("", "SELECT g FROM generate_series(1, " + size + ") g");
            client.bind("", "");
            client.execute("");
            client.sync();
            List<RawClient.Message> capped = client.readUntilReady();
            assertEquals(SqlState.PROGRAM_LIMIT_EXCEEDED, capped.get(capped.size() - 2).fields().get('C'));
            assertEquals('E', (char) capped.getLast().body()[0], "the transaction is aborted");
            // In the extended protocol: a Query drops the unnamed statement, directly too.
            client.parse("rollback", "ROLLBACK");
            client.bind("rollback", "rollback");
            client.execute("rollback");
            client.sync();
            assertEquals('I', (char) client.readUntilReady().getLast().body()[0]);

            client.bind("", "");
            client.execute("", CAP / 2);
            client.sync();
            List<RawClient.Message> again = client.readUntilReady();
            assertEquals(0, count(again, 'E'), () -> again.stream().map(m -> m.type() == 'E' ? m.fields().toString()
                    : String.valueOf(m.type())).toList().toString());
            assertEquals(CAP / 2, count(again, 'D'));
            assertEquals('s', again.get(again.size() - 2).type(), "PortalSuspended");
        }
    }

    @Test
    void aResultOfExactlyTheCapPasses() throws Exception {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT g FROM generate_series(1, " + CAP + ") g")) {
            int rows = 0;
            while (rs.next()) {
                rows++;
            }
            assertEquals(CAP, rows);
        }
    }

    @Test
    void pgjdbcGetsTheErrorInTheExtendedProtocolAndCarriesOn() throws Exception {
        try (Connection c = proxy.connect("analyst");
             PreparedStatement p = c.prepareStatement("SELECT g FROM generate_series(1, ?) g")) {
            for (int size : new int[] {LARGE, SMALL, LARGE}) {
                p.setInt(1, size);
                SQLException e = assertThrows(SQLException.class, () -> p.executeQuery().close());
                assertEquals(SqlState.PROGRAM_LIMIT_EXCEEDED, e.getSQLState());
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 42")) {
                rs.next();
                assertEquals(42, rs.getInt(1));
            }
        }
    }

    @Test
    void pagesWithinTheCapAreEachAResult() throws Exception {
        try (Connection c = proxy.connect("analyst")) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.setFetchSize(CAP / 2);
                int rows = 0;
                try (ResultSet rs = s.executeQuery("SELECT g FROM generate_series(1, 1000) g")) {
                    while (rs.next()) {
                        rows++;
                    }
                }
                assertEquals(1000, rows, "each Execute hands over at most the fetch size, below the cap");
            }
            c.rollback();
        }
    }

    @Test
    void copyToStdoutIsCappedToo() throws Exception {
        try (Connection c = proxy.connect("analyst")) {
            StringWriter out = new StringWriter();
            SQLException e = assertThrows(SQLException.class, () -> c.unwrap(PGConnection.class).getCopyAPI()
                    .copyOut("COPY (SELECT g FROM generate_series(1, " + LARGE + ") g) TO STDOUT", out));
            assertEquals(SqlState.PROGRAM_LIMIT_EXCEEDED, e.getSQLState());
            assertEquals(CAP, out.toString().lines().count());
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void readWriteLoginsHaveNoCap() throws Exception {
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM (SELECT generate_series(1, 1000)) x")) {
            rs.next();
            assertEquals(1000, rs.getInt(1));
        }
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT generate_series(1, 1000)")) {
            int rows = 0;
            while (rs.next()) {
                rows++;
            }
            assertEquals(1000, rows);
        }
    }

    private static long count(List<RawClient.Message> messages, char type) {
        return messages.stream().filter(m -> m.type() == type).count();
    }
}
