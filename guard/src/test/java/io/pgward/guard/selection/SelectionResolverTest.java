package io.pgward.guard.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
class SelectionResolverTest {

    private final TestDatabase database;

    SelectionResolverTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    static void fixtures(TestDatabase database) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE SCHEMA "Sales 2026";
                    CREATE TABLE "Sales 2026".daily (day date, "Amount" numeric);
                    CREATE TABLE hr."Salaries" (id int);
                    CREATE TABLE public.recreated (a int, b text);
                    CREATE SEQUENCE public.not_a_table""");
        }
    }

    private ResolvedSelection resolve(String... names) throws SQLException {
        try (Connection connection = database.connect()) {
            return SelectionResolver.resolve(connection, SelectedNames.parse("tables", List.of(names)));
        }
    }

    @Test
    void resolvesInListOrderWithKindsDisplayNamesAndColumns() throws SQLException {
        ResolvedSelection resolved = resolve("public.v_sales", "\"Sales 2026\".daily", "Public.Orders",
                "public.mv_region_revenue");
        assertTrue(resolved.isSet());
        assertFalse(resolved.noneExists());
        assertEquals(List.of("public.v_sales", "\"Sales 2026\".daily", "public.orders", "public.mv_region_revenue"),
                resolved.relations().stream().map(SelectedRelation::displayName).toList());
        assertEquals(List.of(RelationKind.VIEW, RelationKind.TABLE, RelationKind.TABLE,
                RelationKind.MATERIALIZED_VIEW), resolved.relations().stream().map(SelectedRelation::kind).toList());
        SelectedRelation daily = resolved.relations().get(1);
        assertEquals("Sales 2026", daily.schema());
        assertEquals("daily", daily.name());
        assertEquals(List.of("day", "\"Amount\""), daily.columns());
        assertEquals(List.of("id", "customer_id", "status", "ordered_at", "shipped_at", "total"),
                resolved.relations().get(2).columns());
    }

    @Test
    void quotedCaseMustMatchExactly() throws SQLException {
        ResolvedSelection resolved = resolve("hr.\"Salaries\"", "hr.Salaries", "\"HR\".salaries", "hr.\"salaries\"");
        assertEquals(List.of("hr.\"Salaries\"", "hr.salaries"),
                resolved.relations().stream().map(SelectedRelation::displayName).toList());
        assertEquals(List.of("\"HR\".salaries"), resolved.missing());
    }

    @Test
    void missingNamesAndNonRelationsAreLeftOut() throws SQLException {
        ResolvedSelection resolved = resolve("public.nope", "public.orders", "nowhere.orders", "public.not_a_table",
                "public.orders_pkey");
        assertEquals(List.of("public.orders"),
                resolved.relations().stream().map(SelectedRelation::displayName).toList());
        assertEquals(List.of("public.nope", "nowhere.orders", "public.not_a_table", "public.orders_pkey"),
                resolved.missing());
        assertFalse(resolved.noneExists());
    }

    @Test
    void aNameListedTwiceIsSelectedOnce() throws SQLException {
        ResolvedSelection resolved = resolve("public.orders", "PUBLIC.orders");
        assertEquals(1, resolved.relations().size());
    }

    @Test
    void noneExistsWhenNoNameResolves() throws SQLException {
        ResolvedSelection resolved = resolve("public.nope", "hr.\"SALARIES\"");
        assertTrue(resolved.noneExists());
        assertTrue(resolved.isSet());
        assertTrue(resolved.relations().isEmpty());
        assertEquals("None of the selected tables or views exist any more.", ResolvedSelection.NONE_EXISTS_MESSAGE);
    }

    @Test
    void emptySelectionIsNoSelection() throws SQLException {
        ResolvedSelection resolved = resolve();
        assertEquals(ResolvedSelection.NONE, resolved);
        assertFalse(resolved.isSet());
    }

    @Test
    void droppedAndRecreatedTableIsFoundAgainAfterRefresh() throws SQLException {
        org.postgresql.ds.PGSimpleDataSource dataSource = new org.postgresql.ds.PGSimpleDataSource();
        dataSource.setUrl(database.jdbcUrl());
        dataSource.setUser(database.user());
        dataSource.setPassword(database.password());
        LiveSelection live = LiveSelection.resolve(dataSource,
                SelectedNames.parse("tables", List.of("public.recreated", "public.orders")));
        long before = live.current().relations().getFirst().oid();
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE public.recreated");
        }
        ResolvedSelection gone = live.refresh(dataSource);
        assertEquals(List.of("public.orders"), gone.relations().stream().map(SelectedRelation::displayName).toList());
        assertEquals(List.of("public.recreated"), gone.missing());
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE public.recreated (a int, c text, d date)");
        }
        ResolvedSelection back = live.refresh(dataSource);
        assertEquals(back, live.current());
        SelectedRelation recreated = back.relations().getFirst();
        assertEquals("public.recreated", recreated.displayName());
        assertNotEquals(before, recreated.oid());
        assertEquals(List.of("a", "c", "d"), recreated.columns());
    }
}
