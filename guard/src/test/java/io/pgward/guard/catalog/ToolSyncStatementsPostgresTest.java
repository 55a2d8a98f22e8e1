package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Metabase's privilege sync and pgcli's function list (tool corpus #50 and #69) through a login with a selection, on
 * a real PostgreSQL (14 to 18 with -Dpg.version), and the near copies an analyst could write to reach a hidden
 * relation with them. Beside the guard corpus's fixture, the selection has {@code sales.items} (so the visible
 * schema sales has a hidden {@code sales.orders}, named like the visible {@code public.orders}) and
 * {@code "Odd.Schema"."We""ird.Name"}, whose name holds dots, a quote and upper case; the hidden
 * {@code "Odd"."Schema.We""ird.Name"} is what a careless split of that name would find.
 */
@PostgresTest
class ToolSyncStatementsPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final List<String> SELECTED = List.of("public.orders", "public.customers", "public.v_sales",
            "public.mv_region", "sales.items", "\"Odd.Schema\".\"We\"\"ird.Name\"");
    private static final List<String> HIDDEN = List.of("secrets", "salaries", "v_leak", "leak_secret",
            "purge_inactive", "sales|orders", "odd|", "eq3");
    private static final String QUOTED = "'\"' || replace(t.schemaname, '\"', '\"\"') || '\"' || '.' || '\"' "
            + "|| replace(t.tablename, '\"', '\"\"') || '\"'";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE SCHEMA sales");
            s.execute("CREATE TABLE sales.items (id int)");
            s.execute("CREATE TABLE sales.orders (card text)");
            s.execute("CREATE SCHEMA \"Odd.Schema\"");
            s.execute("CREATE TABLE \"Odd.Schema\".\"We\"\"ird.Name\" (id int)");
            s.execute("CREATE SCHEMA \"Odd\"");
            s.execute("CREATE TABLE \"Odd\".\"Schema.We\"\"ird.Name\" (id int)");
            // Hidden namesakes of a visible schema and of the owner's role, told apart by case alone.
            s.execute("CREATE SCHEMA \"SALES\"");
            s.execute("DO $$ BEGIN CREATE ROLE \"" + db.user().toUpperCase(Locale.ROOT) + "\"; "
                    + "EXCEPTION WHEN duplicate_object THEN NULL; END $$");
            s.execute("CREATE FUNCTION public.with_default(a int DEFAULT public.leak_secret(1)::int) "
                    + "RETURNS int LANGUAGE sql AS 'SELECT 1'");
            selection = FilteredFixture.filteredSelection(c, SELECTED);
        }
        check = FilteredFixture.check(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static String rewrite(String sql) {
        return FilteredFixture.rewrite(sql, PATH, selection);
    }

    private static Verdict verdict(String sql) {
        return check.checkNow(CheckRequest.of(selection, null, PATH, rewrite(sql)));
    }

    private static List<String> rows(String sql) throws SQLException {
        return FilteredFixture.rows(db, sql);
    }

    /** Allowed once rewritten; its rows, run rewritten, show nothing hidden. */
    private static List<String> allowed(String sql) throws SQLException {
        assertEquals(Verdict.ALLOW, verdict(sql), sql);
        String rewritten = rewrite(sql);
        assertNotEquals(sql, rewritten, "not rewritten: " + sql);
        List<String> rows = rows(rewritten);
        for (String row : rows) {
            String lower = row.toLowerCase(Locale.ROOT);
            for (String word : HIDDEN) {
                assertFalse(lower.contains(word), word + " in " + row + " of " + sql);
            }
        }
        return rows;
    }

    /** Refused by the gates: a gated function or an object-identifier value not proven, or a hidden constant. */
    private static void refused(String sql) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertTrue(List.of(CatalogRefusals.DENIED_BUILT_IN, CatalogRefusals.OBJECT_IDENTIFIER_TYPE,
                CatalogRefusals.ABSENT_OBJECT).contains(refuse.rule()), sql + ": " + refuse.message());
    }

    /** Tool corpus #50 (catalog-corpus/tool-catalog-sql.json), as Metabase sends it on every sync. */
    private static final String METABASE_PRIVILEGES = """
            with table_privileges as (
                     select
                       NULL as role,
                       t.schemaname as schema,
                       t.objectname as table,
                       pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'update') as update,
                       pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'select') as select,
                       pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'insert') as insert,
                       pg_catalog.has_table_privilege(     current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"',  'delete') as delete
                     from (
                       select schemaname, tablename as objectname from pg_catalog.pg_tables
                       union
                       select schemaname, viewname as objectname from pg_catalog.pg_views
                       union
                       select schemaname, matviewname as objectname from pg_catalog.pg_matviews
                     ) t
                     where t.schemaname !~ '^pg_'
                       and t.schemaname <> 'information_schema'
                       and pg_catalog.has_schema_privilege(current_user, t.schemaname, 'usage')
                    )
                    select t.*
                    from table_privileges t""";

    /** Tool corpus #69, pgcli's function completion list. */
    private static final String PGCLI_FUNCTIONS = """
            SELECT n.nspname schema_name,
                                            p.proname func_name,
                                            p.proargnames,
                                            COALESCE(proallargtypes::regtype[], proargtypes::regtype[])::text[],
                                            p.proargmodes,
                                            prorettype::regtype::text return_type,
                                            p.prokind = 'a' is_aggregate,
                                            p.prokind = 'w' is_window,
                                            p.proretset is_set_returning,
                                            d.deptype = 'e' is_extension,
                                            pg_get_expr(proargdefaults, 0) AS arg_defaults
                                    FROM pg_catalog.pg_proc p
                                            INNER JOIN pg_catalog.pg_namespace n
                                                ON n.oid = p.pronamespace
                                    LEFT JOIN pg_depend d ON d.objid = p.oid and d.deptype = 'e'
                                    WHERE p.prorettype::regtype != 'trigger'::regtype
                                    ORDER BY 1, 2""";

    // ---- Metabase (#50) -----------------------------------------------------------------------------------------

    @Test
    void metabasesPrivilegeSyncListsTheSelectionWithItsPrivileges() throws SQLException {
        List<String> rows = allowed(METABASE_PRIVILEGES);
        List<String> tables = rows.stream().map(r -> r.split("\\|")[1] + "." + r.split("\\|")[2]).sorted().toList();
        assertEquals(List.of("Odd.Schema.We\"ird.Name", "public.customers", "public.mv_region", "public.orders",
                "public.v_sales", "sales.items"), tables);
        // As the owner, every privilege is true: the names were read back as the very relations.
        assertTrue(rows.stream().allMatch(r -> r.endsWith("|t|t|t|t")), rows.toString());
    }

    @Test
    void theOtherSpellingsOfAQuotedNameWork() throws SQLException {
        for (String name : List.of(QUOTED, "quote_ident(t.schemaname) || '.' || quote_ident(t.tablename)",
                "format('%I.%I', t.schemaname, t.tablename)",
                "'\"' || replace(t.schemaname::text, '\"', '\"\"') || '\".' || quote_ident(t.tablename)",
                "pg_catalog.textcat(quote_ident(t.schemaname), '.' || quote_ident(t.tablename))")) {
            List<String> rows = allowed("SELECT t.tablename, has_table_privilege(" + name + ", 'select'), "
                    + "to_regclass(" + name + ")::oid <> 0 FROM pg_tables t WHERE t.schemaname NOT IN "
                    + "('pg_catalog', 'information_schema') ORDER BY 1");
            assertEquals(List.of("We\"ird.Name|t|t", "customers|t|t", "items|t|t", "orders|t|t"), rows, name);
        }
        assertEquals(List.of("t"), allowed("SELECT DISTINCT has_any_column_privilege(current_user, "
                + "format('%I.%I', table_schema, table_name), 'select') FROM information_schema.tables "
                + "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"));
    }

    @Test
    void aSchemaColumnOfAFilteredViewIsAVisibleSchema() throws SQLException {
        assertEquals(List.of("Odd.Schema|t", "public|t", "sales|t"), allowed("SELECT DISTINCT t.schemaname, "
                + "has_schema_privilege(current_user, t.schemaname, 'usage') FROM pg_tables t "
                + "WHERE t.schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"));
        allowed("SELECT schema_name, has_schema_privilege(schema_name, 'usage') FROM information_schema.schemata");
        // pg_tables' names are no schema names.
        refused("SELECT has_schema_privilege(t.tablename, 'usage') FROM pg_tables t");
        refused("SELECT has_schema_privilege(c.relname::text, 'usage') FROM pg_class c");
        refused("SELECT has_schema_privilege(session_user, 'public', 'usage')");
    }

    @Test
    void privilegeFunctionsReadRoleAndSchemaNamesAsTheyAre() throws SQLException {
        // has_schema_privilege looks 'SALES' up as it is: the hidden "SALES", not the visible sales.
        Verdict.Refuse schema = assertInstanceOf(Verdict.Refuse.class,
                verdict("SELECT has_schema_privilege('SALES', 'usage')"));
        assertEquals("schema \"SALES\" does not exist", schema.message());
        assertEquals(Verdict.ALLOW, verdict("SELECT has_schema_privilege('sales', 'usage')"));
        String upper = db.user().toUpperCase(Locale.ROOT);
        assertNotEquals(db.user(), upper);
        Verdict.Refuse role = assertInstanceOf(Verdict.Refuse.class,
                verdict("SELECT has_table_privilege('" + upper + "', 'public.orders', 'select')"));
        assertEquals("role \"" + upper + "\" does not exist", role.message());
        assertEquals(Verdict.ALLOW, verdict("SELECT has_table_privilege('" + db.user() + "', 'public.orders', "
                + "'select')"));
    }

    @Test
    void halvesOfDifferentRowsOrViewsAreRefused() {
        // sales (of sales.items) and orders (of public.orders) would name the hidden sales.orders.
        String pair = "'\"' || replace(a.schemaname, '\"', '\"\"') || '\".\"' || replace(b.NAMECOL, '\"', '\"\"')"
                + " || '\"'";
        String tables = pair.replace("NAMECOL", "tablename");
        refused("SELECT has_table_privilege(" + tables + ", 'select') FROM pg_tables a, pg_tables b");
        refused("SELECT has_table_privilege(" + pair.replace("NAMECOL", "viewname") + ", 'select') "
                + "FROM pg_tables a JOIN pg_views b ON true");
        refused("SELECT has_table_privilege(" + tables + ", 'select') FROM pg_tables a, LATERAL (SELECT tablename "
                + "FROM pg_tables) b");
        refused("SELECT has_table_privilege(format('%I.%I', a.schemaname, b.tablename), 'select') "
                + "FROM pg_tables a CROSS JOIN pg_tables b");
        // The two columns of one subquery, but taken from two rows.
        refused("SELECT has_table_privilege(" + QUOTED + ", 'select') FROM (SELECT a.schemaname, b.tablename "
                + "FROM pg_tables a, pg_tables b) t");
        // A name column beside the schema, or a schema beside a name column, of another key or kind.
        refused("SELECT has_table_privilege(format('%I.%I', t.tablename, t.schemaname), 'select') FROM pg_tables t");
        refused("SELECT has_table_privilege(format('%I.%I', t.schemaname, t.tableowner), 'select') FROM pg_tables t");
        refused("SELECT has_table_privilege(format('%I.%I', t.schemaname, t.indexname), 'select') FROM pg_indexes t");
    }

    @Test
    void aHalfFromElsewhereIsRefused() {
        refused("SELECT has_table_privilege('\"' || replace(t.schemaname, '\"', '\"\"') || '\".\"orders\"', "
                + "'select') FROM pg_tables t");
        refused("SELECT has_table_privilege(format('%I.%I', 'sales', t.tablename), 'select') FROM pg_tables t");
        refused("SELECT has_table_privilege(format('%I.%I', t.schemaname, t.tablename || ''), 'select') "
                + "FROM pg_tables t");
        refused("SELECT has_table_privilege(" + QUOTED + ", 'select') FROM (SELECT schemaname, tablename "
                + "FROM pg_tables UNION SELECT 'sales', 'orders') t");
        refused("SELECT has_table_privilege(" + QUOTED + ", 'select') FROM (VALUES ('sales'::name, 'orders'::name))"
                + " t(schemaname, tablename)");
        refused("SELECT has_table_privilege(" + QUOTED + ", 'select') FROM (SELECT n.nspname AS schemaname, "
                + "c.relname AS tablename FROM pg_class c, pg_namespace n) t");
    }

    @Test
    void anyOtherQuotingIsRefused() {
        for (String name : List.of(
                "'\"' || replace(t.schemaname, '\"', '') || '\".\"' || replace(t.tablename, '\"', '\"\"') || '\"'",
                "'\"' || replace(t.schemaname, '\"', '\"\"') || '\".\"' || replace(t.tablename, '.', '\"\"') || '\"'",
                "replace(t.schemaname, '\"', '\"\"') || '.' || replace(t.tablename, '\"', '\"\"')",
                "t.schemaname || '.' || t.tablename",
                "quote_ident(t.schemaname) || '.' || t.tablename",
                "quote_ident(t.schemaname) || '..' || quote_ident(t.tablename)",
                "quote_ident(t.schemaname) || '.' || quote_ident(t.tablename) || '.x'",
                "'\"' || quote_ident(t.schemaname) || '\".' || quote_ident(t.tablename)",
                "format('%s.%s', t.schemaname, t.tablename)",
                "format('%I.%I', t.schemaname, t.tablename, 'x')",
                "format('%2$I.%1$I', t.schemaname, t.tablename)",
                "concat(quote_ident(t.schemaname), '.', quote_ident(t.tablename))",
                "upper(quote_ident(t.schemaname) || '.' || quote_ident(t.tablename))",
                "t.tablename",
                "t.tablename::text")) {
            refused("SELECT has_table_privilege(" + name + ", 'select') FROM pg_tables t");
        }
    }

    @Test
    void aCarelessSplitWouldFindTheHiddenNamesake() throws SQLException {
        // The hidden "Odd"."Schema.We""ird.Name" exists: an unquoted join of the visible pair would name it.
        assertEquals(List.of("t"), rows("SELECT to_regclass('\"Odd\".\"Schema.We\"\"ird.Name\"') IS NOT NULL"));
        refused("SELECT to_regclass('\"' || t.schemaname || '\".\"' || t.tablename || '\"') FROM pg_tables t");
        assertEquals(List.of("We\"ird.Name|\"Odd.Schema\".\"We\"\"ird.Name\""), allowed("SELECT t.tablename, to_regclass("
                + QUOTED + ")::text FROM pg_tables t WHERE t.schemaname = 'Odd.Schema'"));
    }

    // ---- pgcli (#69) --------------------------------------------------------------------------------------------

    @Test
    void pgclisFunctionListShowsBuiltInFunctions() throws SQLException {
        List<String> rows = allowed(PGCLI_FUNCTIONS);
        assertTrue(rows.size() > 1000, "built-in functions: " + rows.size());
        assertTrue(rows.stream().allMatch(r -> r.startsWith("pg_catalog|") || r.startsWith("information_schema|")),
                rows.stream().filter(r -> !r.startsWith("pg_catalog|")).limit(5).toList().toString());
        assertTrue(rows.stream().anyMatch(r -> r.startsWith("pg_catalog|pg_get_expr|")), "pg_get_expr listed");
        assertTrue(rows.stream().anyMatch(r -> r.contains("|make_interval|") && r.contains("0")), "defaults shown");
    }

    @Test
    void objectIdentifierArraysOfOtherOriginsAreRefused() throws SQLException {
        allowed("SELECT proname, proargtypes::regtype[], proallargtypes::regtype[]::text[] FROM pg_proc "
                + "WHERE proname = 'lower'");
        long hiddenType = Long.parseLong(rows("SELECT 'public.secrets'::regtype::oid").getFirst());
        refused("SELECT ('{" + hiddenType + "}'::oid[])::regtype[]");
        refused("SELECT ARRAY[c.reltype]::regtype[] FROM pg_class c");
        refused("SELECT array_agg(c.reltype)::regtype[] FROM pg_class c");
        refused("SELECT x::regtype[] FROM (SELECT ARRAY[c.reltype] AS x FROM pg_class c) s");
        refused("SELECT ('{" + hiddenType + "}'::text[])::regtype[]");
        refused("SELECT COALESCE(NULL::regtype[], '{" + hiddenType + "}'::oid[]::regtype[])");
        // Refused on every version; on PostgreSQL 14 the check itself fails on it (42601), which refuses it too.
        assertInstanceOf(Verdict.Refuse.class, verdict("SELECT COALESCE(c.reltype::regtype, " + hiddenType
                + "::oid::regtype) FROM pg_class c"));
    }

    @Test
    void aFunctionsDefaultsDeparseWithoutARelation() throws SQLException {
        assertFalse(allowed("SELECT pg_get_expr(proargdefaults, 0) FROM pg_proc WHERE proargdefaults IS NOT NULL")
                .isEmpty());
        // The user function's default names a hidden function: it is not in the filtered pg_proc.
        assertTrue(rows("SELECT pg_get_expr(proargdefaults, 0) FROM pg_proc WHERE proname = 'with_default'")
                .getFirst().contains("leak_secret"));
        refused("SELECT pg_get_expr(p.proargdefaults, " + Long.parseLong(rows("SELECT 'public.secrets'::regclass::oid")
                .getFirst()) + ") FROM pg_proc p");
    }
}
