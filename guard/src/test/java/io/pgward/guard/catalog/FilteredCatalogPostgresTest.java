package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.selection.VisibleCatalog;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The filtered catalog of the guard corpus's selection (orders, customers, v_sales, mv_region) on a real PostgreSQL
 * (run on 14 to 18 with -Dpg.version): what the rewritten statements return when PostgreSQL runs them, and what L3
 * accepts. The hidden relations are secrets, v_leak, hr.salaries and {@code hr.wide}, a table of 61 columns that no
 * visible or built-in relation matches, which the leak probes look for.
 */
@PostgresTest
class FilteredCatalogPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final int WIDE = 61;

    /** psql 15's {@code \dt}. */
    private static final String PSQL_DT = """
            SELECT n.nspname as "Schema",
              c.relname as "Name",
              CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
              pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
            FROM pg_catalog.pg_class c
                 LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                 LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
            WHERE c.relkind IN ('r','p','')
                  AND n.nspname <> 'pg_catalog'
                  AND n.nspname !~ '^pg_toast'
                  AND n.nspname <> 'information_schema'
              AND pg_catalog.pg_table_is_visible(c.oid)
            ORDER BY 1,2""";

    /** pgjdbc 42.7's DatabaseMetaData.getTables(null, null, "%", {TABLE, VIEW, MATERIALIZED VIEW}). */
    private static final String PGJDBC_GET_TABLES = "SELECT current_database() AS \"TABLE_CAT\", n.nspname AS "
            + "\"TABLE_SCHEM\", c.relname AS \"TABLE_NAME\",  CASE n.nspname ~ '^pg_' OR n.nspname = "
            + "'information_schema'  WHEN true THEN CASE  WHEN n.nspname = 'pg_catalog' OR n.nspname = "
            + "'information_schema' THEN CASE c.relkind   WHEN 'r' THEN 'SYSTEM TABLE'   WHEN 'v' THEN 'SYSTEM VIEW'   "
            + "WHEN 'i' THEN 'SYSTEM INDEX'   ELSE NULL   END  WHEN n.nspname = 'pg_toast' THEN CASE c.relkind   WHEN "
            + "'r' THEN 'SYSTEM TOAST TABLE'   WHEN 'i' THEN 'SYSTEM TOAST INDEX'   ELSE NULL   END  ELSE CASE "
            + "c.relkind   WHEN 'r' THEN 'TEMPORARY TABLE'   WHEN 'p' THEN 'TEMPORARY TABLE'   WHEN 'i' THEN "
            + "'TEMPORARY INDEX'   WHEN 'S' THEN 'TEMPORARY SEQUENCE'   WHEN 'v' THEN 'TEMPORARY VIEW'   ELSE NULL   "
            + "END  END  WHEN false THEN CASE c.relkind  WHEN 'r' THEN 'TABLE'  WHEN 'p' THEN 'PARTITIONED TABLE'  "
            + "WHEN 'i' THEN 'INDEX'  WHEN 'P' then 'PARTITIONED INDEX'  WHEN 'S' THEN 'SEQUENCE'  WHEN 'v' THEN "
            + "'VIEW'  WHEN 'c' THEN 'TYPE'  WHEN 'f' THEN 'FOREIGN TABLE'  WHEN 'm' THEN 'MATERIALIZED VIEW'  ELSE "
            + "NULL  END  ELSE NULL  END  AS \"TABLE_TYPE\", d.description AS \"REMARKS\",  '' as \"TYPE_CAT\", '' "
            + "as \"TYPE_SCHEM\", '' as \"TYPE_NAME\", '' AS \"SELF_REFERENCING_COL_NAME\", '' AS \"REF_GENERATION\" "
            + " FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c  LEFT JOIN pg_catalog.pg_description d ON "
            + "(c.oid = d.objoid AND d.objsubid = 0  and d.classoid = 'pg_class'::regclass)  WHERE c.relnamespace = "
            + "n.oid  AND c.relname LIKE $1 AND (false  OR ( c.relkind = 'r' AND n.nspname !~ '^pg_' AND n.nspname "
            + "<> 'information_schema' )  OR ( c.relkind = 'v' AND n.nspname <> 'pg_catalog' AND n.nspname <> "
            + "'information_schema' )  OR ( c.relkind = 'm' ) )  ORDER BY \"TABLE_TYPE\",\"TABLE_SCHEM\","
            + "\"TABLE_NAME\" ";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;
    private static CatalogFilters filters;
    private static VisibleCatalog visibleCatalog;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE TABLE hr.wide (" + IntStream.rangeClosed(1, WIDE).mapToObj(i -> "c" + i + " int")
                    .collect(Collectors.joining(", ")) + ")");
            filters = filters(c);
            selection = GuardFixture.selection(c).withFilters(filters);
        }
        check = FilteredFixture.check(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static CatalogFilters filters(Connection c) throws SQLException {
        CatalogFilters read = FilteredFixture.filters(c, GuardFixture.SELECTED);
        visibleCatalog = read.visible();
        return read;
    }

    private static String rewrite(String sql) {
        return FilteredFixture.rewrite(sql, PATH, selection);
    }

    private static Verdict verdict(String sql) {
        return check.checkNow(CheckRequest.of(selection, null, PATH, sql));
    }

    /** Every row's first column, run directly as the database owner. */
    private static List<String> column(String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    private static void assertRefusedAsNotSelected(Verdict verdict) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict);
        assertEquals(CatalogRefusals.RELATION, refuse.rule(), refuse.message());
    }

    @Test
    void psqlListOfTablesShowsTheSelectedTablesOnly() throws SQLException {
        String rewritten = rewrite(PSQL_DT);
        assertEquals(List.of("customers", "orders"), columnAt(rewritten, 2));
        assertTrue(columnAt(PSQL_DT, 2).contains("secrets"), "the unfiltered statement sees the hidden table");
    }

    @Test
    void pgjdbcGetTablesListsTheSelectedRelationsOnly() throws SQLException {
        String rewritten = rewrite(PGJDBC_GET_TABLES);
        assertTrue(rewritten.contains("LIKE $1"), "parameters are kept");
        Set<String> names = new TreeSet<>();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("PREPARE get_tables (text) AS " + rewritten);
            try (ResultSet rs = s.executeQuery("EXECUTE get_tables('%')")) {
                while (rs.next()) {
                    names.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME"));
                }
            }
        }
        assertEquals(new TreeSet<>(GuardFixture.SELECTED), names);
    }

    @Test
    void namespacesHoldingNothingSelectedAreNotListed() throws SQLException {
        String sql = "SELECT nspname FROM pg_namespace";
        assertRefusedAsNotSelected(verdict(sql));
        String rewritten = rewrite(sql);
        assertEquals(Verdict.ALLOW, verdict(rewritten));
        List<String> names = column(rewritten);
        assertTrue(names.contains("public") && names.contains("pg_catalog"), names.toString());
        assertFalse(names.contains("hr"), names.toString());
    }

    @Test
    void builtInCatalogsStatisticsDoNotCountHiddenRows() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("ANALYZE");
        }
        String sql = "SELECT relname, relpages, reltuples, relallvisible FROM pg_class "
                + "WHERE relname IN ('pg_class', 'pg_type', 'orders') AND relnamespace IN ('pg_catalog'::regnamespace, 'public'::regnamespace) "
                + "ORDER BY relname";
        // Directly, pg_class's reltuples counts every relation, the hidden ones too ...
        assertTrue(Double.parseDouble(FilteredFixture.rows(db, sql).get(1).split("\\|")[2]) > 0);
        String rewritten = rewrite(sql);
        assertEquals(Verdict.ALLOW, verdict(rewritten));
        // ... through the filter a built-in catalog reads as never analysed, the selected table as it is.
        List<String> rows = FilteredFixture.rows(db, rewritten);
        assertEquals(List.of("pg_class|0|-1|0", "pg_type|0|-1|0"), rows.subList(1, 3), rows.toString());
        assertEquals(FilteredFixture.rows(db, sql).getFirst(), rows.getFirst(), "orders keeps its statistics");
    }

    @Test
    void l3AcceptsRewrittenStatementsOverEveryCoveredCatalog() {
        for (String sql : List.of(
                "SELECT c.relname, n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                        + "ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p')",
                "SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
                        + "WHERE a.attrelid = $1",
                "SELECT conname, contype FROM pg_constraint WHERE conrelid = 1",
                "SELECT i.indexrelid, x.adnum FROM pg_index i, pg_attrdef x",
                "SELECT inhrelid FROM pg_inherits UNION ALL SELECT enumtypid FROM pg_enum",
                "SELECT collname FROM pg_collation UNION SELECT amname FROM pg_am",
                "SELECT c.xmin, c.tableoid, c.ctid FROM pg_class c",
                "SELECT * FROM pg_class",
                "SELECT typname, typtype FROM pg_type WHERE oid = 23",
                "SELECT c FROM pg_class c")) {
            String rewritten = rewrite(sql);
            assertNotEquals(sql, rewritten);
            assertEquals(Verdict.ALLOW, verdict(rewritten), rewritten);
            assertRefusedAsNotSelected(verdict(sql));
        }
    }

    @Test
    void statementsCallingDeniedOrObjectIdentifierThingsStayRefused() {
        // pg_description is covered and 'pg_class'::regclass names a visible (built-in) relation: getTables runs.
        assertEquals(Verdict.ALLOW, verdict(rewrite(PGJDBC_GET_TABLES)));
        // A reg* column of a filter subquery is output only while every visible row names a visible object
        // (GatedFunctionsPostgresTest); a reg* value computed from it is not.
        assertEquals(Verdict.ALLOW, verdict(rewrite("SELECT typname, typinput FROM pg_type")));
        Verdict.Refuse regproc = assertInstanceOf(Verdict.Refuse.class,
                verdict(rewrite("SELECT typname, COALESCE(typinput, typoutput) FROM pg_type")));
        assertEquals(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, regproc.rule(), regproc.message());
    }

    @Test
    void aConditionOfTheStatementNeverRunsOnAHiddenRow() throws SQLException {
        String probe = "SELECT count(*) FROM pg_catalog.pg_class c WHERE 10 / (c.relnatts - " + WIDE + ") > -100";
        SQLException unfiltered = assertThrows(SQLException.class, () -> column(probe));
        assertTrue(unfiltered.getMessage().contains("division by zero"), unfiltered.getMessage());
        String rewritten = rewrite(probe);
        assertEquals(Verdict.ALLOW, verdict(rewritten));
        assertEquals(1, column(rewritten).size());
        String joined = "SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a "
                + "ON a.attrelid = c.oid AND 10 / (c.relnatts - " + WIDE + ") > -100";
        assertEquals(1, column(rewrite(joined)).size());
        String sublink = "SELECT 1 WHERE EXISTS (SELECT 1 FROM pg_class c WHERE 1 / (c.relnatts - " + WIDE
                + ") = 0)";
        assertEquals(Verdict.ALLOW, verdict(rewrite(sublink)));
        column(rewrite(sublink));
    }

    @Test
    void hiddenRelationsAreNeitherFoundNorCounted() throws SQLException {
        assertEquals(List.of(), column(rewrite("SELECT relname FROM pg_class WHERE relnatts = " + WIDE)));
        assertEquals(List.of(), column(rewrite("SELECT relname FROM pg_class WHERE relname IN "
                + "('secrets', 'salaries', 'wide', 'v_leak')")));
        assertEquals(List.of(), column(rewrite("SELECT attname FROM pg_attribute WHERE attname IN ('token', 'emp')")));
        String count = rewrite("SELECT count(*) FROM pg_class");
        String before = column(count).getFirst();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE hr.another (x int)");
            try {
                CatalogFilters after = filters(c);
                assertEquals(filters, after, "a hidden table changes no visible set");
                assertEquals(before, column(count).getFirst());
            } finally {
                s.execute("DROP TABLE hr.another");
            }
        }
    }

    @Test
    void aHandWrittenCopyOfTheFilterIsTheFilter() {
        CatalogFilters.Filter filter = filters.byName("pg_class");
        String exact = "SELECT relname FROM (SELECT relname FROM pg_catalog.pg_class WHERE "
                + filter.condition() + " OFFSET 0) x";
        assertEquals(Verdict.ALLOW, verdict(exact));
    }

    /** The proof rests on the OID array's value, so an allowed filter is never shared with other OIDs by shape. */
    @Test
    void anAllowedFilterIsNotSharedWithAnotherOidArrayOfTheSameShape() throws SQLException {
        CatalogFilters.Filter filter = filters.byName("pg_class");
        String hidden = column("SELECT 'hr.wide'::regclass::oid").getFirst();
        String visible = visibleCatalog.oids(VisibleCatalog.Catalog.PG_CLASS).arrayLiteral();
        String exact = "SELECT relname, relnatts FROM (SELECT relname, relnatts FROM pg_catalog.pg_class WHERE "
                + filter.condition() + " OFFSET 0) x";
        assertEquals(Verdict.ALLOW, verdict(exact));
        String withHidden = exact.replace("'" + visible + "'", "'" + visible.replace("}", "," + hidden + "}") + "'");
        assertNotEquals(exact, withHidden);
        assertRefusedAsNotSelected(verdict(withHidden));
    }

    @Test
    void aNearCopyOfTheFilterIsRefused() throws SQLException {
        CatalogFilters.Filter filter = filters.byName("pg_class");
        String hidden = column("SELECT 'hr.wide'::regclass::oid").getFirst();
        String visible = visibleCatalog.oids(VisibleCatalog.Catalog.PG_CLASS).arrayLiteral();
        String oneMore = filter.condition().replace("'" + visible + "'",
                "'" + visible.replace("}", "," + hidden + "}") + "'");
        assertNotEquals(filter.condition(), oneMore);
        for (String sql : List.of(
                "SELECT relname FROM (SELECT relname FROM pg_catalog.pg_class WHERE " + oneMore + " OFFSET 0) x",
                // the statement's own condition beside the filter
                "SELECT relname FROM (SELECT relname FROM pg_catalog.pg_class WHERE " + filter.condition()
                        + " AND 10 / (relnatts - " + WIDE + ") > 0 OFFSET 0) x",
                // the filter, weakened
                "SELECT relname FROM (SELECT relname FROM pg_catalog.pg_class WHERE " + filter.condition()
                        + " OR true OFFSET 0) x",
                // a computed column, an ACL column, a second relation
                "SELECT r FROM (SELECT 1 / (relnatts - " + WIDE + ") AS r FROM pg_catalog.pg_class WHERE "
                        + filter.condition() + " OFFSET 0) x",
                "SELECT relacl FROM (SELECT relacl FROM pg_catalog.pg_class WHERE " + filter.condition()
                        + " OFFSET 0) x",
                "SELECT 1 FROM (SELECT c.relname FROM pg_catalog.pg_class c, pg_catalog.pg_am WHERE "
                        + filter.condition().replace("\"oid\"", "c.oid") + " OFFSET 0) x",
                // the filter of one catalog on another
                "SELECT 1 FROM (SELECT nspname FROM pg_catalog.pg_namespace WHERE " + filter.condition()
                        + " OFFSET 0) x")) {
            assertRefusedAsNotSelected(verdict(sql));
        }
    }

    private static Served serve(String sql, String searchPath) {
        try {
            return check.serve(new CheckRequest(selection, null, searchPath, true, sql, List.of()),
                    SqlLexer.split(sql, true).getFirst()).toCompletableFuture().join();
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    /** A served statement's counts: catalog round trips and rewrites it cost. */
    private record Cost(long roundTrips, long rewrites) {
        static Cost of(Runnable serving) {
            long trips = check.catalogRoundTrips();
            long rewrites = check.catalogRewrites();
            serving.run();
            return new Cost(check.catalogRoundTrips() - trips, check.catalogRewrites() - rewrites);
        }
    }

    @Test
    void aCatalogStatementSeenBeforeCostsNeitherARewriteNorACheck() {
        String sql = "SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relkind = 'r' AND c.relname <> 'x1'";
        Served[] first = new Served[1];
        Cost firstCost = Cost.of(() -> first[0] = serve(sql, PATH));
        assertEquals(Verdict.ALLOW, first[0].verdict());
        assertNotEquals(sql, first[0].text());
        assertEquals(1, firstCost.rewrites());
        assertTrue(firstCost.roundTrips() >= 1, firstCost.toString());
        for (int i = 0; i < 3; i++) {
            Served[] again = new Served[1];
            assertEquals(new Cost(0, 0), Cost.of(() -> again[0] = serve(sql, PATH)));
            assertEquals(first[0], again[0]);
        }
        // Another search_path is another request; a schema change drops what was served.
        assertEquals(1, Cost.of(() -> serve(sql, "public")).rewrites());
        check.invalidate();
        Cost afterChange = Cost.of(() -> assertEquals(first[0], serve(sql, PATH)));
        assertEquals(1, afterChange.rewrites());
        assertTrue(afterChange.roundTrips() >= 1, afterChange.toString());
    }

    @Test
    void aRefusalServedBeforeIsAnsweredFromTheCacheWithTheClientsOwnText() {
        String sql = "SELECT c.relname, d.deptype FROM pg_catalog.pg_class c "
                + "JOIN pg_catalog.pg_shdepend d ON d.objid = c.oid WHERE c.relname <> 'x2'";
        Served first = serve(sql, PATH);
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, first.verdict());
        assertEquals(sql, first.text());
        assertTrue(refuse.message().contains("pg_catalog.pg_shdepend"), refuse.message());
        assertEquals(new Cost(0, 0), Cost.of(() -> assertEquals(first, serve(sql, PATH))));
        // A statement that reads no covered catalog is served as it is, and cached as well.
        String plain = "SELECT id FROM public.orders WHERE id <> 3";
        assertEquals(new Served(plain, Verdict.ALLOW), serve(plain, PATH));
        assertEquals(new Cost(0, 0), Cost.of(() -> serve(plain, PATH)));
    }

    /** A filter without the fence is the filter only for a statement whose conditions cannot observe a hidden row. */
    @Test
    void aHandWrittenUnfencedFilterIsProvenOnlyBesideQuietConditions() {
        CatalogFilters.Filter filter = filters.byName("pg_class");
        String unfenced = "SELECT relname FROM (SELECT relname, relnatts, relkind FROM pg_catalog.pg_class WHERE "
                + filter.condition() + ") x";
        assertEquals(Verdict.ALLOW, verdict(unfenced));
        assertEquals(Verdict.ALLOW, verdict(unfenced + " WHERE relkind = 'r' AND relname ~ '^(orders)$'"));
        for (String loud : List.of(" WHERE 10 / (relnatts - " + WIDE + ") > -100",
                " WHERE relnatts = " + WIDE + " AND relname ~ '('",
                " WHERE relname::text::int > 0")) {
            Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(unfenced + loud));
            assertEquals(CatalogRefusals.FENCE_NEEDED, refuse.rule(), loud);
            assertTrue(refuse.message().contains("pg_catalog.pg_class"), refuse.message());
        }
    }

    /** psql's and the drivers' conditions are quiet: their statements are served without the fence. */
    @Test
    void quietConditionsAreServedUnfencedAndSeeTheSameRows() throws SQLException {
        for (String sql : List.of(
                "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n "
                        + "ON n.oid = c.relnamespace LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam "
                        + "WHERE c.relkind IN ('r','p','') AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast' "
                        + "AND n.nspname <> 'information_schema' ORDER BY 1,2",
                "SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n "
                        + "ON n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(orders)$' "
                        + "COLLATE pg_catalog.default ORDER BY 2, 3",
                "SELECT a.attname, t.typname, (SELECT c.collname FROM pg_catalog.pg_collation c "
                        + "WHERE c.oid = a.attcollation AND a.attcollation <> t.typcollation) FROM pg_attribute a "
                        + "JOIN pg_type t ON t.oid = a.atttypid WHERE a.attnum > 0 AND NOT a.attisdropped "
                        + "ORDER BY 1, 2",
                "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' ORDER BY 1",
                "SELECT c.relname FROM pg_class c WHERE EXISTS (SELECT 1 FROM pg_index i "
                        + "WHERE i.indrelid = c.oid AND i.indisprimary) ORDER BY 1",
                // pgcli's type list: a scalar subquery that returns at most one row (by oid)
                "SELECT n.nspname, t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n "
                        + "ON n.oid = t.typnamespace WHERE (t.typrelid = 0 OR (SELECT c.relkind = 'c' "
                        + "FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid)) AND NOT EXISTS (SELECT 1 "
                        + "FROM pg_catalog.pg_type el WHERE el.oid = t.typelem AND el.typarray = t.oid) "
                        + "AND n.nspname <> 'pg_catalog' ORDER BY 1, 2",
                "SELECT c.relname FROM pg_class c WHERE (SELECT count(a.attnum) FROM pg_attribute a "
                        + "WHERE a.attrelid = c.oid) > 2 ORDER BY 1",
                "SELECT c.relname FROM pg_class c WHERE (SELECT a.attname FROM pg_attribute a "
                        + "WHERE a.attrelid = c.oid ORDER BY a.attnum LIMIT 1) IS NOT NULL ORDER BY 1",
                // quoted, spaced and commented spellings, a set operation
                "SELECT relname FROM \"pg_catalog\" . /* c */ \"pg_class\" WHERE relkind = 'r' UNION ALL "
                        + "SELECT nspname FROM pg_namespace ORDER BY 1",
                // SQLAlchemy's primary key columns
                "SELECT a.attname FROM pg_attribute a JOIN (SELECT unnest(ix.indkey) attnum, "
                        + "generate_subscripts(ix.indkey, 1) ord FROM pg_index ix WHERE ix.indisprimary) k "
                        + "ON a.attnum = k.attnum ORDER BY k.ord, 1")) {
            Served served = serve(sql, PATH);
            assertEquals(Verdict.ALLOW, served.verdict(), sql);
            assertFalse(served.text().contains("OFFSET 0"), served.text());
            assertEquals(columnAt(rewrite(sql), 1), columnAt(served.text(), 1), sql);
        }
    }

    /**
     * The probes of design 3.3 served as pgward serves them: each condition would fail on the hidden 61-column
     * table if it ran on its row, so each statement is served fenced, and running it reveals nothing.
     */
    @Test
    void everyProbeOfAHiddenRowIsServedFencedAndRevealsNothing() throws SQLException {
        String zero = "10 / (c.relnatts - " + WIDE + ") > -100";
        for (String probe : List.of(
                "SELECT count(*) FROM pg_catalog.pg_class c WHERE " + zero,
                "SELECT count(*) FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND " + zero,
                "SELECT count(*) FROM pg_class c LEFT JOIN pg_namespace n ON n.oid = c.relnamespace AND " + zero,
                "SELECT count(*) FROM pg_namespace n WHERE EXISTS (SELECT 1 FROM pg_class c "
                        + "WHERE c.relnamespace = n.oid AND " + zero + ")",
                "SELECT n.nspname, (SELECT count(*) FROM pg_class c WHERE c.relnamespace = n.oid AND " + zero
                        + ") FROM pg_namespace n",
                "SELECT c.relkind FROM pg_class c GROUP BY c.relkind, c.relnatts HAVING " + zero,
                "SELECT count(*) FROM pg_class c WHERE CASE WHEN c.relnatts = " + WIDE
                        + " THEN c.relname::text::int ELSE 0 END = 0",
                "SELECT count(*) FROM pg_class c WHERE c.relnatts = " + WIDE + " AND c.relname ~ '(w)\\1'",
                "SELECT count(*) FROM pg_class c WHERE c.relnatts = " + WIDE + " AND c.relname LIKE 'w\\'",
                "SELECT count(*) FROM (SELECT 10 / (relnatts - " + WIDE + ") AS v FROM pg_class) s WHERE s.v > -100",
                "SELECT count(*) FROM pg_class c, LATERAL (SELECT 10 / (c.relnatts - " + WIDE + ") AS v) x "
                        + "WHERE x.v > -100",
                "WITH k AS (SELECT relnatts FROM pg_class) SELECT count(*) FROM k WHERE 10 / (relnatts - " + WIDE
                        + ") > -100",
                // (a count(*) would bring pg_type's regproc columns into its filter, which L3 refuses)
                "SELECT c.relname FROM pg_class c WHERE c.relnatts = " + WIDE
                        + " AND (SELECT t.oid FROM pg_type t WHERE t.typlen > c.relnatts) > 0",
                "SELECT count(*) FROM pg_class c WHERE ARRAY[ARRAY[1], CASE WHEN c.relnatts = " + WIDE
                        + " THEN ARRAY[1, 2] ELSE ARRAY[3] END] IS NOT NULL",
                "SELECT count(*) FROM pg_class c WHERE c.relnatts = " + WIDE
                        + " AND ('{1}'::int[])[c.relnatts] IS NULL",
                // scalar subqueries that may return more rows for some outer row than for others
                "SELECT c.relname FROM pg_class c WHERE (SELECT t.typname FROM pg_type t "
                        + "WHERE t.oid < 20 AND c.relnatts = " + WIDE + " LIMIT 2) IS NULL",
                "SELECT c.relname FROM pg_class c WHERE (SELECT n.nspname FROM pg_namespace n "
                        + "WHERE n.oid = c.relnamespace OR c.relnatts = " + WIDE + ") IS NOT NULL",
                "SELECT c.relname FROM pg_class c WHERE (SELECT count(t.oid) FROM pg_type t "
                        + "WHERE t.oid < 20 AND c.relnatts = " + WIDE + " GROUP BY t.typlen) IS NULL",
                // a loud condition in one arm of a set operation fences the statement
                "SELECT relname FROM pg_class WHERE relkind = 'r' UNION ALL SELECT c.relname FROM "
                        + "\"pg_catalog\" . pg_class /* x */ c WHERE 10 / (c.relnatts - " + WIDE + ") > -100",
                "SELECT count(*) FROM (SELECT relnatts, count(*) AS n FROM pg_class GROUP BY 1) s "
                        + "WHERE 10 / (s.relnatts - " + WIDE + ") > -100")) {
            Served served = serve(probe, PATH);
            assertEquals(Verdict.ALLOW, served.verdict(), probe);
            assertTrue(served.text().contains("OFFSET 0"), "served unfenced: " + probe);
            column(served.text());
        }
        // An invalid regular expression fails while PostgreSQL plans the statement (its selectivity estimate
        // compiles the pattern), whatever the rows; it is served fenced all the same.
        for (String invalid : List.of("c.relname ~ '('", "nameregexeq(c.relname, '(')")) {
            String sql = "SELECT count(*) FROM pg_class c WHERE c.relnatts = " + WIDE + " AND " + invalid;
            assertTrue(serve(sql, PATH).text().contains("OFFSET 0"), sql);
        }
    }

    /**
     * A function of a user schema named like a quiet built-in is neither quiet nor allowed: QuietQuals reads calls
     * by OID, and a non-built-in function is refused.
     */
    @Test
    void aUserFunctionNamedLikeAQuietBuiltInIsNotQuiet() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE FUNCTION public.pg_table_is_visible(o oid) RETURNS boolean LANGUAGE sql "
                    + "IMMUTABLE AS 'SELECT 10 / (o::int - o::int) > 0'");
        }
        try {
            String path = "public, pg_catalog";
            String sql = "SELECT c.relname FROM pg_catalog.pg_class c WHERE pg_table_is_visible(c.oid)";
            Served served = check.serve(new CheckRequest(selection, null, path, true, sql, List.of()),
                    SqlLexer.split(sql, true).getFirst()).toCompletableFuture().join();
            assertEquals(sql, served.text());
            assertInstanceOf(Verdict.Refuse.class, served.verdict());
            for (boolean fenced : List.of(false, true)) {
                String rewritten = CatalogRewrite.rewrite(SqlLexer.split(sql, true).getFirst(), path, filters, fenced);
                Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class,
                        check.checkNow(CheckRequest.of(selection, null, path, rewritten)));
                assertEquals(fenced ? CatalogRefusals.FUNCTION : CatalogRefusals.FENCE_NEEDED, refuse.rule(),
                        refuse.message());
            }
        } catch (LexerException e) {
            throw new AssertionError(e);
        } finally {
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("DROP FUNCTION public.pg_table_is_visible(oid)");
            }
        }
    }

    /** A pattern the client binds later is not a constant the check can judge: such a statement keeps its fence. */
    @Test
    void aPatternGivenAsAParameterKeepsTheFence() throws LexerException {
        for (String sql : List.of("SELECT c.relname FROM pg_class c WHERE c.relname LIKE $1",
                "SELECT c.relname FROM pg_class c WHERE c.relname ~ $1")) {
            Served served = check.serve(new CheckRequest(selection, null, PATH, true, sql, List.of(25)),
                    SqlLexer.split(sql, true).getFirst()).toCompletableFuture().join();
            assertEquals(Verdict.ALLOW, served.verdict(), sql);
            assertTrue(served.text().contains("OFFSET 0") && served.text().contains("$1"), served.text());
        }
    }

    /** What the fence prevents: a cheap condition runs before the filter and fails on the hidden table's row. */
    @Test
    void withoutTheFenceAProbeFailsOnTheHiddenRow() throws LexerException, SQLException {
        String probe = "SELECT count(*) FROM pg_class c WHERE ARRAY[ARRAY[1], CASE WHEN c.relnatts = " + WIDE
                + " THEN ARRAY[1, 2] ELSE ARRAY[3] END] IS NOT NULL";
        String unfenced = CatalogRewrite.rewrite(SqlLexer.split(probe, true).getFirst(), PATH, filters, false);
        SQLException failure = assertThrows(SQLException.class, () -> column(unfenced));
        assertTrue(failure.getMessage().contains("multidimensional arrays"), failure.getMessage());
        assertEquals(CatalogRefusals.FENCE_NEEDED,
                assertInstanceOf(Verdict.Refuse.class, verdict(unfenced)).rule());
        column(rewrite(probe));
    }

    @Test
    void aUserFunctionInAConditionIsRefusedFencedOrNot() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE FUNCTION public.probe(n int) RETURNS int LANGUAGE sql IMMUTABLE "
                    + "AS 'SELECT 10 / (n - " + WIDE + ")'");
        }
        String probe = "SELECT count(*) FROM pg_class c WHERE public.probe(c.relnatts) > -100";
        Served served = serve(probe, PATH);
        assertEquals(probe, served.text());
        assertInstanceOf(Verdict.Refuse.class, served.verdict());
    }

    private static List<String> columnAt(String sql, int index) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(index));
            }
        }
        return values;
    }
}
