package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * EXPLAIN through pgward, for an analyst whose selection includes {@code public.v_payroll}, a view that aggregates
 * hr.salaries, which the selection leaves out: the view is read, in both protocols, but its plan, which would print
 * hr.salaries, its columns and the view's condition, is refused, whatever the format; EXPLAIN of a view over selected
 * tables still runs.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class ExplainViewsIT {

    private static final String REFUSAL = "pgward refused this query: EXPLAIN would show what public.v_payroll "
            + "reads, and it reads objects outside this login's table selection. The view can be read without EXPLAIN.";

    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE VIEW public.v_payroll AS SELECT department, count(*) AS staff FROM hr.salaries "
                    + "WHERE salary > 50000 GROUP BY department");
        }
        List<String> selection = new ArrayList<>(RelationsAndDescribeIT.SELECTION);
        selection.add("public.v_payroll");
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.policy("analyst", p -> p.withTables(selection)));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    private static List<String> rows(Statement s, String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    @Test
    void theViewIsReadButNotExplainedInBothProtocols() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connectInMode("analyst", mode); Statement s = c.createStatement()) {
                assertFalse(rows(s, "SELECT department FROM public.v_payroll").isEmpty(), mode);
                for (String sql : List.of("EXPLAIN SELECT * FROM public.v_payroll",
                        "EXPLAIN (VERBOSE, FORMAT JSON) SELECT staff FROM v_payroll WHERE department = 'Sales'",
                        "explain (format yaml) select count(*) from v_payroll")) {
                    SQLException e = assertThrows(SQLException.class, () -> rows(s, sql), mode + ": " + sql);
                    assertEquals("42501", e.getSQLState(), mode + ": " + e.getMessage());
                    assertTrue(e.getMessage().contains(REFUSAL), mode + ": " + e.getMessage());
                }
                String plan = String.join("\n", rows(s, "EXPLAIN SELECT * FROM public.v_sales"));
                assertTrue(plan.contains("orders"), mode + ": " + plan);
            }
        }
    }

    @Test
    void aPreparedExplainWithAParameterIsRefused() throws SQLException {
        try (Connection c = proxy.connectInMode("analyst", "extended");
             PreparedStatement ps = c.prepareStatement("EXPLAIN SELECT * FROM v_payroll WHERE department = ?")) {
            ps.setString(1, "Sales");
            SQLException e = assertThrows(SQLException.class, () -> ps.executeQuery().close());
            assertEquals("42501", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains(REFUSAL), e.getMessage());
        }
    }

    /** Where the server loads auto_explain, plans reach a session at LOG level: a selection keeps it at NOTICE. */
    @Test
    void clientMinMessagesStaysAtNoticeOrAbove() throws SQLException {
        try (Connection c = proxy.connectInMode("analyst", "simple"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.execute("SET client_min_messages = log"));
            assertEquals("42501", e.getSQLState(), e.getMessage());
            s.execute("SET client_min_messages = warning");
        }
    }
}
