package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgward.guard.SqlStates;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.protocol.SqlState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Layer L4 on its own: the statement guard is replaced by a test gate that allows everything, and the
 * read-only login's backend session must still refuse plain writes and stop long statements. The layers are
 * independent: a bug in the guard alone cannot write.
 */
@PostgresTest
class RuntimeLayerIT {

    private static ProxyFixture unguarded;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        database = db;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id int)");
            s.execute("CREATE SEQUENCE counter");
        }
        unguarded = ProxyFixture.start(db, login -> StatementGate.ALLOW_ALL, null, PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.statementTimeout("analyst", Duration.ofMillis(500)));
    }

    @AfterAll
    static void stop() {
        unguarded.close();
    }

    @Test
    void plainWritesFailInTheReadOnlyBackendSession() throws SQLException {
        for (String write : List.of("INSERT INTO items VALUES (1)", "UPDATE items SET id = 2", "DELETE FROM items",
                "CREATE TABLE more (id int)", "DROP TABLE items", "SELECT nextval('counter')",
                "CREATE TEMP TABLE t AS SELECT 1")) {
            try (Connection c = unguarded.connect("analyst"); Statement s = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute(write), write);
                assertEquals(SqlStates.READ_ONLY_SQL_TRANSACTION, e.getSQLState(), write + ": " + e.getMessage());
            }
        }
        try (Connection c = database.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM items")) {
            rs.next();
            assertEquals(0, rs.getInt(1));
        }
    }

    @Test
    void theLoginsStatementTimeoutStopsLongStatements() throws SQLException {
        try (Connection c = unguarded.connect("analyst"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SELECT pg_sleep(5)"));
            assertEquals(SqlState.QUERY_CANCELED, e.getSQLState());
            assertEquals("ERROR: canceling statement due to statement timeout", e.getMessage());
        }
    }
}
