package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.gate.StatementGate;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Statements pgward answers itself reach every client as an ordinary result, in both protocols. */
@PostgresTest
class LocalAnswerIT {

    static final Verdict.Answer ANSWER = new Verdict.Answer(List.of("name", "note"),
            List.of(Arrays.asList("alice", null), List.of("bob", "it's \\ fine")), "SELECT 2",
            List.of("answered by pgward"));
    static final Verdict.Rewrite REWRITE = new Verdict.Rewrite(
            "SELECT g AS n, 'row ' || g AS label FROM generate_series(1, 3) g", List.of("ran: generate_series"));
    static final StatementGate ANSWERING = request -> CompletableFuture.completedFuture(
            request.sql().contains("pgward_test_answer") ? ANSWER
                    : request.sql().contains("pgward_test_rewrite") ? REWRITE : Verdict.ALLOW);

    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase db) {
        proxy = ProxyFixture.start(db, login -> ANSWERING, null, PgwardConfig.TlsMode.DISABLE, 4);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void aRewrittenStatementRunsOnTheBackendInEveryProtocolMode() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connectInMode("app", mode)) {
                for (int run = 0; run < 2; run++) {
                    try (Statement s = c.createStatement();
                         ResultSet rs = s.executeQuery("SELECT * FROM pgward_test_rewrite('three rows')")) {
                        assertEquals("n", rs.getMetaData().getColumnName(1));
                        assertEquals(java.sql.Types.INTEGER, rs.getMetaData().getColumnType(1),
                                "the backend's own result: typed as PostgreSQL types it");
                        for (int i = 1; i <= 3; i++) {
                            assertTrue(rs.next());
                            assertEquals(i, rs.getInt(1));
                            assertEquals("row " + i, rs.getString(2));
                        }
                        assertFalse(rs.next());
                        assertEquals("ran: generate_series", s.getWarnings().getMessage(), mode);
                    }
                }
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 'after'")) {
                    assertTrue(rs.next());
                    assertEquals("after", rs.getString(1));
                }
            }
        }
    }

    @Test
    void pgjdbcReadsTheAnswerInEveryProtocolMode() throws SQLException {
        for (String[] mode : List.of(new String[] {"simple", "5"}, new String[] {"extended", "5"},
                new String[] {"extended", "1"})) {
            Properties props = new Properties();
            props.setProperty("preferQueryMode", mode[0]);
            props.setProperty("prepareThreshold", mode[1]);
            props.setProperty("binaryTransfer", "true");
            try (Connection c = proxy.connect("app", props)) {
                for (int run = 0; run < 3; run++) {
                    try (PreparedStatement ps = c.prepareStatement("SELECT pgward_test_answer(?)")) {
                        ps.setString(1, "question " + run);
                        try (ResultSet rs = ps.executeQuery()) {
                            assertEquals("name", rs.getMetaData().getColumnName(1), mode[0]);
                            assertTrue(rs.next());
                            assertEquals("alice", rs.getString(1));
                            assertNull(rs.getString(2));
                            assertTrue(rs.next());
                            assertEquals("bob", rs.getString(1));
                            assertEquals("it's \\ fine", rs.getString(2));
                            assertFalse(rs.next());
                        }
                        // A server-prepared statement is answered once, at Parse: later executions reuse the
                        // prepared answer without a new notice.
                        boolean parsedNow = !"1".equals(mode[1]) || run == 0;
                        java.sql.SQLWarning warning = ps.getWarnings() != null ? ps.getWarnings() : c.getWarnings();
                        assertEquals(parsedNow ? "answered by pgward" : null,
                                warning == null ? null : warning.getMessage(),
                                mode[0] + " prepareThreshold " + mode[1] + " run " + run);
                        c.clearWarnings();
                    }
                }
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 40 + 2")) {
                    rs.next();
                    assertEquals(42, rs.getInt(1), "the session carries on");
                }
            }
        }
    }

    @Test
    void psqlPrintsTheAnswer() throws Exception {
        Path psql = RealClients.require("psql");
        RealClients.Result result = RealClients.run(List.of(psql.toString(), proxy.uri("app"), "-At", "-c",
                "SELECT pgward_test_answer()"));
        assertEquals(0, result.exit(), result.err());
        assertEquals("alice|\nbob|it's \\ fine", result.out().strip());
        assertTrue(result.err().contains("answered by pgward"), result.err());
    }
}
