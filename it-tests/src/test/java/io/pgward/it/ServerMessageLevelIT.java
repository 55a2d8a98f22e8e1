package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A backend role whose own settings send the server log to its sessions: {@code client_min_messages = log} and
 * {@code log_statement = all} (for this database), so every statement comes back as a LOG message naming it, as
 * auto_explain's plans would. With a table selection LOG messages can show what the selection hides, so the
 * session of {@code analyst} (selection {@code public.orders}) starts at NOTICE whatever the role says, stays at an
 * allowed level after RESET, and keeps a higher level its client asks for; {@code reader}, read-only without a
 * selection, keeps the server's level as before. Both logins use the same backend role, so one pool serves both.
 */
@PostgresTest
class ServerMessageLevelIT {

    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        database = db;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id int PRIMARY KEY, total numeric)");
            s.execute("INSERT INTO orders SELECT i, i * 1.5 FROM generate_series(1, 10) i");
            s.execute("CREATE TABLE hidden (secret text)");
            // IN DATABASE: only this test's database, whose connections are all this test's.
            s.execute("ALTER ROLE CURRENT_USER IN DATABASE " + db.name() + " SET client_min_messages = log");
            s.execute("ALTER ROLE CURRENT_USER IN DATABASE " + db.name() + " SET log_statement = 'all'");
            if (db.serverMajor() >= 17) {
                s.execute("""
                        CREATE FUNCTION public.lower_messages() RETURNS event_trigger LANGUAGE plpgsql AS $$
                        BEGIN
                          IF current_setting('application_name') = 'lower-messages' THEN
                            PERFORM set_config('client_min_messages', 'debug1', false);
                          END IF;
                        END $$""");
                s.execute("CREATE EVENT TRIGGER lower_messages ON login EXECUTE FUNCTION public.lower_messages()");
            }
        }
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.policy("analyst", p -> p.withTables(List.of("public.orders"))));
    }

    @AfterAll
    static void stop() throws SQLException {
        proxy.close();
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            s.execute("DROP EVENT TRIGGER IF EXISTS lower_messages");
            s.execute("ALTER ROLE CURRENT_USER IN DATABASE " + database.name() + " RESET ALL");
        }
    }

    @Test
    void theRolesLevelReachesTheServerItself() throws SQLException {
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            assertEquals("log", show(s));
            assertTrue(logMessages(s).stream().anyMatch(m -> m.contains("SHOW client_min_messages")),
                    "log_statement sends each statement back at LOG");
        }
    }

    @Test
    void aSelectionLoginsSessionStartsAtNoticeAndNoLogMessageReachesIt() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connectInMode("analyst", mode); Statement s = c.createStatement()) {
                assertEquals("notice", show(s), mode);
                assertEquals(List.of(), logMessages(s), mode);
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
                    rs.next();
                    assertEquals(10, rs.getInt(1));
                }
                assertNull(s.getWarnings(), mode);
            }
        }
    }

    @Test
    void resetReturnsToNoticeNotToTheRolesLevel() throws SQLException {
        try (Connection c = proxy.connectInMode("analyst", "simple"); Statement s = c.createStatement()) {
            for (String back : List.of("RESET client_min_messages", "SET client_min_messages TO DEFAULT",
                    "SET SESSION client_min_messages = DEFAULT", "RESET ALL", "DISCARD ALL")) {
                s.execute("SET client_min_messages = error");
                assertEquals("error", show(s), back);
                s.execute(back);
                assertEquals("notice", show(s), "after " + back);
                assertEquals(List.of(), logMessages(s), "after " + back);
            }
        }
    }

    @Test
    void theClientsOwnHigherLevelStillCounts() throws SQLException {
        try (Connection c = proxy.connectInMode("analyst", "simple"); Statement s = c.createStatement()) {
            s.execute("SET client_min_messages = warning");
            assertEquals("warning", show(s));
            SQLException refused = assertThrows(SQLException.class, () -> s.execute("SET client_min_messages = log"));
            assertEquals("42501", refused.getSQLState(), refused.getMessage());
            assertEquals("warning", show(s));
        }
        Properties startup = new Properties();
        startup.setProperty("preferQueryMode", "simple");
        startup.setProperty("options", "-c client_min_messages=WARNING");
        try (Connection c = proxy.connect("analyst", startup); Statement s = c.createStatement()) {
            assertEquals("warning", show(s));
            // The client's startup value is the session's reset value, as on PostgreSQL itself.
            s.execute("RESET client_min_messages");
            assertEquals("warning", show(s));
        }
    }

    @Test
    void aLoginWithoutASelectionKeepsTheServersLevel() throws SQLException {
        try (Connection c = proxy.connectInMode("reader", "simple"); Statement s = c.createStatement()) {
            assertEquals("log", show(s));
            assertTrue(logMessages(s).stream().anyMatch(m -> m.contains("SHOW client_min_messages")));
            s.execute("SET client_min_messages = debug1");
            assertEquals("debug1", show(s));
            s.execute("RESET client_min_messages");
            assertEquals("log", show(s));
        }
    }

    @Test
    void pooledConnectionsNeverCarryOneLoginsLevelToTheOther() throws SQLException {
        for (int round = 0; round < 6; round++) {
            for (String[] login : new String[][] {{"reader", "log"}, {"analyst", "notice"}}) {
                try (Connection c = proxy.connectInMode(login[0], "simple"); Statement s = c.createStatement()) {
                    assertEquals(login[1], show(s), login[0] + " in round " + round);
                }
            }
        }
    }

    @Test
    void aNewConnectionBelowNoticeIsNeverUsedForASelection() throws SQLException {
        Assumptions.assumeTrue(database.serverMajor() >= 17, "login event triggers need PostgreSQL 17");
        Properties lowered = new Properties();
        lowered.setProperty("ApplicationName", "lower-messages");
        // Only then does pgjdbc send application_name at startup, where the login trigger sees it.
        lowered.setProperty("assumeMinServerVersion", "10");
        SQLException e = assertThrows(SQLException.class, () -> proxy.connect("analyst", lowered).close());
        assertEquals("42501", e.getSQLState(), e.getMessage());
        assertTrue(e.getMessage().contains("pgward will not use the new connection to the database server as \""
                + database.user() + "\": its session does not have the settings the read-only policy pins "
                + "(client_min_messages is debug1 (pgward needs notice or above))"), e.getMessage());
        try (Connection c = proxy.connect("reader", lowered); Statement s = c.createStatement()) {
            assertEquals("debug1", show(s), "without a selection the server's level stands");
        }
    }

    private static String show(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW client_min_messages")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The LOG and DEBUG messages the statement's last execution received; clears them. */
    private static List<String> logMessages(Statement s) throws SQLException {
        List<String> messages = new ArrayList<>();
        for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
            if (w instanceof org.postgresql.util.PSQLWarning p) {
                String severity = p.getServerErrorMessage().getSeverity();
                if (severity.equals("LOG") || severity.startsWith("DEBUG")) {
                    messages.add(p.getMessage());
                }
            }
        }
        s.clearWarnings();
        return messages;
    }
}
