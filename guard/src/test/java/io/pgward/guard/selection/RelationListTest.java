package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

@PostgresTest(sampleData = SampleData.SMALL)
class RelationListTest {

    static final String READER = "pgward_relation_list_reader";

    private final TestDatabase database;

    RelationListTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    static void fixtures(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE SCHEMA "Sales 2026";
                    CREATE TABLE "Sales 2026".daily (day date, amount numeric);
                    COMMENT ON TABLE "Sales 2026".daily IS 'Sales per day';
                    CREATE TABLE public.single (x int);
                    CREATE TABLE public.events (id int, at date) PARTITION BY RANGE (at);
                    CREATE TABLE public.events_2025 PARTITION OF public.events
                        FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
                    CREATE TABLE public.events_2026 PARTITION OF public.events
                        FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
                    CREATE FOREIGN DATA WRAPPER pgward_list_fdw;
                    CREATE SERVER pgward_list_server FOREIGN DATA WRAPPER pgward_list_fdw;
                    CREATE FOREIGN TABLE public.remote_stock (sku text) SERVER pgward_list_server;
                    CREATE TABLE public.dropped_column (a int, b int);
                    ALTER TABLE public.dropped_column DROP COLUMN b;
                    CREATE TEMPORARY TABLE session_scratch (a int);
                    DO $$ BEGIN CREATE ROLE %1$s; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
                    GRANT SELECT ON public.orders, public.v_sales TO %1$s;
                    GRANT SELECT (id, name) ON public.products TO %1$s;
                    """.formatted(READER));
        }
    }

    private LocalRows list(String role, ResolvedSelection selection) throws SQLException {
        try (Connection connection = database.connect()) {
            LocalRows rows = RelationList.list(connection, role, selection);
            assertTrue(connection.getAutoCommit());
            return rows;
        }
    }

    private ResolvedSelection select(String... names) throws SQLException {
        try (Connection connection = database.connect()) {
            return SelectionResolver.resolve(connection, SelectedNames.parse("tables", List.of(names)));
        }
    }

    @Test
    void listsEveryReadableRelationMaterializedViewsFirstThenViewsThenTables() throws SQLException {
        LocalRows rows = list(null, ResolvedSelection.NONE);
        assertEquals(List.of("name", "kind", "description"), rows.columns());
        assertEquals(List.of(
                List.of("public.mv_region_revenue", "materialized view", "materialized view · 4 columns · Monthly"
                        + " revenue and order count per region, excluding cancelled and refunded orders."),
                List.of("public.v_sales", "view", "view · 12 columns · One row per order line with its customer and"
                        + " product: the analysts' main view."),
                List.of("\"Sales 2026\".daily", "table", "table · 2 columns · Sales per day"),
                List.of("hr.salaries", "table", "table · 6 columns · SENSITIVE: employee pay. Never for analysts."),
                List.of("public.customers", "table", "table · 7 columns · People and companies who buy from the shop."),
                List.of("public.dropped_column", "table", "table · 1 column"),
                List.of("public.events", "table", "table · 2 columns"),
                List.of("public.order_items", "table", "table · 5 columns · The lines of each order."),
                List.of("public.orders", "table", "table · 6 columns · One row per order placed by a customer."),
                List.of("public.payment_tokens", "table",
                        "table · 6 columns · SENSITIVE: card payment tokens. Never for analysts."),
                List.of("public.products", "table", "table · 6 columns · The catalogue: everything the shop sells."),
                List.of("public.remote_stock", "foreign table", "foreign table · 1 column"),
                List.of("public.single", "table", "table · 1 column")), rows.rows());
    }

    @Test
    void listsOnlyWhatTheRoleCanSelectIncludingColumnGrants() throws SQLException {
        assertEquals(List.of("public.v_sales", "public.orders", "public.products"), names(list(READER,
                ResolvedSelection.NONE)));
    }

    @Test
    void withASelectionListsOnlySelectedRelationsThatExist() throws SQLException {
        ResolvedSelection selection = select("public.orders", "hr.salaries", "public.gone", "public.v_sales",
                "public.events_2025");
        assertEquals(List.of("public.v_sales", "hr.salaries", "public.events_2025", "public.orders"),
                names(list(null, selection)));
        assertEquals(List.of("public.v_sales", "public.orders"), names(list(READER, selection)));
    }

    @Test
    void noneExistsListsNothing() throws SQLException {
        assertEquals(List.of(), list(null, select("public.gone")).rows());
    }

    private static List<String> names(LocalRows rows) {
        return rows.rows().stream().map(List::getFirst).toList();
    }
}
