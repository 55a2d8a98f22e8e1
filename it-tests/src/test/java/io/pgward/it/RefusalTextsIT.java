package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Hints;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Refusals as a client reads them through pgward, in both protocols (pgjdbc's simple and extended query modes) and
 * from psql: SQLSTATE, message, HINT and position of a refusal for a relation outside the selection, of
 * PostgreSQL's own column errors (its hint kept where it names only selected relations, withheld where it could
 * describe a hidden one), and of text PostgreSQL's grammar rejects, which gets PostgreSQL's syntax error and never
 * a permission error.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class RefusalTextsIT {

    static final List<String> SELECTION = List.of("public.orders", "public.customers", "public.products",
            "public.order_items", "public.v_sales", "public.mv_region_revenue");
    static final String SALARIES = "pgward refused this query: it reads hr.salaries, which this login's table "
            + "selection does not include. Selected: " + String.join(", ", SELECTION) + ".";
    static final List<String> MODES = List.of("simple", "extended");

    private static ProxyFixture proxy;

    private static TestDatabase db;

    @BeforeAll
    static void start(TestDatabase database) {
        db = database;
        // analyst (password) for pgjdbc and psql, reader (trust) for a raw client: the same selection.
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                config -> ProxyFixture.policy("reader", p -> p.withTables(SELECTION))
                        .apply(ProxyFixture.policy("analyst", p -> p.withTables(SELECTION)).apply(config)));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    private static Connection connect(String mode) throws SQLException {
        return proxy.connectInMode("analyst", mode);
    }

    /** The server's error for {@code sql}, which must fail; the session must carry on afterwards. */
    private static ServerErrorMessage error(String mode, String sql) throws SQLException {
        try (Connection c = connect(mode); Statement s = c.createStatement()) {
            PSQLException e = assertInstanceOf(PSQLException.class,
                    assertThrows(SQLException.class, () -> s.execute(sql), mode + ": " + sql));
            ServerErrorMessage server = e.getServerErrorMessage();
            assertTrue(server != null, mode + ": " + sql + ": " + e);
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
                assertTrue(rs.next());
            }
            return server;
        }
    }

    @Test
    void aRelationOutsideTheSelectionIsRefusedWithAHint() throws SQLException {
        for (String mode : MODES) {
            ServerErrorMessage e = error(mode, "SELECT full_name FROM hr.salaries");
            assertEquals("42501", e.getSQLState(), mode);
            assertEquals(SALARIES, e.getMessage(), mode);
            assertEquals(Hints.relations(), e.getHint(), mode);
            assertEquals("select * from pgward.relations() lists the tables and views this login may read.",
                    e.getHint());
        }
    }

    @Test
    void theHintsFunctionsWorkThroughTheLogin() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = connect(mode); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("select * from pgward.relations()")) {
                    assertTrue(rs.next(), mode);
                }
                try (ResultSet rs = s.executeQuery("select * from pgward.describe('public.orders')")) {
                    assertTrue(rs.next(), mode);
                    assertEquals("public.orders", rs.getString("value"), mode);
                }
            }
        }
    }

    /**
     * PostgreSQL counts a position in characters, where Java counts a character outside the BMP as two units: the
     * catalog check's errors, a statement's place in a Query of several, and pgward's own refusals all point where
     * PostgreSQL would.
     */
    @Test
    void aPositionCountsACharacterOutsideTheBmpAsOne() throws SQLException {
        for (String mode : MODES) {
            for (String sql : List.of("SELECT '\uD83D\uDE00' AS e, totl FROM orders",
                    "SELECT '\uD83D\uDE00' AS e; SELECT totl FROM orders",
                    "SELECT '\uD83D\uDE00' AS e; SELECT 1 AS \"\uD83D\uDE00\", totl FROM orders")) {
                assertEquals(directError(mode, sql).getPosition(), error(mode, sql).getPosition(), mode + ": " + sql);
            }
        }
        String sql = "SELECT '\uD83D\uDE00' AS e; DELETE FROM orders";
        assertEquals(sql.codePointCount(0, sql.indexOf("DELETE")) + 1, error("simple", sql).getPosition(), sql);
    }

    /** PostgreSQL's own error for {@code sql}, run directly. */
    private static ServerErrorMessage directError(String mode, String sql) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", db.user());
        props.setProperty("password", db.password());
        props.setProperty("preferQueryMode", mode);
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), props); Statement s = c.createStatement()) {
            return assertInstanceOf(PSQLException.class, assertThrows(SQLException.class, () -> s.execute(sql)))
                    .getServerErrorMessage();
        }
    }

    @Test
    void aMisspeltColumnOfASelectedRelationKeepsPostgresHint() throws SQLException {
        for (String mode : MODES) {
            ServerErrorMessage e = error(mode, "SELECT totl FROM orders");
            assertEquals("42703", e.getSQLState(), mode);
            assertTrue(e.getMessage().startsWith("column \"totl\" does not exist. Columns of public.orders: id, "
                    + "customer_id, status"), e.getMessage());
            assertEquals("Perhaps you meant to reference the column \"orders.total\".", e.getHint(), mode);
            assertEquals(8, e.getPosition(), mode);
        }
    }

    @Test
    void anAmbiguousColumnPointsAtDescribe() throws SQLException {
        for (String mode : MODES) {
            ServerErrorMessage e = error(mode, "SELECT name FROM customers, products");
            assertEquals("42702", e.getSQLState(), mode);
            assertEquals("select * from pgward.describe('public.customers') shows the columns of public.customers; "
                    + "select * from pgward.describe('public.products') shows the columns of public.products.",
                    e.getHint(), mode);
            assertEquals(8, e.getPosition(), mode);
        }
    }

    @Test
    void aMisspeltColumnOfAHiddenRelationTellsNothingAboutItsColumns() throws SQLException {
        for (String mode : MODES) {
            for (String sql : List.of("SELECT salry FROM hr.salaries", "SELECT s.ful_name FROM hr.salaries s",
                    "SELECT o.id FROM orders o JOIN hr.salaries s ON s.employe_id = o.id",
                    "SELECT * FROM orders WHERE total IN (SELECT bonuss FROM hr.salaries)",
                    "SELECT full_name FROM hr.salaries WHERE salary = 'lots'",
                    "SELECT id FROM orders, hr.salaries")) {
                ServerErrorMessage e = error(mode, sql);
                assertEquals("42501", e.getSQLState(), mode + ": " + sql);
                assertEquals(SALARIES, e.getMessage(), mode + ": " + sql);
                assertEquals(Hints.relations(), e.getHint(), mode + ": " + sql);
                assertNull(e.getDetail(), mode + ": " + sql);
                assertEquals(0, e.getPosition(), mode + ": " + sql);
            }
        }
    }

    @Test
    void textPostgresCannotParseGetsItsSyntaxError() throws Exception {
        // A raw client: pgjdbc refuses an unterminated literal itself, before pgward could see it.
        for (boolean extended : List.of(false, true)) {
            assertSyntaxError(extended, "CREATE TABEL t (id int)", "syntax error at or near \"TABEL\"", 8);
            assertSyntaxError(extended, "SELECT 'abc", "unterminated quoted string at or near \"'abc\"", 8);
            assertSyntaxError(extended, "SELECT \"abc", "unterminated quoted identifier at or near \"\"abc\"", 8);
            assertSyntaxError(extended, "SELECT 1 /* open", "unterminated /* comment at or near \"/* open\"", 10);
            assertSyntaxError(extended, "SELECT $$abc", "unterminated dollar-quoted string at or near \"$$abc\"", 8);
            assertSyntaxError(extended, "DROP TABLE orders orders", "syntax error at or near \"orders\"", 19);
            assertSyntaxError(extended, "SELEC 1", "syntax error at or near \"SELEC\"", 1);
            assertSyntaxError(extended, "sélect 1", "syntax error at or near \"sélect\"", 1);
            assertSyntaxError(extended, "SELECT '😀' FRM orders", "syntax error at or near \"orders\"", 16);
            // A text that ends too early reaches the catalog check, which analyses it inside a statement of its
            // own: the error is still PostgreSQL's for the client's text, at its end.
            assertSyntaxError(extended, "SELECT * FROM orders WHERE", "syntax error at end of input", 27);
            assertSyntaxError(extended, "SELECT id FROM orders WHERE id =", "syntax error at end of input", 33);
            assertSyntaxError(extended, "SELECT (1", "syntax error at end of input", 10);
        }
        assertSyntaxError(false, "SELECT 1 FROM orders; SELECT * FROM", "syntax error at end of input", 36);
        // One Query of several statements: PostgreSQL parses all of it before it runs any, and counts the position
        // in the whole text.
        assertSyntaxError(false, "SELECT 1; DROP TABEL orders", "syntax error at or near \"TABEL\"", 16);
        assertSyntaxError(false, "DELETE FROM orders; SELECT 'x", "unterminated quoted string at or near \"'x\"",
                28);
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
            assertTrue(rs.next());
            assertTrue(rs.getLong(1) > 0);
        }
    }

    private static void assertSyntaxError(boolean extended, String sql, String message, int position)
            throws Exception {
        String what = (extended ? "extended: " : "simple: ") + sql;
        try (RawClient client = RawClient.loggedIn(proxy.port(), "reader", db.name())) {
            if (extended) {
                client.parse("", sql);
                client.bind("", "");
                client.execute("");
                client.sync();
            } else {
                client.query(sql);
            }
            List<RawClient.Message> reply = client.readUntilReady();
            Map<Character, String> error = reply.stream().filter(m -> m.type() == 'E').findFirst()
                    .orElseThrow(() -> new AssertionError(what + ": no error in " + reply)).fields();
            assertEquals("42601", error.get('C'), what + ": " + error);
            assertEquals(message, error.get('M'), what);
            assertEquals(String.valueOf(position), error.get('P'), what);
            assertEquals("I", reply.getLast().text().substring(0, 1), what);
        }
    }

    @Test
    void validForbiddenStatementsStayRefused() throws SQLException {
        for (String mode : MODES) {
            for (String sql : List.of("DROP TABLE orders", "CREATE TABLE t (id int)", "DELETE FROM orders",
                    "SELECT nextval('orders_id_seq')")) {
                ServerErrorMessage e = error(mode, sql);
                assertEquals("42501", e.getSQLState(), mode + ": " + sql);
                assertTrue(e.getMessage().startsWith("pgward refused this query: "), e.getMessage());
            }
        }
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
            assertTrue(rs.next());
            assertTrue(rs.getLong(1) > 0);
        }
    }

    @Test
    void inAnAbortedTransactionASyntaxErrorComesFirst() throws SQLException {
        for (String mode : MODES) {
            try (Connection c = connect(mode); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                assertThrows(SQLException.class, () -> s.execute("SELECT 1/0"));
                PSQLException syntax = assertInstanceOf(PSQLException.class,
                        assertThrows(SQLException.class, () -> s.execute("CREATE TABEL t (id int)")));
                assertEquals("42601", syntax.getSQLState(), mode);
                PSQLException query = assertInstanceOf(PSQLException.class,
                        assertThrows(SQLException.class, () -> s.execute("SELECT id FRM orders")));
                assertEquals("42601", query.getSQLState(), mode);
                assertEquals("syntax error at or near \"orders\"", query.getServerErrorMessage().getMessage(), mode);
                PSQLException forbidden = assertInstanceOf(PSQLException.class,
                        assertThrows(SQLException.class, () -> s.execute("DROP TABLE orders")));
                assertEquals("25P02", forbidden.getSQLState(), mode);
                c.rollback();
            }
        }
    }

    @Test
    void psqlShowsTheHintAndTheSyntaxError() throws Exception {
        RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(), "-X",
                "-d", proxy.uri("analyst"), "-c", "SELECT salry FROM hr.salaries", "-c", "CREATE TABEL t (id int)",
                "-c", "SELECT totl FROM orders"));
        String err = result.err();
        assertTrue(err.contains("ERROR:  " + SALARIES), err);
        assertTrue(err.contains("HINT:  " + Hints.relations()), err);
        assertTrue(err.contains("ERROR:  syntax error at or near \"TABEL\"\nLINE 1: CREATE TABEL t (id int)"), err);
        assertTrue(err.contains("HINT:  Perhaps you meant to reference the column \"orders.total\"."), err);
        assertFalse(err.contains("salary"), err);
    }
}
