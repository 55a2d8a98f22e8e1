package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.protocol.SqlState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Statements that cannot write or reach data outside the selection run for a read-only login with a selection,
 * and a statement PostgreSQL's grammar rejects at its first word gets PostgreSQL's own error, field for field, as
 * a direct connection gets it, in both protocols.
 */
@PostgresTest
class HarmlessStatementsIT {

    private static final java.time.Duration TIMEOUT = java.time.Duration.ofSeconds(3);
    private static TestDatabase database;
    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        database = db;
        try (Connection owner = db.connect(); Statement s = owner.createStatement()) {
            s.execute("CREATE TABLE public.orders(id int PRIMARY KEY, amount numeric)");
            s.execute("INSERT INTO public.orders VALUES (1, 10), (2, 20)");
        }
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null,
                io.pgward.wire.config.PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.policy("analyst", p -> p.withStatementTimeout(TIMEOUT)
                        .withTables(List.of("public.orders"))));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    private static Properties mode(String mode) {
        Properties props = new Properties();
        props.setProperty("preferQueryMode", mode);
        return props;
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT pg_typeof(amount) FROM public.orders", "SELECT pg_typeof(1)::text",
        "SET xml option document", "SET XML OPTION CONTENT", "SET CONSTRAINTS ALL DEFERRED",
        "SET default_transaction_read_only = default", "SHOW work_mem", "SHOW role"})
    void runs(String sql) throws Exception {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connect("analyst", mode(mode)); Statement s = c.createStatement()) {
                s.execute(sql);
                assertEquals("on", single(s, "SHOW default_transaction_read_only"), mode + " " + sql);
                assertEquals("on", single(s, "SHOW transaction_read_only"), mode + " " + sql);
            }
        }
    }

    @Test
    void rollbackAndChainStartsAnotherReadOnlyTransaction() throws Exception {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connect("analyst", mode(mode))) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT count(*) FROM public.orders");
                    s.execute("ROLLBACK AND CHAIN");
                    assertEquals("on", single(s, "SHOW transaction_read_only"), mode);
                    SQLException e = assertThrows(SQLException.class, () -> s.execute("COMMIT AND CHAIN"), mode);
                    assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState(), mode);
                }
                c.rollback();
            }
        }
    }

    /**
     * One Query: PostgreSQL runs its statements in an implicit transaction block, where DISCARD ALL fails; pgward
     * lets PostgreSQL say so. In the extended protocol pgjdbc sends two statements in one request, and PostgreSQL
     * would run both: DISCARD ALL resets search_path, so pgward refuses the statement after it, which PostgreSQL
     * would analyse with a path pgward learns only when the request has ended (as it refuses a read after a change
     * of the path in one Query).
     */
    @Test
    void discardAllBeforeAnotherStatementGetsWhatPostgresqlGives() throws Exception {
        String sql = "discard all; select 1";
        ServerErrorMessage direct;
        try (Connection c = direct("simple"); Statement s = c.createStatement()) {
            direct = assertThrows(PSQLException.class, () -> s.execute(sql)).getServerErrorMessage();
        }
        try (Connection c = proxy.connect("analyst", mode("simple")); Statement s = c.createStatement()) {
            ServerErrorMessage through = assertThrows(PSQLException.class, () -> s.execute(sql))
                    .getServerErrorMessage();
            assertEquals(fields(direct), fields(through));
            assertEquals("25001", through.getSQLState());
            assertEquals("1", single(s, "SELECT 1"));
        }
        try (Connection c = proxy.connect("analyst", mode("extended")); Statement s = c.createStatement()) {
            ServerErrorMessage refused = assertThrows(PSQLException.class, () -> s.execute(sql))
                    .getServerErrorMessage();
            assertEquals("42501", refused.getSQLState());
            assertTrue(refused.getMessage().contains("after a change of search_path in the same request"),
                    refused.getMessage());
            assertEquals("on", single(s, "SHOW default_transaction_read_only"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"selec * from orders", "SELEC 1", "  /* a comment */ explian select 1",
        "-- a line\nsleect id from public.orders where id = 1"})
    void aTypoGetsPostgresqlsSyntaxErrorFieldForField(String sql) throws Exception {
        for (String mode : List.of("simple", "extended")) {
            ServerErrorMessage direct;
            try (Connection c = direct(mode); Statement s = c.createStatement()) {
                direct = assertThrows(PSQLException.class, () -> s.execute(sql)).getServerErrorMessage();
            }
            try (Connection c = proxy.connect("analyst", mode(mode)); Statement s = c.createStatement()) {
                ServerErrorMessage through = assertThrows(PSQLException.class, () -> s.execute(sql))
                        .getServerErrorMessage();
                assertEquals(SqlState.SYNTAX_ERROR, through.getSQLState(), mode);
                assertEquals(fields(direct), fields(through), mode + " " + sql);
                // In a transaction aborted by an error PostgreSQL parses first: still the syntax error.
                c.setAutoCommit(false);
                assertThrows(SQLException.class, () -> s.execute("SELECT 1/0"));
                through = assertThrows(PSQLException.class, () -> s.execute(sql)).getServerErrorMessage();
                assertEquals(fields(direct), fields(through), mode + " aborted " + sql);
                c.rollback();
            }
        }
    }

    /** A connection straight to PostgreSQL, in the given protocol. */
    private static Connection direct(String mode) throws SQLException {
        Properties props = mode(mode);
        props.setProperty("user", database.user());
        props.setProperty("password", database.password());
        return java.sql.DriverManager.getConnection(database.jdbcUrl(), props);
    }

    /** Every field PostgreSQL sent: severity, code, message, position and where in the server it was raised. */
    private static String fields(ServerErrorMessage m) {
        return String.join("|", m.getSeverity(), m.getSQLState(), m.getMessage(), String.valueOf(m.getPosition()),
                String.valueOf(m.getFile()), String.valueOf(m.getLine()), String.valueOf(m.getRoutine()),
                String.valueOf(m.getDetail()), String.valueOf(m.getHint()));
    }

    @Test
    void aTypoAfterAStatementIsStillTheSyntaxErrorAndNothingRuns() throws Exception {
        try (Connection c = proxy.connect("analyst", mode("simple")); Statement s = c.createStatement()) {
            PSQLException e = assertThrows(PSQLException.class, () -> s.execute("SELECT 1; SELEC 2"));
            assertEquals(SqlState.SYNTAX_ERROR, e.getSQLState());
            assertEquals("syntax error at or near \"SELEC\"", e.getServerErrorMessage().getMessage());
            assertEquals(11, e.getServerErrorMessage().getPosition());
            assertTrue(e.getMessage().startsWith("ERROR: syntax error"));
        }
    }
}
