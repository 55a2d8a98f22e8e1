package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The filtered system views and information_schema through pgward (issue 13): an analyst with a table selection
 * reads information_schema, pg_settings, the statistics views and pg_tables in both protocols, with parameters, and
 * sees only the selection's rows; the demo's hidden relations (payment_tokens, hr.salaries), payment_tokens' foreign
 * key to customers and the settings that locate files are neither listed nor counted.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class FilteredSystemViewsIT {

    private static final List<String> HIDDEN = List.of("payment_tokens", "salaries", "data_directory",
            "config_file", "hba_file", "postgresql.conf", "tokens_owner", "orders_reads_tokens");

    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            // Row-security is not enabled: the policies are only catalog rows to list.
            s.execute("CREATE POLICY orders_visible ON public.orders FOR SELECT USING (total >= 0)");
            s.execute("CREATE POLICY orders_reads_tokens ON public.orders "
                    + "USING (EXISTS (SELECT 1 FROM public.payment_tokens))");
            s.execute("CREATE POLICY tokens_owner ON public.payment_tokens USING (true)");
            s.execute("CREATE POLICY salaries_hr ON hr.salaries USING (true)");
        }
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.policy("analyst", p -> p.withTables(RelationsAndDescribeIT.SELECTION)));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    private static Connection connect(String mode) throws SQLException {
        return proxy.connectInMode("analyst", mode);
    }

    /** Every row, its cells joined with "|"; none may name a hidden object. */
    private static List<String> rows(Statement s, String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            rows.addAll(rows(rs));
        }
        return rows;
    }

    private static List<String> rows(ResultSet rs) throws SQLException {
        List<String> rows = new ArrayList<>();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            List<String> cells = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                cells.add(String.valueOf(rs.getString(i)));
            }
            String row = String.join("|", cells);
            for (String word : HIDDEN) {
                assertFalse(row.toLowerCase(Locale.ROOT).contains(word), word + " in " + row);
            }
            rows.add(row);
        }
        return rows;
    }

    @Test
    void informationSchemaListsTheSelectionOnlyInBothProtocols() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = connect(mode); Statement s = c.createStatement()) {
                assertEquals(List.of("customers", "order_items", "orders", "products", "v_sales"),
                        rows(s, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
                                + "ORDER BY 1"), mode);
                assertEquals(List.of(), rows(s, "SELECT column_name FROM information_schema.columns "
                        + "WHERE table_name IN ('payment_tokens', 'salaries')"), mode);
                assertTrue(rows(s, "SELECT column_name FROM information_schema.columns WHERE table_name = 'customers'")
                        .contains("email"), mode);
                List<String> usage = rows(s, "SELECT table_name || '.' || column_name || ' ' || constraint_name "
                        + "FROM information_schema.constraint_column_usage WHERE table_name = 'customers'");
                assertFalse(usage.isEmpty(), mode);
                assertEquals(List.of(), rows(s, "SELECT constraint_name FROM information_schema.referential_constraints "
                        + "WHERE constraint_name LIKE 'payment%'"), mode);
                rows(s, "SELECT * FROM information_schema.table_constraints");
                rows(s, "SELECT * FROM information_schema.key_column_usage");
                rows(s, "SELECT * FROM information_schema.schemata");
            }
        }
    }

    @Test
    void settingsStatisticsAndSystemViewsShowTheSelectionOnly() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = connect(mode); Statement s = c.createStatement()) {
                List<String> settings = rows(s, "SELECT name, setting, sourcefile FROM pg_settings ORDER BY 1");
                assertTrue(settings.stream().anyMatch(r -> r.startsWith("server_version_num|")), settings.toString());
                assertEquals(List.of(), rows(s, "SELECT setting FROM pg_catalog.pg_settings "
                        + "WHERE name = 'data_directory'"), mode);
                assertEquals(List.of("customers", "mv_region_revenue", "order_items", "orders", "products"),
                        rows(s, "SELECT relname FROM pg_stat_user_tables WHERE schemaname = 'public' ORDER BY 1"),
                        mode);
                rows(s, "SELECT * FROM pg_stats");
                rows(s, "SELECT * FROM pg_statio_user_tables");
                assertEquals(List.of("customers", "order_items", "orders", "products"),
                        rows(s, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"), mode);
                assertEquals(List.of("v_sales|null"), rows(s, "SELECT viewname, definition FROM pg_views "
                        + "WHERE schemaname = 'public'"), mode);
            }
        }
    }

    @Test
    void parametersAreKept() throws SQLException {
        try (Connection c = connect("extended");
             PreparedStatement ps = c.prepareStatement("SELECT column_name FROM information_schema.columns "
                     + "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position")) {
            for (int round = 0; round < 6; round++) {   // past pgjdbc's prepareThreshold: a named statement
                ps.setString(1, "public");
                ps.setString(2, round % 2 == 0 ? "customers" : "payment_tokens");
                List<String> names;
                try (ResultSet rs = ps.executeQuery()) {
                    names = rows(rs);
                }
                assertEquals(round % 2 != 0, names.isEmpty(), names.toString());
            }
        }
    }

    @Test
    void pgjdbcPrimaryKeysWork() throws SQLException {
        try (Connection c = connect("extended")) {
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "orders")) {
                assertEquals(List.of("id"), rows(rs).stream().map(r -> r.split("\\|")[3]).toList());
            }
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "payment_tokens")) {
                assertEquals(List.of(), rows(rs));
            }
        }
    }

    /** drizzle-kit pull reads pg_policies: the policies of visible tables that read visible relations only. */
    @Test
    void policiesOfVisibleTablesOnlyInBothProtocols() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = connect(mode); Statement s = c.createStatement()) {
                assertEquals(List.of("public|orders|orders_visible|{public}|(total >= (0)::numeric)"), rows(s,
                        "SELECT schemaname, tablename, policyname, roles, qual FROM pg_policies ORDER BY 3"), mode);
                // Of the four policies only salaries_hr has a name of eleven characters.
                assertEquals(List.of("1"), rows(s, "SELECT count(*) FROM pg_catalog.pg_policies "
                        + "WHERE 1 / (length(policyname) - 11) > -100"), mode);
            }
        }
        try (Connection c = connect("extended");
             PreparedStatement ps = c.prepareStatement("SELECT policyname FROM pg_policies WHERE tablename = ?")) {
            for (int round = 0; round < 6; round++) {
                ps.setString(1, round % 2 == 0 ? "orders" : "payment_tokens");
                try (ResultSet rs = ps.executeQuery()) {
                    assertEquals(round % 2 == 0 ? List.of("orders_visible") : List.of(), rows(rs));
                }
            }
        }
    }
}
