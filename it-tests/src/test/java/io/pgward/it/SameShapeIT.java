package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A read-only session that sends one statement again and again with new values has each text allowed from the shape
 * it kept (KeptShapes): every text still gets its own verdict. A text that matches the kept one character for
 * character outside its constants, but under another search_path, reads another relation and is refused; texts that
 * add to the kept one are refused; rows are what PostgreSQL returns. Both protocols.
 */
@PostgresTest
class SameShapeIT {

    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        try (Connection owner = db.connect(); Statement s = owner.createStatement()) {
            s.execute("CREATE TABLE public.orders(id int PRIMARY KEY, status text)");
            s.execute("INSERT INTO public.orders VALUES (1, 'paid'), (2, 'it''s'), (3, 'open')");
            s.execute("CREATE SCHEMA hr");
            s.execute("CREATE TABLE hr.orders(id int, salary int)");
            s.execute("INSERT INTO hr.orders VALUES (1, 100000)");
            s.execute("CREATE TABLE public.secrets(id int)");
        }
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.policy("analyst", p -> p.withTables(List.of("public.orders"))));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void everyTextOfAKeptShapeGetsItsOwnVerdict() throws Exception {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connectInMode("analyst", mode); Statement s = c.createStatement()) {
                for (int id = 1; id <= 3; id++) {
                    assertEquals(List.of(id), ids(s, "SELECT id FROM orders WHERE id = " + id), mode);
                }
                assertEquals(List.of(2), ids(s, "SELECT id FROM orders WHERE status = 'it''s'"), mode);
                assertEquals(List.of(3), ids(s, "SELECT id FROM orders WHERE status = 'open'"), mode);
                for (String added : List.of(
                        "SELECT id FROM orders WHERE id = 1 UNION SELECT id FROM public.secrets",
                        "SELECT id FROM orders WHERE id = (SELECT count(*) FROM public.secrets)",
                        "SELECT id FROM orders WHERE id = 1; SELECT id FROM public.secrets",
                        "SELECT id FROM orders WHERE status = '' UNION SELECT id FROM public.secrets --'")) {
                    refused(s, added, mode);
                }
                assertEquals(List.of(2), ids(s, "SELECT id FROM orders WHERE id = 2"), mode + ", after the refusals");

                // The same characters under another search_path name another relation: hr.orders, not selected.
                s.execute("SET search_path = hr, public");
                refused(s, "SELECT id FROM orders WHERE id = 4", mode + ", search_path hr");
                s.execute("RESET search_path");
                assertEquals(List.of(1), ids(s, "SELECT id FROM orders WHERE id = 1"), mode + ", path reset");
            }
        }
    }

    private static void refused(Statement s, String sql, String where) {
        SQLException e = assertThrows(SQLException.class, () -> ids(s, sql), where + ": " + sql);
        assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState(), where + ": " + sql + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("pgward refused"), where + ": " + e.getMessage());
    }

    private static List<Integer> ids(Statement s, String sql) throws SQLException {
        List<Integer> ids = new java.util.ArrayList<>();
        boolean first = s.execute(sql);
        if (!first) {
            throw new AssertionError("no result set: " + sql);
        }
        try (ResultSet rs = s.getResultSet()) {
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
        }
        return ids;
    }
}
