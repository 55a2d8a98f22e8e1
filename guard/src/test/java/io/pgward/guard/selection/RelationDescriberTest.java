package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.SqlStates;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

@PostgresTest(sampleData = SampleData.SMALL)
class RelationDescriberTest {

    private static final List<String> SHOP = List.of("public.orders", "public.customers", "public.order_items",
            "public.products", "public.v_sales", "public.mv_region_revenue", "public.sampling", "public.quoted_sampling",
            "public.wide", "public.slow_view", "public.writing_view", "public.long_view", "public.remote_stock");

    private final TestDatabase database;
    private final RelationDescriber describer = new RelationDescriber(RiskyDomains.CATALOG_DEPENDENCIES);

    RelationDescriberTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    static void fixtures(TestDatabase database) throws SQLException {
        StringBuilder longColumns = new StringBuilder("1 AS c0");
        for (int i = 1; i < 300; i++) {
            longColumns.append(", ").append(i).append(" AS long_column_name_").append(i);
        }
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE TABLE public.sampling (
                        id int PRIMARY KEY, code char(4), label varchar(20), state order_status, ten text,
                        eleven text, forty text, forty_one text, late text, nulls_only text, "Mixed Case" text,
                        num int);
                    INSERT INTO public.sampling
                    SELECT n, CASE WHEN n % 2 = 0 THEN 'ab' ELSE 'cd' END, ' padded ', 'paid', 't' || (n % 10),
                           'e' || (n % 11), repeat('x', 40), CASE WHEN n = 500 THEN repeat('y', 41) ELSE 'short' END,
                           'early', NULL, 'M', n
                    FROM generate_series(1, 1000) AS n;
                    INSERT INTO public.sampling (id, late) SELECT n, 'late' || n FROM generate_series(1001, 1020) AS n;
                    CREATE TABLE public.quoted_sampling ("Mixed Case" text, nulls_only text, "quote""d" text);
                    INSERT INTO public.quoted_sampling VALUES ('M', NULL, 'say "hi"\\'), ('N', NULL, NULL);
                    CREATE TABLE public.wide (c1 text, c2 text, c3 text, c4 text, c5 text, c6 text, c7 text, c8 text,
                        c9 text, c10 text);
                    INSERT INTO public.wide VALUES ('1', '2', '3', '4', '5', '6', '7', '8', '9', '10');
                    CREATE FUNCTION public.slow_text(t text) RETURNS text LANGUAGE plpgsql STABLE
                        AS $$ BEGIN PERFORM pg_sleep(0.5); RETURN t; END $$;
                    CREATE VIEW public.slow_view AS
                        SELECT public.slow_text(s) AS slow, s AS fast FROM (VALUES ('a'), ('b'), ('c')) AS v(s);
                    CREATE TABLE public.write_log (n int);
                    CREATE FUNCTION public.writes() RETURNS text LANGUAGE plpgsql VOLATILE
                        AS $$ BEGIN INSERT INTO public.write_log VALUES (1); RETURN 'w'; END $$;
                    CREATE VIEW public.writing_view AS SELECT public.writes() AS w, 'r'::text AS r;
                    CREATE FOREIGN DATA WRAPPER pgward_describe_fdw;
                    CREATE SERVER pgward_describe_server FOREIGN DATA WRAPPER pgward_describe_fdw;
                    CREATE FOREIGN TABLE public.remote_stock (sku text) SERVER pgward_describe_server;
                    CREATE TABLE hr.orders (id int);
                    CREATE SCHEMA "Sales 2026";
                    CREATE TABLE "Sales 2026".daily (day date, "Shop" text);
                    INSERT INTO "Sales 2026".daily VALUES ('2026-01-01', 'Berlin'), ('2026-01-02', 'Lyon');
                    """);
            statement.execute("CREATE VIEW public.long_view AS SELECT " + longColumns);
        }
    }

    private ResolvedSelection select(List<String> names) throws SQLException {
        try (Connection connection = database.connect()) {
            return SelectionResolver.resolve(connection, SelectedNames.parse("tables", names));
        }
    }

    private DescribeResult describe(ResolvedSelection selection, String name) throws SQLException {
        try (Connection connection = database.connect()) {
            DescribeResult outcome = describer.describe(connection, null, selection, name);
            assertAllRolledBack(connection);
            return outcome;
        }
    }

    private Description described(ResolvedSelection selection, String name) throws SQLException {
        return assertInstanceOf(DescribeResult.Described.class, describe(selection, name)).description();
    }

    private Description described(String name) throws SQLException {
        return described(select(SHOP), name);
    }

    static void assertAllRolledBack(Connection connection) throws SQLException {
        assertTrue(connection.getAutoCommit());
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("""
                     SELECT current_setting('transaction_read_only'), current_setting('statement_timeout'),
                            current_user = session_user,
                            (SELECT count(*) FROM pg_class WHERE relname = 'pgward_sample_check'),
                            (SELECT count(*) FROM public.write_log)""")) {
            row.next();
            assertEquals("off", row.getString(1));
            assertEquals("0", row.getString(2));
            assertTrue(row.getBoolean(3));
            assertEquals(0, row.getInt(4));
            assertEquals(0, row.getInt(5));
        }
    }

    @Test
    void describesATableWithEveryField() throws SQLException {
        Description orders = described("orders");
        assertEquals("public.orders", orders.name());
        assertEquals("table", orders.kind());
        assertEquals(Optional.of("One row per order placed by a customer."), orders.comment());
        assertEquals(List.of(
                "id integer not null",
                "customer_id integer not null",
                "status order_status not null -- Lifecycle state of the order.",
                "ordered_at timestamp with time zone not null",
                "shipped_at timestamp with time zone -- When the order left the warehouse; empty until shipped.",
                "total numeric(12,2) not null -- Sum of the order lines in USD."), orders.columns());
        assertEquals(List.of("id"), orders.primaryKey());
        assertEquals(List.of(
                "public.orders(customer_id) -> public.customers(id)",
                "public.order_items(order_id) -> public.orders(id)",
                "read by public.v_sales",
                "read by public.mv_region_revenue"), orders.relationships());
        assertEquals(Optional.empty(), orders.definition());
        assertEquals(Map.of("status", List.of("cancelled", "delivered", "paid", "pending", "refunded", "shipped")),
                orders.values());
    }

    @Test
    void rowsReadWellInPsql() throws SQLException {
        LocalRows rows = described("public.order_items").toRows();
        assertEquals(List.of("field", "value"), rows.columns());
        assertEquals(List.of(
                List.of("name", "public.order_items"),
                List.of("kind", "table"),
                List.of("comment", "The lines of each order."),
                List.of("columns", "order_id integer not null"),
                List.of("columns", "line_no smallint not null"),
                List.of("columns", "product_id integer not null"),
                List.of("columns", "quantity integer not null"),
                List.of("columns", "unit_price numeric(10,2) not null -- Price per unit in USD when the order was placed."),
                List.of("primaryKey", "order_id, line_no"),
                List.of("relationships", "public.order_items(order_id) -> public.orders(id)"),
                List.of("relationships", "public.order_items(product_id) -> public.products(id)"),
                List.of("relationships", "read by public.v_sales")), rows.rows());
    }

    @Test
    void foreignKeysToRelationsOutsideTheSelectionAreLeftOut() throws SQLException {
        Description customers = described(select(List.of("public.customers", "public.payment_tokens")), "customers");
        assertEquals(List.of("public.payment_tokens(customer_id) -> public.customers(id)"), customers.relationships());
        Description alone = described(select(List.of("public.customers")), "customers");
        assertEquals(List.of(), alone.relationships());
    }

    @Test
    void describesAViewWithDefinitionReadsAndSamples() throws SQLException {
        Description sales = described("public.v_sales");
        assertEquals("view", sales.kind());
        assertEquals(List.of("reads public.orders", "reads public.customers", "reads public.order_items",
                "reads public.products"), sales.relationships());
        assertEquals(Optional.of(viewdef("public.v_sales")), sales.definition());
        assertEquals(List.of("status", "region", "category"), List.copyOf(sales.values().keySet()));
        assertEquals(List.of("Asia Pacific", "Europe", "Latin America", "Middle East & Africa", "North America"),
                sales.values().get("region"));
        assertTrue(sales.columns().contains("amount numeric"), sales.columns().toString());

        Description revenue = described("mv_region_revenue");
        assertEquals("materialized view", revenue.kind());
        assertEquals(List.of("reads public.orders", "reads public.customers"), revenue.relationships());
        assertEquals(Optional.of(viewdef("public.mv_region_revenue")), revenue.definition());
    }

    @Test
    void definitionIsCutAtFourThousandCharacters() throws SQLException {
        String full = viewdef("public.long_view");
        assertTrue(full.length() > 4000);
        assertEquals(Optional.of(full.substring(0, 4000)), described("long_view").definition());
    }

    @Test
    void samplesFollowEveryRule() throws SQLException {
        Map<String, List<String>> expected = new LinkedHashMap<>();
        expected.put("code", List.of("ab", "cd"));
        expected.put("label", List.of(" padded "));
        expected.put("state", List.of("paid"));
        expected.put("ten", List.of("t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"));
        expected.put("forty", List.of("x".repeat(40)));
        expected.put("late", List.of("early"));
        // eleven: 11 values; forty_one: one value of 41 characters; nulls_only and "Mixed Case" are the 9th and
        // 10th qualifying columns; id and num are integers.
        assertEquals(expected, described("sampling").values());
    }

    @Test
    void sampleKeysAreQuotedColumnNamesAndAnEmptySampleIsKept() throws SQLException {
        Description quoted = described("quoted_sampling");
        Map<String, List<String>> expected = new LinkedHashMap<>();
        expected.put("\"Mixed Case\"", List.of("M", "N"));
        expected.put("nulls_only", List.of());
        expected.put("\"quote\"\"d\"", List.of("say \"hi\"\\"));
        assertEquals(expected, quoted.values());
        assertTrue(quoted.toRows().rows().contains(List.of("values", "\"quote\"\"d\": [\"say \\\"hi\\\"\\\\\"]")),
                quoted.toRows().toString());
    }

    @Test
    void quotedSchemaAndColumnNamesWork() throws SQLException {
        Description daily = described(select(List.of("\"Sales 2026\".daily")), "\"Sales 2026\".daily");
        assertEquals("\"Sales 2026\".daily", daily.name());
        assertEquals(List.of("day date", "\"Shop\" text"), daily.columns());
        assertEquals(Map.of("\"Shop\"", List.of("Berlin", "Lyon")), daily.values());
    }

    @Test
    void atMostEightColumnsAreSampled() throws SQLException {
        assertEquals(List.of("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"),
                List.copyOf(described("wide").values().keySet()));
    }

    @Test
    void aSampleThatTimesOutSkipsOnlyThatColumn() throws SQLException {
        long start = System.nanoTime();
        assertEquals(Map.of("fast", List.of("a", "b", "c")), described("slow_view").values());
        assertTrue(System.nanoTime() - start < 5_000_000_000L);
    }

    @Test
    void samplesRunReadOnly() throws SQLException {
        // PostgreSQL evaluates the view's volatile column for every sample, and the INSERT in it fails only
        // because the transaction is read only by then; read-write, both columns would have a sample.
        assertEquals(Map.of(), described("writing_view").values());
    }

    @Test
    void foreignTablesAreNotSampled() throws SQLException {
        Description remote = described("remote_stock");
        assertEquals("foreign table", remote.kind());
        assertEquals(List.of("sku text"), remote.columns());
        assertEquals(Map.of(), remote.values());
    }

    @Test
    void startsReadWriteEvenWhenTransactionsDefaultToReadOnly() throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("SET default_transaction_read_only = on");
            DescribeResult outcome = describer.describe(connection, null, select(SHOP), "orders");
            assertEquals(List.of("status"), List.copyOf(assertInstanceOf(DescribeResult.Described.class, outcome)
                    .description().values().keySet()));
        }
    }

    @Test
    void aRiskyDomainLeavesValuesOut() throws SQLException {
        RelationDescriber risky = new RelationDescriber(connection -> List.of("public.risky"));
        try (Connection connection = database.connect()) {
            DescribeResult outcome = risky.describe(connection, null, select(SHOP), "orders");
            Description orders = assertInstanceOf(DescribeResult.Described.class, outcome).description();
            assertEquals(Map.of(), orders.values());
            assertEquals(6, orders.columns().size());
            assertAllRolledBack(connection);
        }
    }

    @Test
    void defaultRiskyDomainCheckFindsChecksThatCallUserOrVolatileFunctions() throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            assertEquals(List.of(), RiskyDomains.CATALOG_DEPENDENCIES.find(connection));
            statement.execute("""
                    CREATE FUNCTION public.is_ok(text) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true';
                    CREATE DOMAIN public.user_check AS text CHECK (public.is_ok(VALUE));
                    CREATE DOMAIN public.volatile_check AS double precision CHECK (VALUE < random() + 2);
                    CREATE DOMAIN public.built_in_check AS text CHECK (length(VALUE) < 5 AND VALUE <> 'x')""");
            assertEquals(List.of("user_check", "volatile_check"), RiskyDomains.CATALOG_DEPENDENCIES.find(connection));
            connection.rollback();
        }
    }

    @Test
    void nameNotSelectedGetsTheChoices() throws SQLException {
        ResolvedSelection selection = select(List.of("public.orders", "public.customers"));
        for (String name : List.of("payment_tokens", "hr.salaries", "\"Orders\"", "public.\"ORDERS\"", "not a name")) {
            assertEquals(DescribeResult.Refused.of(SqlStates.UNDEFINED_TABLE, name
                    + " is not one of the selected tables or views. Choose one of: public.orders, public.customers."),
                    describe(selection, name));
        }
    }

    @Test
    void bareNameSharedBySelectedRelationsIsAmbiguous() throws SQLException {
        ResolvedSelection selection = select(List.of("public.orders", "hr.orders"));
        assertEquals(DescribeResult.Refused.of(SqlStates.AMBIGUOUS_ALIAS, "orders is ambiguous: it matches "
                + "public.orders, hr.orders. Call describe again with the schema-qualified name."),
                describe(selection, "orders"));
        assertEquals(List.of("id integer"), described(selection, "hr.orders").columns());
        assertEquals("public.orders", described(selection, "PUBLIC.Orders").name());
    }

    @Test
    void withoutSelectionAnyReadableRelationCanBeDescribed() throws SQLException {
        Description salaries = described(ResolvedSelection.NONE, "salaries");
        assertEquals("hr.salaries", salaries.name());
        assertEquals(List.of("full_name", "department"), List.copyOf(salaries.values().keySet()));
        assertEquals(List.of("public.payment_tokens(customer_id) -> public.customers(id)"),
                described(ResolvedSelection.NONE, "payment_tokens").relationships());
        assertEquals(DescribeResult.Refused.of(SqlStates.UNDEFINED_TABLE,
                "nope is not a table or view this login can read."), describe(ResolvedSelection.NONE, "nope"));
        assertEquals(DescribeResult.Refused.of(SqlStates.AMBIGUOUS_ALIAS, "orders is ambiguous: it matches "
                + "hr.orders, public.orders. Call describe again with the schema-qualified name."),
                describe(ResolvedSelection.NONE, "orders"));
    }

    @Test
    void noneExistsIsRefused() throws SQLException {
        assertEquals(DescribeResult.Refused.of(SqlStates.INSUFFICIENT_PRIVILEGE,
                "None of the selected tables or views exist any more."),
                describe(select(List.of("public.gone")), "gone"));
    }

    private String viewdef(String name) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT pg_get_viewdef('" + name + "'::regclass)")) {
            row.next();
            return row.getString(1);
        }
    }
}
