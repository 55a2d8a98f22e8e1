package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.protocol.SqlState;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Through the proxy, in both protocols: with a selection a system view is refused as a relation outside it, and so
 * is the function the view is built on; without a selection both run. The views served filtered to the selection
 * (pg_settings, the statistics views: FilteredSystemViewsIT) run, and the functions they are built on stay refused.
 */
@PostgresTest
class SystemViewFunctionsIT {

    private static ProxyFixture proxy;
    private static int serverMajor;
    private static long sequence;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        serverMajor = db.serverMajor();
        try (Connection owner = db.connect(); Statement s = owner.createStatement()) {
            s.execute("CREATE TABLE public.orders(id serial PRIMARY KEY, amount numeric)");
            try (var rs = s.executeQuery("SELECT 'public.orders_id_seq'::regclass::oid")) {
                rs.next();
                sequence = rs.getLong(1);
            }
        }
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null,
                io.pgward.wire.config.PgwardConfig.TlsMode.DISABLE, 4,
                ProxyFixture.policy("analyst", p -> p.withTables(List.of("public.orders"))));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @ParameterizedTest(name = "{0} / {1}")
    @CsvSource(delimiter = '|', value = {
        "pg_cursors|SELECT * FROM pg_cursor()",
        "pg_sequences|SELECT * FROM pg_sequence_parameters({sequence})",
        "pg_prepared_statements|SELECT * FROM pg_prepared_statement()",
        "pg_prepared_xacts|SELECT * FROM pg_prepared_xact()",
        "pg_file_settings|SELECT * FROM pg_show_all_file_settings()",
        "pg_hba_file_rules|SELECT * FROM pg_hba_file_rules()",
        "pg_config|SELECT * FROM pg_config()",
        "pg_available_extensions|SELECT * FROM pg_available_extensions()",
        "pg_backend_memory_contexts|SELECT * FROM pg_get_backend_memory_contexts()",
        "pg_replication_origin_status|SELECT * FROM pg_show_replication_origin_status()",
    })
    void aSelectionRefusesTheViewAndTheFunctionItIsBuiltOn(String view, String call) throws Exception {
        String function = call.replace("{sequence}", Long.toString(sequence));
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connectInMode("analyst", mode); Statement s = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute("SELECT * FROM " + view), view);
                assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState(),
                        mode + " " + view + ": " + e.getMessage());
                e = assertThrows(SQLException.class, () -> s.execute(function), function);
                assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState(),
                        mode + " " + function + ": " + e.getMessage());
                assertTrue(e.getMessage().contains("is not allowed while a table selection is set")
                        || e.getMessage().contains("is not allowed for the read-only login"),
                        mode + " " + function + ": " + e.getMessage());
            }
            try (Connection c = proxy.connectInMode("reader", mode); Statement s = c.createStatement()) {
                s.execute("SELECT * FROM " + view);
                try {
                    s.execute(function);
                } catch (SQLException e) {
                    // Some (pg_stat_get_*, pg_get_*) are on the deny-list of every read-only login: stricter than
                    // the view, never looser.
                    assertTrue(e.getMessage().contains("is not allowed for the read-only login"),
                            mode + " reader " + function + ": " + e.getMessage());
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} / {1}")
    @CsvSource(delimiter = '|', value = {
        "pg_settings|SELECT name, setting FROM pg_show_all_settings()",
        "pg_stat_user_tables|SELECT pg_stat_get_live_tuples(g::oid) FROM generate_series(1, 100000) g",
        "pg_locks|SELECT * FROM pg_lock_status()",
        "pg_stat_activity|SELECT * FROM pg_stat_get_activity(NULL)",
        "pg_replication_slots|SELECT * FROM pg_get_replication_slots()",
        "pg_timezone_names|SELECT * FROM pg_timezone_names()",
    })
    void aFilteredViewRunsAndTheFunctionItIsBuiltOnStaysRefused(String view, String function) throws Exception {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connectInMode("analyst", mode); Statement s = c.createStatement()) {
                s.execute("SELECT * FROM " + view);
                SQLException e = assertThrows(SQLException.class, () -> s.execute(function), function);
                assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState(),
                        mode + " " + function + ": " + e.getMessage());
            }
        }
    }

    /**
     * A relation's statistics function is a gated catalog function (design 3.2): it runs on a selected relation,
     * and a relation outside the selection is absent.
     */
    @org.junit.jupiter.api.Test
    void aRelationsStatisticsFunctionRunsOnASelectedRelationOnly() throws Exception {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_get_live_tuples('public.orders'::regclass)");
            SQLException e = assertThrows(SQLException.class,
                    () -> s.execute("SELECT pg_stat_get_live_tuples('pg_catalog.pg_statistic'::regclass)"));
            assertTrue(e.getMessage().contains("is not allowed while a table selection is set")
                    || e.getMessage().contains("does not exist"), e.getMessage());
        }
    }

    /** Views of later releases: on a release before them, the function does not exist and cannot run either. */
    @org.junit.jupiter.api.Test
    void theSameForTheViewsOfLaterReleases() throws Exception {
        for (String[] c : List.of(new String[] {"15", "pg_ident_file_mappings", "SELECT * FROM pg_ident_file_mappings()"},
                new String[] {"17", "pg_wait_events", "SELECT * FROM pg_get_wait_events()"})) {
            if (serverMajor >= Integer.parseInt(c[0])) {
                aSelectionRefusesTheViewAndTheFunctionItIsBuiltOn(c[1], c[2]);
            } else {
                try (Connection conn = proxy.connect("analyst"); Statement s = conn.createStatement()) {
                    SQLException e = assertThrows(SQLException.class, () -> s.execute(c[2]), c[2]);
                    // PostgreSQL does not know it (42883), or the deny-list of every read-only login names it.
                    assertTrue(List.of("42883", SqlState.INSUFFICIENT_PRIVILEGE).contains(e.getSQLState()),
                            c[2] + ": " + e.getMessage());
                }
            }
        }
    }
}
