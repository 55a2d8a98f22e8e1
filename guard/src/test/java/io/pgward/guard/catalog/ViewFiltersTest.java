package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The text of a view filter: what ViewFilterProof reads back (FilteredViewsPostgresTest proves it on PostgreSQL). */
class ViewFiltersTest {

    private static final List<ViewColumns.Column> COLUMNS = List.of(
            new ViewColumns.Column("table_catalog", 1, "information_schema.sql_identifier", false),
            new ViewColumns.Column("table_schema", 2, "information_schema.sql_identifier", false),
            new ViewColumns.Column("table_name", 3, "information_schema.sql_identifier", false));

    private static SortedMap<String, SortedSet<String>> names(String... schemaAndNames) {
        SortedMap<String, SortedSet<String>> map = new TreeMap<>();
        for (int i = 0; i < schemaAndNames.length; i += 2) {
            map.computeIfAbsent(schemaAndNames[i], k -> new TreeSet<>()).add(schemaAndNames[i + 1]);
        }
        return map;
    }

    private static String condition(List<ViewFilters.Conjunct> conjuncts) {
        return new ViewFilters.Filter(FilteredView.IS_TABLES, 1, COLUMNS, conjuncts).condition();
    }

    @Test
    void aPairKeyIsWrittenPerSchemaNeverAsTwoIndependentLists() {
        List<ViewFilters.Conjunct> one = ViewFilters.pairs(2, 3, names("public", "orders", "public", "customers"));
        assertEquals("(\"table_schema\" OPERATOR(pg_catalog.=) E'public'::pg_catalog.name) AND (\"table_name\" "
                + "OPERATOR(pg_catalog.=) ANY (E'{\"customers\",\"orders\"}'::pg_catalog.name[]))", condition(one));
        List<ViewFilters.Conjunct> two = ViewFilters.pairs(2, 3, names("public", "orders", "sales", "orders"));
        ViewFilters.AnyGroup groups = assertInstanceOf(ViewFilters.AnyGroup.class, two.getFirst());
        assertEquals(2, groups.groups().size());
        assertEquals("((\"table_schema\" OPERATOR(pg_catalog.=) E'public'::pg_catalog.name AND \"table_name\" "
                + "OPERATOR(pg_catalog.=) ANY (E'{\"orders\"}'::pg_catalog.name[])) OR (\"table_schema\" "
                + "OPERATOR(pg_catalog.=) E'sales'::pg_catalog.name AND \"table_name\" OPERATOR(pg_catalog.=) "
                + "ANY (E'{\"orders\"}'::pg_catalog.name[])))", condition(two));
        List<ViewFilters.Conjunct> none = ViewFilters.pairs(2, 3, names());
        assertEquals(List.of(new ViewFilters.In(3, ViewFilters.ElementType.NAME, Set.of())), none);
        assertEquals("(\"table_name\" OPERATOR(pg_catalog.=) ANY (E'{}'::pg_catalog.name[]))", condition(none));
    }

    @Test
    void namesAreQuotedForTheArrayAndEscapedForTheString() {
        assertEquals("{\"a\\\\b\",\"we\\\"ird, {x}\"}", ViewFilters.arrayLiteral(Set.of("we\"ird, {x}", "a\\b")));
        assertEquals("E'it''s \\\\ here'", ViewFilters.literal("it's \\ here"));
        String masked = new ViewFilters.Filter(FilteredView.IS_VIEWS, 1, List.of(
                new ViewColumns.Column("table_name", 1, "information_schema.sql_identifier", false),
                new ViewColumns.Column("view_definition", 2, "information_schema.character_data", false)),
                List.of(new ViewFilters.In(1, ViewFilters.ElementType.NAME, Set.of("v")))).subquery(Set.of(), false);
        assertTrue(masked.startsWith("(SELECT \"table_name\", NULL::information_schema.character_data AS "
                + "\"view_definition\" FROM information_schema.views WHERE "), masked);
        assertTrue(masked.endsWith(" OFFSET 0)"), masked);
    }

    @Test
    void sessionKeysAndAWholeViewAreWrittenAsTheProofReadsThem() {
        List<ViewColumns.Column> columns = List.of(new ViewColumns.Column("relation", 1, "pg_catalog.oid", false),
                new ViewColumns.Column("objid", 2, "pg_catalog.oid", false),
                new ViewColumns.Column("pid", 3, "pg_catalog.int4", false));
        ViewFilters.Filter locks = new ViewFilters.Filter(FilteredView.PG_LOCKS, 1, columns, List.of(
                new ViewFilters.OwnBackend(3), new ViewFilters.AnyGroup(Set.of(Set.of(new ViewFilters.IsNull(1)),
                        Set.of(new ViewFilters.In(1, ViewFilters.ElementType.OID, Set.of("16400"))))),
                new ViewFilters.IsNull(2)));
        assertEquals("(\"pid\" OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()) AND ((\"relation\" IS NULL) OR "
                + "(\"relation\" OPERATOR(pg_catalog.=) ANY (E'{\"16400\"}'::pg_catalog.oid[]))) AND (\"objid\" IS NULL)",
                locks.condition());
        String whole = new ViewFilters.Filter(FilteredView.PG_TIMEZONE_NAMES, 2, List.of(
                new ViewColumns.Column("name", 1, "pg_catalog.text", false)), List.of()).subquery(Set.of(), false);
        assertEquals("(SELECT \"name\" FROM pg_catalog.pg_timezone_names OFFSET 0)", whole);
    }

    @Test
    void aPolicyKeyIsWrittenPerTableNeverAsIndependentLists() {
        SortedMap<String, SortedMap<String, SortedSet<String>>> policies = new TreeMap<>();
        policies.computeIfAbsent("public", k -> new TreeMap<>()).put("orders", new TreeSet<>(Set.of("p1", "p2")));
        List<ViewFilters.Conjunct> one = ViewFilters.triples(1, 2, 3, policies);
        assertEquals("(\"table_catalog\" OPERATOR(pg_catalog.=) E'public'::pg_catalog.name) AND (\"table_schema\" "
                + "OPERATOR(pg_catalog.=) E'orders'::pg_catalog.name) AND (\"table_name\" OPERATOR(pg_catalog.=) "
                + "ANY (E'{\"p1\",\"p2\"}'::pg_catalog.name[]))", condition(one));
        policies.get("public").put("customers", new TreeSet<>(Set.of("p1")));
        List<ViewFilters.Conjunct> two = ViewFilters.triples(1, 2, 3, policies);
        ViewFilters.AnyGroup groups = assertInstanceOf(ViewFilters.AnyGroup.class, two.getFirst());
        assertEquals(2, groups.groups().size());
        // The schema before the table in each group, whatever the set's order: the same text in every run.
        assertEquals("((\"table_catalog\" OPERATOR(pg_catalog.=) E'public'::pg_catalog.name AND \"table_schema\" "
                + "OPERATOR(pg_catalog.=) E'customers'::pg_catalog.name AND \"table_name\" OPERATOR(pg_catalog.=) "
                + "ANY (E'{\"p1\"}'::pg_catalog.name[])) OR (\"table_catalog\" OPERATOR(pg_catalog.=) "
                + "E'public'::pg_catalog.name AND \"table_schema\" OPERATOR(pg_catalog.=) E'orders'::pg_catalog.name "
                + "AND \"table_name\" OPERATOR(pg_catalog.=) ANY (E'{\"p1\",\"p2\"}'::pg_catalog.name[])))",
                condition(two));
        assertEquals(List.of(new ViewFilters.In(3, ViewFilters.ElementType.NAME, Set.of())),
                ViewFilters.triples(1, 2, 3, new TreeMap<>()));
    }

    @Test
    void anArrayLiteralSpellsItsElementsAsNames() {
        assertEquals(List.of("int", "hr.grade", "a,b", "x\"y"),
                GatedUses.names("{int, hr.grade,\"a,b\",\"x\\\"y\"}"));
        assertEquals(List.of("hr.salaries"), GatedUses.names("hr.salaries"));
        assertEquals(List.of("{"), GatedUses.names("{"));
    }
}
