package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.selection.ResolvedSelection;
import io.pgward.guard.selection.SelectedNames;
import io.pgward.guard.selection.SelectionResolver;
import io.pgward.guard.selection.VisibleCatalog;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Arguments of gated catalog functions that are proven by their shape (design section 3.2): a relation column's
 * text through regclass (SQLAlchemy 1.4's column reflection, {@code pg_get_serial_sequence(a.attrelid::regclass::text,
 * a.attname)::regclass}), and pgward's wrapping of a {@code pg_class} column in the selection's relations for the
 * size and statistics functions (psql's {@code \dt+}, DBeaver's index query). On a real PostgreSQL (14 to 18 with
 * -Dpg.version) with the guard corpus's selection (orders, customers, v_sales, mv_region). Hidden: secrets,
 * hr.salaries, and {@code hr.orders}, a hidden table of a selected one's name with a serial column of its own,
 * found first when hr leads the search_path. Every allowed statement is also run, rewritten, and its output
 * searched for the hidden names.
 */
@PostgresTest
class CatalogArgumentsPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final String HR_FIRST = "hr, public";
    private static final List<String> HIDDEN = List.of("secrets", "salaries", "hr.orders", "tok_live");

    /** SQLAlchemy 1.4's get_columns (dialects/postgresql/base.py) on PostgreSQL 12 and later, for one table. */
    private static final String SQLALCHEMY_COLUMNS = """
            SELECT a.attname,
              pg_catalog.format_type(a.atttypid, a.atttypmod),
              (
                SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid)
                FROM pg_catalog.pg_attrdef d
                WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum
                AND a.atthasdef
              ) AS DEFAULT,
              a.attnotnull,
              a.attrelid as table_oid,
              pgd.description as comment,
              a.attgenerated as generated,
                            (SELECT json_build_object(
                                'always', a.attidentity = 'a',
                                'start', s.seqstart,
                                'increment', s.seqincrement,
                                'minvalue', s.seqmin,
                                'maxvalue', s.seqmax,
                                'cache', s.seqcache,
                                'cycle', s.seqcycle)
                            FROM pg_catalog.pg_sequence s
                            JOIN pg_catalog.pg_class c on s.seqrelid = c."oid"
                            WHERE c.relkind = 'S'
                            AND a.attidentity != ''
                            AND s.seqrelid = pg_catalog.pg_get_serial_sequence(
                                a.attrelid::regclass::text, a.attname
                            )::regclass::oid
                            ) as identity_options
            FROM pg_catalog.pg_attribute a
            LEFT JOIN pg_catalog.pg_description pgd ON (
                pgd.objoid = a.attrelid AND pgd.objsubid = a.attnum)
            WHERE a.attrelid = %d
            AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attnum
            """;

    /** psql 15's {@code \\dt+}. */
    private static final String PSQL_DT_PLUS = """
            SELECT n.nspname as "Schema",
              c.relname as "Name",
              CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' \
            WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 's' THEN 'special' WHEN 't' THEN 'TOAST table' \
            WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END \
            as "Type",
              pg_catalog.pg_get_userbyid(c.relowner) as "Owner",
              CASE c.relpersistence WHEN 'p' THEN 'permanent' WHEN 't' THEN 'temporary' WHEN 'u' THEN 'unlogged' \
            END as "Persistence",
              am.amname as "Access method",
              pg_catalog.pg_size_pretty(pg_catalog.pg_table_size(c.oid)) as "Size",
              pg_catalog.obj_description(c.oid, 'pg_class') as "Description"
            FROM pg_catalog.pg_class c
                 LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                 LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
            WHERE c.relkind IN ('r','p','')
                  AND n.nspname <> 'pg_catalog'
                  AND n.nspname !~ '^pg_toast'
                  AND n.nspname <> 'information_schema'
              AND pg_catalog.pg_table_is_visible(c.oid)
            ORDER BY 1,2;""";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static CatalogFilters filters;
    private static TableSelection selection;
    private static long orders;
    private static long secrets;
    private static long hiddenOrders;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE TABLE hr.orders (id serial PRIMARY KEY, token text)");
            s.execute("CREATE TABLE hr.customers (id int GENERATED ALWAYS AS IDENTITY, token text)");
            s.execute("ALTER TABLE public.customers ADD COLUMN ref int GENERATED BY DEFAULT AS IDENTITY");
            s.execute("CREATE ROLE hidden_owner");
            s.execute("ALTER TABLE hr.orders OWNER TO hidden_owner");
            filters = filters(c, GuardFixture.SELECTED);
            selection = GuardFixture.selection(c).withFilters(filters);
        }
        orders = oid("SELECT 'public.orders'::regclass::oid");
        secrets = oid("SELECT 'public.secrets'::regclass::oid");
        hiddenOrders = oid("SELECT 'hr.orders'::regclass::oid");
        check = CatalogChecks.on(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static CatalogFilters filters(Connection c, List<String> names) throws SQLException {
        ResolvedSelection resolved = SelectionResolver.resolve(c, SelectedNames.parse("tables", names));
        return CatalogFilters.of(resolved.visible(), CatalogColumns.read(c));
    }

    private static long oid(String sql) throws SQLException {
        return Long.parseLong(rows(sql, PATH).getFirst().replaceAll(".*=", ""));
    }

    private static String rewrite(String sql, String path) {
        try {
            return CatalogRewrite.rewrite(SqlLexer.split(sql, true).getFirst(), path, filters);
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    private static Verdict verdict(String sql, String path) {
        return check.checkNow(CheckRequest.of(selection, null, path, rewrite(sql, path)));
    }

    /** Every row, its columns joined by '|', run directly as the database owner with {@code path}. */
    private static List<String> rows(String sql, String path) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET search_path = " + path);
            try (ResultSet rs = s.executeQuery(sql)) {
                ResultSetMetaData meta = rs.getMetaData();
                while (rs.next()) {
                    List<String> row = new ArrayList<>();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        row.add(meta.getColumnLabel(i) + "=" + rs.getString(i));
                    }
                    rows.add(String.join("|", row));
                }
            }
        }
        return rows;
    }

    /** Allowed, and its rewritten text runs and shows nothing hidden; returns its rows. */
    private static List<String> assertAllowed(String sql, String path) throws SQLException {
        assertEquals(Verdict.ALLOW, verdict(sql, path), () -> sql + "\n" + rewrite(sql, path));
        List<String> rows = rows(rewrite(sql, path), path);
        String all = String.join("\n", rows).toLowerCase(Locale.ROOT);
        for (String hidden : HIDDEN) {
            assertFalse(all.contains(hidden), sql + " shows " + hidden + ": " + all);
        }
        return rows;
    }

    private static Verdict.Refuse assertRefused(String sql, String path) {
        return assertInstanceOf(Verdict.Refuse.class, verdict(sql, path), () -> sql + "\n" + rewrite(sql, path));
    }

    private static String visibleRelations() {
        return filters.visible().oids(VisibleCatalog.Catalog.PG_CLASS).arrayLiteral();
    }

    // ---- pg_get_serial_sequence over a relation column's regclass text -------------------------------------------

    @Test
    void sqlalchemysColumnReflectionEqualsTheDirectAnswer() throws SQLException {
        for (String path : List.of(PATH, HR_FIRST)) {
            for (String table : List.of("public.orders", "public.customers", "public.v_sales")) {
                String sql = SQLALCHEMY_COLUMNS.formatted(oid("SELECT '" + table + "'::regclass::oid"));
                assertEquals(rows(sql, path), assertAllowed(sql, path), table + " with " + path);
            }
        }
        String customers = String.join("\n", assertAllowed(SQLALCHEMY_COLUMNS.formatted(
                oid("SELECT 'public.customers'::regclass::oid")), HR_FIRST));
        assertTrue(customers.contains("\"always\" : false"), customers);
    }

    @Test
    void theSerialSequenceOfAVisibleColumnIsItsOwnEvenBehindAHiddenNamesake() throws SQLException {
        String sql = "SELECT a.attrelid::regclass::text AS rel, pg_catalog.pg_get_serial_sequence("
                + "a.attrelid::regclass::text, a.attname) AS seq, pg_get_serial_sequence(c.oid::regclass::text, "
                + "a.attname)::regclass::oid AS seqoid FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c "
                + "ON c.oid = a.attrelid WHERE a.attnum > 0 AND c.relkind = 'r' AND c.relnamespace <> "
                + "'pg_catalog'::regnamespace ORDER BY 1, 2";
        assertEquals(List.of("rel=customers|seq=public.customers_id_seq|seqoid=" + oid(
                        "SELECT 'public.customers_id_seq'::regclass::oid"),
                "rel=customers|seq=public.customers_ref_seq|seqoid=" + oid(
                        "SELECT 'public.customers_ref_seq'::regclass::oid"),
                "rel=orders|seq=public.orders_id_seq|seqoid=" + oid("SELECT 'public.orders_id_seq'::regclass::oid")),
                assertAllowed(sql, PATH).stream().filter(r -> !r.contains("seq=null")).toList());
        // hr leads: regclassout qualifies the visible tables, which resolve back to themselves, never to hr's.
        assertEquals(List.of("rel=public.customers|seq=public.customers_id_seq",
                        "rel=public.customers|seq=public.customers_ref_seq",
                        "rel=public.orders|seq=public.orders_id_seq"),
                assertAllowed(sql, HR_FIRST).stream().filter(r -> !r.contains("seq=null"))
                        .map(r -> r.replaceAll("\\|seqoid=.*", "")).toList());
    }

    @Test
    void aSerialSequenceOutsideTheVisibleSetIsNeverNamed() throws Exception {
        // VisibleSets puts every sequence a selected table's column owns in the set, and PostgreSQL records no
        // ownership by a built-in catalog: a set without orders' sequence stands for a future gap between the two.
        long sequence = oid("SELECT 'public.orders_id_seq'::regclass::oid");
        java.util.Map<VisibleCatalog.Catalog, io.pgward.guard.selection.OidSet> sets = new java.util.EnumMap<>(
                VisibleCatalog.Catalog.class);
        VisibleCatalog visible = filters.visible();
        for (VisibleCatalog.Catalog catalog : VisibleCatalog.Catalog.values()) {
            sets.put(catalog, io.pgward.guard.selection.OidSet.of(visible.oids(catalog).stream()
                    .filter(o -> o != sequence).toArray()));
        }
        TableSelection withoutSequence;
        CatalogFilters narrower;
        try (Connection c = db.connect()) {
            narrower = CatalogFilters.of(VisibleCatalog.of(visible.serverVersionNum(), visible.sessionRole(), sets),
                    CatalogColumns.read(c));
            withoutSequence = GuardFixture.selection(c).withFilters(narrower);
        }
        for (String sql : List.of("SELECT pg_get_serial_sequence('public.orders', 'id')",
                "SELECT pg_get_serial_sequence(a.attrelid::regclass::text, a.attname) FROM pg_attribute a")) {
            String text = CatalogRewrite.rewrite(SqlLexer.split(sql, true).getFirst(), PATH, narrower);
            assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(withoutSequence, null, PATH,
                    text)), sql);
            assertEquals(Verdict.ALLOW, verdict(sql, PATH), sql);
        }
    }

    @Test
    void anyOtherTextOfARelationIsRefused() {
        for (String path : List.of(PATH, HR_FIRST)) {
            for (String argument : List.of("c.relname::text", "c.relname", "a.attrelid::text",
                    "a.attrelid::regclass::varchar", "a.attrelid::regclass::text || ''",
                    "lower(a.attrelid::regclass::text)", "(a.attrelid + 0)::regclass::text",
                    "quote_ident(c.relname)", "n.nspname || '.' || c.relname", "c.relname::regclass::text",
                    "a.atttypid::regtype::text",
                    "a.attrelid::regclass::text::regclass::text")) {
                String sql = "SELECT pg_get_serial_sequence(" + argument + ", a.attname) FROM pg_attribute a "
                        + "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace";
                assertRefused(sql, path);
            }
        }
        // A scalar subquery yields its one output: the same text, followed through it.
        assertEquals(Verdict.ALLOW, verdict("SELECT pg_get_serial_sequence((SELECT c.oid::regclass::text), a.attname) "
                + "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid", PATH));
    }

    @Test
    void aColumnOfAnUnfilteredSourceIsNotARelationsText() {
        assertRefused("SELECT pg_get_serial_sequence(x::regclass::text, 'id') FROM (VALUES ('" + hiddenOrders
                + "'::oid)) v(x)", HR_FIRST);
        assertRefused("SELECT pg_get_serial_sequence(x::regclass::text, 'id') FROM generate_series(" + secrets
                + ", " + hiddenOrders + ") g(x)", PATH);
        assertRefused("SELECT pg_get_serial_sequence('hr.orders', 'id')", PATH);
        assertRefused("SELECT pg_get_serial_sequence('orders', 'id')", HR_FIRST);
    }

    @Test
    void theRegclassOfAnotherFunctionsTextIsRefused() {
        for (String text : List.of("c.relname::text", "format('%s', a.attrelid::regclass)",
                "a.attrelid::regclass::text || '_id_seq'", "(SELECT max(relname) FROM pg_class)::text")) {
            assertRefused("SELECT " + text + "::regclass FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid",
                    PATH);
        }
        assertEquals(Verdict.ALLOW, verdict("SELECT a.attrelid::regclass::text::regclass FROM pg_attribute a",
                HR_FIRST));
    }

    @Test
    void aCallInAnArgumentIsProvenOnlyWhenItIsAGatedCallOfAVisibleObject() throws SQLException {
        assertEquals(List.of("to_regclass=orders_id_seq"),
                assertAllowed("SELECT to_regclass(pg_get_serial_sequence('orders', 'id'))", PATH));
        assertAllowed("SELECT pg_get_indexdef(to_regclass('public.orders_pkey'))", PATH);
        Verdict.Refuse hidden = assertRefused("SELECT pg_get_indexdef(to_regclass('public.secrets'))", PATH);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, hidden.rule(), hidden.message());
        for (String sql : List.of("SELECT lower(pg_get_serial_sequence('orders', 'id'))::regclass",
                "SELECT pg_get_serial_sequence(lower('HR.ORDERS'), 'id')",
                "SELECT pg_get_serial_sequence(format_type(a.atttypid, NULL), a.attname) FROM pg_attribute a",
                "SELECT pg_get_serial_sequence(pg_get_userbyid(c.relowner), 'id') FROM pg_class c",
                "SELECT pg_table_size(to_regclass('orders'))",
                "SELECT pg_table_size(pg_get_serial_sequence('orders', 'id')::regclass)")) {
            assertRefused(sql, HR_FIRST);
        }
    }

    // ---- the size functions over pg_class's key, wrapped in the selection's relations --------------------------------

    @Test
    void psqlsTablesWithSizesAreTheSelectedTablesWithTheirSizes() throws SQLException {
        List<String> rows = assertAllowed(PSQL_DT_PLUS, PATH);
        assertEquals(List.of("customers", "orders"), rows.stream()
                .map(r -> r.replaceAll(".*\\|Name=([a-z_]+)\\|.*", "$1")).toList());
        assertEquals(rows(PSQL_DT_PLUS, PATH).stream()
                .filter(r -> r.contains("Name=orders|") || r.contains("Name=customers|")).toList(), rows);
        assertTrue(rows.stream().noneMatch(r -> r.contains("Size=null")), rows.toString());
        // hr's namesakes hide the selected tables from pg_table_is_visible, and nothing of hr shows.
        assertEquals(List.of(), assertAllowed(PSQL_DT_PLUS, HR_FIRST));
    }

    @Test
    void aBuiltInCatalogsSizeIsNull() throws SQLException {
        String sql = "SELECT c.relname, pg_relation_size(c.oid), pg_catalog.pg_total_relation_size(c.oid), "
                + "pg_table_size(\"c\".\"oid\"), pg_indexes_size(c.oid), pg_stat_get_numscans(c.oid) "
                + "FROM pg_catalog.pg_class c WHERE c.relname IN ('pg_class', 'orders', 'orders_pkey') ORDER BY 1";
        List<String> rows = assertAllowed(sql, PATH);
        assertEquals(3, rows.size(), rows.toString());
        assertTrue(rows.get(0).startsWith("relname=orders|pg_relation_size=") && !rows.get(0).contains("=null"),
                rows.get(0));
        assertTrue(rows.get(1).startsWith("relname=orders_pkey|") && !rows.get(1).contains("=null"), rows.get(1));
        assertEquals("relname=pg_class|pg_relation_size=null|pg_total_relation_size=null|pg_table_size=null"
                + "|pg_indexes_size=null|pg_stat_get_numscans=null", rows.get(2));
        assertEquals(List.of("oid=null"), assertAllowed("SELECT pg_relation_size(oid, 'main') AS oid "
                + "FROM pg_class WHERE relname = 'pg_attribute'", PATH));
    }

    @Test
    void dbeaversIndexQueryRuns() throws SQLException {
        String sql = "SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,c.reltablespace,tc.relname as "
                + "tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indpred, i.indrelid) as pred_expr,"
                + "pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr,pg_catalog.pg_relation_size("
                + "i.indexrelid) as index_rel_size,pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans "
                + "FROM pg_catalog.pg_index i INNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid INNER JOIN "
                + "pg_catalog.pg_class tc ON tc.oid=i.indrelid LEFT OUTER JOIN pg_catalog.pg_description dsc ON "
                + "i.indexrelid=dsc.objoid WHERE  i.indrelid=%s ORDER BY tabrelname, c.relname";
        assertEquals(List.of(), assertAllowed(sql.formatted("1"), PATH));
        assertEquals(rows(sql.formatted(orders), PATH), assertAllowed(sql.formatted(orders), PATH));
    }

    @Test
    void theWrappingWrittenByHandIsProvenOnlyWhenItIsPgwards() throws SQLException {
        String exact = "CASE WHEN c.oid OPERATOR(pg_catalog.=) ANY ('" + visibleRelations()
                + "'::pg_catalog.oid[]) THEN c.oid END";
        // The rewrite leaves a call whose argument is no bare column alone, and L3 proves the copy.
        assertAllowed("SELECT pg_table_size(" + exact + ") FROM pg_class c", PATH);
        assertAllowed("SELECT pg_table_size(CASE WHEN c.oid = ANY ('" + visibleRelations()
                + "') THEN c.oid END) FROM pg_class c", PATH);
        String oneMore = visibleRelations().replace("{", "{" + secrets + ",");
        String oneLess = "{" + visibleRelations().substring(visibleRelations().indexOf(',') + 1);
        for (String argument : List.of(
                "CASE WHEN c.oid = ANY ('" + oneMore + "'::oid[]) THEN c.oid END",
                "CASE WHEN c.oid = ANY ('" + oneLess + "'::oid[]) THEN c.oid END",
                "CASE WHEN c.oid = ANY ('" + visibleRelations() + "'::oid[]) THEN c.reltoastrelid END",
                "CASE WHEN c.oid = ANY ('" + visibleRelations() + "'::oid[]) THEN c.oid ELSE " + secrets + " END",
                "CASE WHEN c.oid = ANY ('" + visibleRelations() + "'::oid[]) THEN c.oid ELSE c.oid END",
                "CASE WHEN c.oid <> ALL ('" + visibleRelations() + "'::oid[]) THEN c.oid END",
                "CASE WHEN c.oid = ANY ('" + visibleRelations() + "'::oid[]) OR true THEN c.oid END",
                "CASE WHEN c.oid = ANY ('" + visibleRelations() + "'::oid[]) THEN c.oid WHEN true THEN c.oid END",
                "CASE c.oid WHEN c.oid THEN c.oid END",
                "CASE WHEN c.oid = ANY (ARRAY[" + orders + ", " + secrets + "]::oid[]) THEN c.oid END",
                "CASE WHEN x.o = ANY ('" + visibleRelations() + "'::oid[]) THEN x.o END")) {
            String sql = "SELECT pg_table_size(" + argument + ") FROM pg_class c, (SELECT " + secrets + "::oid) x(o)";
            assertRefused(sql, PATH);
        }
    }

    @Test
    void hiddenRelationsStayAbsentAndUnprovenArgumentsRefused() throws SQLException {
        Verdict.Refuse typed = assertRefused("SELECT pg_table_size(" + secrets + ")", PATH);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, typed.rule(), typed.message());
        Verdict.Refuse named = assertRefused("SELECT pg_relation_size('hr.salaries')", PATH);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, named.rule(), named.message());
        Verdict.Refuse values = assertRefused("SELECT pg_relation_size(x) FROM (VALUES (" + secrets
                + "::oid)) v(x)", PATH);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, values.rule(), values.message());
        // A subquery named like the catalog, with pg_class's column name: the wrapping hides nothing from the check.
        Verdict.Refuse lookalike = assertRefused("SELECT pg_table_size(c.oid) FROM (SELECT " + secrets
                + "::oid AS oid) c", PATH);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, lookalike.rule(), lookalike.message());
        for (String sql : List.of("SELECT pg_relation_size(x) FROM generate_series(" + secrets + ", "
                        + (secrets + 5) + ") g(x)",
                "SELECT pg_table_size((c.oid::int8 + 0)::oid) FROM pg_class c"
                )) {
            Verdict.Refuse refuse = assertRefused(sql, PATH);
            assertTrue(refuse.message().contains("not allowed"), sql + ": " + refuse.message());
        }
        assertRefused("SELECT pg_table_size(relid) FROM pg_stat_user_tables", PATH);
        // Wrapped in the visible set, a column that may hold a hidden OID gives NULL for it: the wrapping, not the
        // column, is what the gates prove.
        assertAllowed("SELECT pg_table_size(c.relfilenode) FROM pg_class c", PATH);
        assertEquals(List.of("oid=" + secrets + "|pg_table_size=null"), assertAllowed("SELECT t.oid, pg_table_size(t.oid) FROM (SELECT oid "
                + "FROM pg_class UNION SELECT " + secrets + ") t WHERE t.oid = " + secrets, PATH));
    }

    @Test
    void theVisibleRowsOfAnotherCatalogAreWrappedToo() throws SQLException {
        assertEquals(List.of(), assertAllowed("SELECT pg_table_size(a.attrelid) FROM pg_attribute a "
                + "WHERE a.attname = 'token'", PATH));
        assertEquals(List.of("pg_relation_size=8192"), assertAllowed("SELECT pg_relation_size(i.indexrelid) "
                + "FROM pg_index i WHERE i.indexrelid = 'orders_pkey'::regclass", PATH).stream()
                .map(r -> r.replaceAll("=\\d+", "=8192")).toList());
        assertEquals(List.of("pg_relation_size=null"), assertAllowed("SELECT pg_relation_size(i.indexrelid) "
                + "FROM pg_index i WHERE i.indexrelid = 'pg_class_oid_index'::regclass", PATH));
    }

    // ---- psql's \\dL, \\db, \\do and the tool corpus: owners, locations and descriptions of built-in rows --------

    /** psql 15's {@code \\dL}. */
    private static final String PSQL_DL = """
            SELECT l.lanname AS "Name",
                   pg_catalog.pg_get_userbyid(l.lanowner) as "Owner",
                   l.lanpltrusted AS "Trusted",
                   d.description AS "Description"
            FROM pg_catalog.pg_language l
            LEFT JOIN pg_catalog.pg_description d
              ON d.classoid = l.tableoid AND d.objoid = l.oid
              AND d.objsubid = 0
            WHERE l.lanplcallfoid != 0
            ORDER BY 1;""";

    /** psql 15's {@code \\db}. */
    private static final String PSQL_DB = """
            SELECT spcname AS "Name",
              pg_catalog.pg_get_userbyid(spcowner) AS "Owner",
              pg_catalog.pg_tablespace_location(oid) AS "Location"
            FROM pg_catalog.pg_tablespace
            ORDER BY 1;""";

    /** psql 15's {@code \\do}. */
    private static final String PSQL_DO = """
            SELECT n.nspname as "Schema",
              o.oprname AS "Name",
              CASE WHEN o.oprkind='l' THEN NULL ELSE pg_catalog.format_type(o.oprleft, NULL) END AS "Left arg type",
              CASE WHEN o.oprkind='r' THEN NULL ELSE pg_catalog.format_type(o.oprright, NULL) END AS "Right arg type",
              pg_catalog.format_type(o.oprresult, NULL) AS "Result type",
              coalesce(pg_catalog.obj_description(o.oid, 'pg_operator'),
                       pg_catalog.obj_description(o.oprcode, 'pg_proc')) AS "Description"
            FROM pg_catalog.pg_operator o
                 LEFT JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace
            WHERE n.nspname <> 'pg_catalog'
                  AND n.nspname <> 'information_schema'
              AND pg_catalog.pg_operator_is_visible(o.oid)
            ORDER BY 1, 2, 3, 4;""";

    @Test
    void psqlsLanguagesTablespacesAndOperatorsEqualTheDirectAnswerLessTheHiddenOnes() throws SQLException {
        assertEquals(rows(PSQL_DL, PATH), assertAllowed(PSQL_DL, PATH));
        assertEquals(rows(PSQL_DB, PATH), assertAllowed(PSQL_DB, PATH));
        assertTrue(assertAllowed(PSQL_DB, PATH).stream().allMatch(r -> r.endsWith("|Location=")),
                rows(PSQL_DB, PATH).toString());
        // The fixture's operator public.=== calls a user function that reads hr.salaries: hidden.
        assertEquals(1, rows(PSQL_DO, PATH).size());
        assertEquals(List.of(), assertAllowed(PSQL_DO, PATH));
        List<String> builtIn = assertAllowed(PSQL_DO.replace("WHERE n.nspname <> 'pg_catalog'",
                "WHERE o.oprname = '||/'"), PATH);
        assertEquals(rows(PSQL_DO.replace("WHERE n.nspname <> 'pg_catalog'", "WHERE o.oprname = '||/'"), PATH),
                builtIn);
    }

    @Test
    void toolCorpusOwnersLocationsAndDefaults() throws SQLException {
        String databases = "select N.oid::bigint as id, datname as name, D.description, datistemplate as "
                + "is_template, datallowconn as allow_connections, pg_catalog.pg_get_userbyid(N.datdba) as \"owner\" "
                + "from pg_catalog.pg_database N left join pg_catalog.pg_shdescription D on N.oid = D.objoid "
                + "order by case when datname = pg_catalog.current_database() then -1::bigint else N.oid::bigint end";
        assertEquals(1, assertAllowed(databases, PATH).size());
        String tablespaces = "select T.oid::bigint as id, T.spcname as name, T.xmin as state_number, "
                + "pg_catalog.pg_get_userbyid(T.spcowner) as owner, pg_catalog.pg_tablespace_location(T.oid) /* null */ "
                + "as location, T.spcoptions /* null */ as options, D.description as comment from "
                + "pg_catalog.pg_tablespace T left join pg_catalog.pg_shdescription D on D.objoid = T.oid";
        assertEquals(2, assertAllowed(tablespaces, PATH).size());
        String functions = "SELECT n.nspname schema_name, p.proname func_name, pg_get_expr(proargdefaults, 0) AS "
                + "arg_defaults FROM pg_catalog.pg_proc p INNER JOIN pg_catalog.pg_namespace n ON n.oid = "
                + "p.pronamespace WHERE p.proname = 'make_interval' ORDER BY 1, 2";
        assertEquals(rows(functions, PATH), assertAllowed(functions, PATH));
    }

    @Test
    void aTablespaceLocationIsABuiltInTablespacesOnly() throws SQLException {
        assertEquals(List.of("pg_tablespace_location=|pg_tablespace_location="),
                assertAllowed("SELECT pg_tablespace_location(1663), pg_tablespace_location('1664'::oid)", PATH));
        Verdict.Refuse current = assertRefused("SELECT pg_tablespace_location(0)", PATH);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, current.rule(), current.message());
        Verdict.Refuse user = assertRefused("SELECT pg_tablespace_location(16999)", PATH);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, user.rule(), user.message());
        for (String sql : List.of("SELECT pg_tablespace_location(c.reltablespace) FROM pg_class c",
                "SELECT pg_tablespace_location(d.dattablespace) FROM pg_database d",
                "SELECT pg_tablespace_location(x) FROM generate_series(0, 1663) x",
                "SELECT pg_tablespace_location(t.oid + 0) FROM pg_tablespace t")) {
            assertRefused(sql, PATH);
        }
    }

    @Test
    void anOwnerColumnProvesOnlyVisibleRoles() throws SQLException {
        long hiddenRole = oid("SELECT 'hidden_owner'::regrole::oid");
        Verdict.Refuse absent = assertRefused("SELECT pg_get_userbyid(" + hiddenRole + ")", PATH);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, absent.rule(), absent.message());
        assertRefused("SELECT pg_get_userbyid(l.lanplcallfoid) FROM pg_language l", PATH);
        assertRefused("SELECT pg_get_userbyid(o.oprleft) FROM pg_operator o", PATH);
        assertRefused("SELECT pg_get_userbyid(x.o) FROM pg_language l, (VALUES (" + hiddenRole + "::oid)) x(o) "
                + "WHERE x.o <> l.lanowner", PATH);
    }
}
