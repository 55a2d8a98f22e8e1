package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.SqlStates;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
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
 * The table selection as an analyst meets it through pgward: {@code pgward.relations()} and
 * {@code pgward.describe()} answered in both protocols and from psql, refusals for what is not selected, and
 * PostgreSQL's column errors completed with the selected relations' columns.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class RelationsAndDescribeIT {

    static final List<String> SELECTION = List.of("public.orders", "public.customers", "public.products",
            "public.order_items", "public.v_sales", "public.mv_region_revenue");

    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase db) {
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.policy("analyst", p -> p.withTables(SELECTION)));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void relationsListsTheSelectionInBothProtocols() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connectInMode("analyst", mode); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT * FROM pgward.relations()")) {
                assertEquals("name", rs.getMetaData().getColumnName(1));
                List<String> names = new ArrayList<>();
                List<String> kinds = new ArrayList<>();
                while (rs.next()) {
                    names.add(rs.getString("name"));
                    kinds.add(rs.getString("kind"));
                    assertTrue(rs.getString("description").startsWith(rs.getString("kind") + " · "),
                            rs.getString("description"));
                }
                assertEquals(List.of("public.mv_region_revenue", "public.v_sales", "public.customers",
                        "public.order_items", "public.orders", "public.products"), names, mode);
                assertEquals(List.of("materialized view", "view", "table", "table", "table", "table"), kinds);
            }
        }
    }

    @Test
    void describeAnswersForASelectedRelationAndRefusesOthers() throws SQLException {
        try (Connection c = proxy.connect("analyst");
             PreparedStatement ps = c.prepareStatement("SELECT * FROM pgward.describe('orders')");
             ResultSet rs = ps.executeQuery()) {
            List<String> fields = new ArrayList<>();
            StringBuilder all = new StringBuilder();
            while (rs.next()) {
                fields.add(rs.getString("field"));
                all.append(rs.getString("field")).append(": ").append(rs.getString("value")).append('\n');
            }
            assertEquals("name", fields.getFirst());
            assertTrue(all.toString().startsWith("name: public.orders\nkind: table\n"), all.toString());
            assertTrue(fields.contains("primaryKey"), all.toString());
            assertTrue(all.toString().contains("relationships: public.orders(customer_id) -> public.customers(id)"),
                    all.toString());
        }
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM pgward.describe('hr.salaries')"));
            assertEquals(SqlStates.UNDEFINED_TABLE, e.getSQLState());
            assertTrue(e.getMessage().contains("hr.salaries is not one of the selected tables or views. Choose one of:"),
                    e.getMessage());
        }
    }

    @Test
    void hostileNamesAndArgumentsGetErrorsAndTheSessionCarriesOn() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            for (String call : List.of("pgward.describe('\"unterminated')", "pgward.describe('a.b.c.d')",
                    "pgward.describe('')", "pgward.describe('orders''; DROP TABLE orders; --')",
                    "pgward.describe(42)", "pgward.relations('x')")) {
                SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT * FROM " + call), call);
                assertTrue(e.getSQLState() != null && !e.getSQLState().startsWith("08"), call + ": " + e);
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void whatIsNotSelectedIsRefusedWithTheSelectionNamed() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT * FROM hr.salaries"));
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState());
            org.postgresql.util.ServerErrorMessage server = ((org.postgresql.util.PSQLException) e)
                    .getServerErrorMessage();
            assertEquals("pgward refused this query: it reads hr.salaries, which this login's table selection "
                    + "does not include. Selected: " + String.join(", ", SELECTION) + ".", server.getMessage());
            assertEquals("select * from pgward.relations() lists the tables and views this login may read.",
                    server.getHint());

            s.execute("SET search_path = hr, public");
            SQLException unqualified = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM salaries"));
            assertTrue(unqualified.getMessage().contains("it reads hr.salaries"), unqualified.getMessage());
            s.execute("RESET search_path");
            SQLException catalog = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM pg_catalog.pg_authid"));
            assertTrue(catalog.getMessage().startsWith("ERROR: pgward refused this query: it reads "
                    + "pg_catalog.pg_authid, which this login's table selection does not include."),
                    catalog.getMessage());
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void columnErrorsNameTheColumnsOfTheSelectedRelations() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT totl FROM orders"));
            assertEquals(SqlStates.UNDEFINED_COLUMN, e.getSQLState());
            assertTrue(e.getMessage().contains("column \"totl\" does not exist"), e.getMessage());
            assertTrue(e.getMessage().contains("Columns of public.orders: id, customer_id"), e.getMessage());
        }
    }

    @Test
    void psqlShowsRelations() throws Exception {
        RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(), "-X", "-A", "-t",
                "-F", "|", "-d", proxy.uri("analyst"), "-c", "select * from pgward.relations();"));
        assertEquals(0, result.exit(), result.err());
        List<String> names = result.out().strip().lines().map(line -> line.substring(0, line.indexOf('|'))).toList();
        assertEquals(List.of("public.mv_region_revenue", "public.v_sales", "public.customers", "public.order_items",
                "public.orders", "public.products"), names);
    }
}
