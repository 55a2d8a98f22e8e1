package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.selection.ResolvedSelection;
import io.pgward.guard.selection.SelectedNames;
import io.pgward.guard.selection.SelectionResolver;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The filtered system views and information_schema views of the guard corpus's selection (orders, customers, v_sales,
 * mv_region) on a real PostgreSQL (14 to 18 with -Dpg.version): what the rewritten statements return when PostgreSQL
 * runs them, what L3 accepts, and the near copies of a filter it refuses. Beside the corpus fixture's hidden
 * relations (secrets, v_leak, hr.salaries), {@code public.payment_tokens} has a foreign key to customers and a check
 * constraint named like one of orders', {@code customers} gets a foreign key to it, and {@code hr.wide} has 61
 * columns, which no visible relation matches.
 */
@PostgresTest
class FilteredViewsPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final int WIDE = 61;
    /** Words of hidden objects: none may appear in a filtered view's rows. */
    private static final List<String> HIDDEN = List.of("secrets", "salaries", "payment_tokens", "v_leak", "wide",
            "tok_live", "customers_token_fk", "token_text", "leak_secret", "purge_inactive", "secret_col", "data_directory", "config_file", "hba_file", "ident_file",
            "postgresql.conf");

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE TABLE hr.wide (" + IntStream.rangeClosed(1, WIDE).mapToObj(i -> "c" + i + " int")
                    .collect(Collectors.joining(", ")) + ")");
            s.execute("CREATE TABLE public.payment_tokens (id serial PRIMARY KEY, customer_id int "
                    + "REFERENCES public.customers(id), token text, amount numeric CONSTRAINT amount_positive "
                    + "CHECK (amount > 0))");
            s.execute("ALTER TABLE public.orders ADD CONSTRAINT amount_positive CHECK (amount >= 0)");
            s.execute("ALTER TABLE public.orders ADD CONSTRAINT orders_status_known CHECK (status <> 'x')");
            s.execute("ALTER TABLE public.customers ADD COLUMN token_id int CONSTRAINT customers_token_fk "
                    + "REFERENCES public.payment_tokens(id)");
            s.execute("INSERT INTO public.payment_tokens (customer_id, token, amount) VALUES (1, 'tok_live_CCCC', 5)");
            s.execute("CREATE TABLE hr.orders (secret_col int)");
            s.execute("CREATE DOMAIN public.positive_amount AS numeric CHECK (VALUE >= 0)");
            s.execute("ALTER TABLE public.orders ADD COLUMN discount public.positive_amount");
            s.execute("CREATE DOMAIN public.token_text AS text CHECK (VALUE <> '')");
            s.execute("ALTER TABLE public.payment_tokens ADD COLUMN token_kind public.token_text");
            s.execute("ANALYZE");
            selection = FilteredFixture.filteredSelection(c, GuardFixture.SELECTED);
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
        return check.checkNow(CheckRequest.of(selection, null, PATH, sql));
    }

    /** Every row, its cells joined with "|", run directly as the database owner. */
    private static List<String> rows(String sql) throws SQLException {
        return FilteredFixture.rows(db, sql);
    }

    private static void assertNothingHidden(List<String> rows, String sql) {
        for (String row : rows) {
            String lower = row.toLowerCase(Locale.ROOT);
            for (String word : HIDDEN) {
                assertFalse(lower.contains(word), word + " in " + row + " of " + sql);
            }
        }
    }

    private static void assertRefusedAsNotSelected(Verdict verdict) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict);
        assertEquals(CatalogRefusals.RELATION, refuse.rule(), refuse.message());
    }

    /** The rewritten statement is allowed, shows nothing hidden, and the client's own text is still refused. */
    private static List<String> allowedRows(String sql) throws SQLException {
        String rewritten = rewrite(sql);
        assertNotEquals(sql, rewritten, "not rewritten: " + sql);
        assertEquals(Verdict.ALLOW, verdict(rewritten), rewritten);
        assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        List<String> rows = rows(rewritten);
        assertNothingHidden(rows, sql);
        return rows;
    }

    @Test
    void everyFilteredViewIsServedAndShowsNothingHidden() throws SQLException {
        for (FilteredView view : FilteredView.values()) {
            assertNotNull(selection.views().byName(view.schema(), view.relation()), view.name());
            String sql = "SELECT * FROM " + view.schema() + "." + view.relation();
            if (view == FilteredView.PG_SEQUENCES) {
                // data_type is a regtype: the code rules still refuse object-identifier types with a selection.
                sql = "SELECT schemaname, sequencename, last_value FROM pg_catalog.pg_sequences";
            }
            if (view == FilteredView.IS_ROUTINES || view == FilteredView.IS_PARAMETERS) {
                // Built-in function names hold words such as hba_file: the schemas are what is filtered.
                sql = "SELECT DISTINCT specific_schema FROM information_schema." + view.relation() + " ORDER BY 1";
                assertEquals(List.of("information_schema", "pg_catalog"), allowedRows(sql));
                continue;
            }
            allowedRows(sql);
            List<String> unfiltered = rows(sql);
            assertFalse(unfiltered.isEmpty() && view.schema().equals("information_schema")
                    && unfiltered.stream().noneMatch(r -> r.contains("secrets") || r.contains("payment_tokens")
                    || r.contains("salaries") || r.contains("pg_catalog") || r.contains("information_schema")
                    || r.contains("amount_positive") || r.contains("not_null") || r.contains("hr")),
                    "the unfiltered view shows something the filter removes: " + view);
        }
    }

    @Test
    void informationSchemaShowsTheSelectionOnly() throws SQLException {
        // information_schema.tables does not list materialized views.
        assertEquals(List.of("customers", "orders", "v_sales"), firstCells(allowedRows(
                "SELECT table_name FROM information_schema.tables ORDER BY 1")));
        assertEquals(List.of(), allowedRows(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'salaries'"));
        assertTrue(firstCells(allowedRows("SELECT column_name FROM information_schema.columns "
                + "WHERE table_name = 'orders'")).contains("customer_id"));
        assertEquals(List.of("information_schema", "pg_catalog", "public"), firstCells(allowedRows(
                "SELECT schema_name FROM information_schema.schemata ORDER BY 1")));
        assertEquals(List.of("v_sales"), firstCells(allowedRows(
                "SELECT table_name FROM \"information_schema\".\"views\"")));
        assertEquals(List.of("null"), allowedRows("SELECT view_definition FROM information_schema.views"));
    }

    @Test
    void constraintsOfHiddenTablesAndToHiddenTablesDoNotShow() throws SQLException {
        List<String> referential = firstCells(allowedRows(
                "SELECT constraint_name FROM information_schema.referential_constraints ORDER BY 1"));
        assertEquals(List.of("orders_customer_id_fkey"), referential);
        // payment_tokens' foreign key to customers names customers in constraint_column_usage.
        List<String> usage = allowedRows("SELECT table_name, column_name, constraint_name "
                + "FROM information_schema.constraint_column_usage ORDER BY 3");
        assertTrue(usage.contains("customers|id|orders_customer_id_fkey"), usage.toString());
        assertTrue(rows("SELECT constraint_name FROM information_schema.constraint_column_usage").stream()
                .anyMatch(r -> r.contains("payment_tokens_customer_id_fkey")), "the unfiltered view shows it");
        List<String> tableConstraints = firstCells(allowedRows(
                "SELECT constraint_name FROM information_schema.table_constraints WHERE table_name = 'customers'"));
        assertTrue(tableConstraints.contains("customers_pkey"), tableConstraints.toString());
        assertFalse(tableConstraints.contains("customers_token_fk"), tableConstraints.toString());
        assertFalse(firstCells(allowedRows("SELECT constraint_name FROM information_schema.key_column_usage"))
                .contains("customers_token_fk"));
        // amount_positive names a visible and a hidden constraint in public: neither is shown alone by name.
        List<String> checks = firstCells(allowedRows("SELECT constraint_name FROM information_schema.check_constraints"
                + " WHERE constraint_schema = 'public'"));
        assertTrue(checks.contains("orders_status_known"), checks.toString());
        assertFalse(checks.contains("amount_positive"), checks.toString());
    }

    @Test
    void settingsAreTheAllowListWithoutFiles() throws SQLException {
        List<String> names = firstCells(allowedRows("SELECT name, setting, sourcefile FROM pg_settings"));
        assertTrue(names.contains("server_version_num") && names.contains("standard_conforming_strings"),
                names.toString());
        assertTrue(names.stream().allMatch(VisibleSettings.NAMES::contains), names.toString());
        assertEquals(List.of("null"), allowedRows("SELECT DISTINCT sourcefile FROM pg_catalog.pg_settings"));
        assertEquals(List.of(), allowedRows("SELECT setting FROM pg_settings WHERE name = 'data_directory'"));
        assertEquals(1, allowedRows("SELECT setting FROM pg_catalog.pg_settings WHERE name='max_index_keys'").size());
    }

    @Test
    void statisticsOfHiddenRelationsDoNotShow() throws SQLException {
        assertEquals(List.of(), allowedRows("SELECT most_common_vals FROM pg_stats WHERE tablename = 'secrets'"));
        assertFalse(allowedRows("SELECT attname FROM pg_stats WHERE tablename = 'customers'").isEmpty());
        List<String> tables = firstCells(allowedRows("SELECT relname, n_live_tup FROM pg_stat_user_tables ORDER BY 1"));
        assertEquals(List.of("customers", "mv_region", "orders"), tables);
        assertFalse(firstCells(allowedRows("SELECT indexrelname FROM pg_statio_user_indexes")).isEmpty());
        assertEquals(List.of("public|orders"), allowedRows("SELECT schemaname, tablename FROM pg_tables "
                + "WHERE tablename IN ('orders', 'secrets', 'salaries', 'payment_tokens')"));
        assertEquals(List.of("v_sales|null"), allowedRows("SELECT viewname, definition FROM pg_views "
                + "WHERE schemaname = 'public'"));
    }

    @Test
    void aConditionOfTheStatementNeverRunsOnAHiddenRow() throws SQLException {
        String probe = "SELECT count(*) FROM information_schema.columns WHERE 10 / (ordinal_position - " + WIDE
                + ") > -100";
        SQLException unfiltered = assertThrows(SQLException.class, () -> rows(probe));
        assertTrue(unfiltered.getMessage().contains("division by zero"), unfiltered.getMessage());
        assertEquals(1, allowedRows(probe).size());
        // Of the relations in pg_stat_user_tables only the hidden secrets has a name of seven characters.
        String stats = "SELECT count(*) FROM pg_stat_user_tables WHERE 1 / (length(relname) - 7) > -100";
        SQLException hidden = assertThrows(SQLException.class, () -> rows(stats));
        assertTrue(hidden.getMessage().contains("division by zero"), hidden.getMessage());
        assertEquals(1, allowedRows(stats).size());
    }

    @Test
    void aHandWrittenCopyOfTheFilterIsTheFilter() {
        ViewFilters.Filter filter = selection.views().byName("information_schema", "tables");
        assertEquals(Verdict.ALLOW, verdict("SELECT table_name FROM (SELECT table_name FROM information_schema.tables"
                + " WHERE " + filter.condition() + " OFFSET 0) x"));
    }

    @Test
    void aNearCopyOfTheFilterIsRefused() {
        ViewFilters.Filter tables = selection.views().byName("information_schema", "tables");
        String condition = tables.condition();
        assertTrue(condition.contains("\"orders\""), condition);
        String oneMore = condition.replace("\"orders\"", "\"orders\",\"secrets\"");
        String anySchema = "table_schema OPERATOR(pg_catalog.=) ANY ('{public,hr}'::pg_catalog.name[]) AND "
                + "table_name OPERATOR(pg_catalog.=) ANY ('{customers,mv_region,orders,v_sales,salaries}'"
                + "::pg_catalog.name[])";
        ViewFilters.Filter settings = selection.views().byName("pg_catalog", "pg_settings");
        for (String sql : List.of(
                "SELECT table_name FROM (SELECT table_name FROM information_schema.tables WHERE " + oneMore
                        + " OFFSET 0) x",
                // independent lists would admit hr.salaries
                "SELECT table_name FROM (SELECT table_name FROM information_schema.tables WHERE " + anySchema
                        + " OFFSET 0) x",
                // no fence
                "SELECT table_name FROM (SELECT table_name FROM information_schema.tables WHERE " + condition + ") x",
                // the statement's own condition beside the filter, or the filter weakened
                "SELECT table_name FROM (SELECT table_name FROM information_schema.tables WHERE " + condition
                        + " AND table_name::text <> 'x' OFFSET 0) x",
                "SELECT table_name FROM (SELECT table_name FROM information_schema.tables WHERE " + condition
                        + " OR true OFFSET 0) x",
                // a computed column; a masked column
                "SELECT n FROM (SELECT table_name || 'x' AS n FROM information_schema.tables WHERE " + condition
                        + " OFFSET 0) x",
                "SELECT d FROM (SELECT view_definition AS d FROM information_schema.views WHERE "
                        + selection.views().byName("information_schema", "views").condition() + " OFFSET 0) x",
                "SELECT s FROM (SELECT sourcefile AS s FROM pg_settings WHERE " + settings.condition()
                        + " OFFSET 0) x",
                // the filter of a view keyed on its table only, on a view keyed on its constraint as well
                "SELECT 1 FROM (SELECT table_name FROM information_schema.table_constraints WHERE " + condition
                        + " OFFSET 0) x",
                // a setting more
                "SELECT setting FROM (SELECT setting FROM pg_settings WHERE " + settings.condition()
                        .replace("\"application_name\"", "\"application_name\",\"data_directory\"")
                        + " OFFSET 0) x")) {
            assertRefusedAsNotSelected(verdict(sql));
        }
    }

    @Test
    void aNondeterministicCollationOnTheKeyIsRefused() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE COLLATION IF NOT EXISTS public.ci (provider = icu, locale = 'und-u-ks-level2', "
                    + "deterministic = false)");
        }
        String condition = selection.views().byName("information_schema", "tables").condition()
                .replace("\"table_name\" OPERATOR", "\"table_name\" COLLATE public.ci OPERATOR");
        assertRefusedAsNotSelected(verdict("SELECT table_name FROM (SELECT table_name FROM information_schema.tables "
                + "WHERE " + condition + " OFFSET 0) x"));
    }

    /** hr.orders is hidden and named like the visible public.orders. */
    @Test
    void spellingsAndShapesAroundTheViewsAreFilteredToo() throws SQLException {
        assertEquals(List.of("public"), allowedRows("SELECT DISTINCT table_schema FROM information_schema.columns "
                + "WHERE table_name = 'orders'"));
        assertEquals(List.of("public"), allowedRows("SELECT DISTINCT table_schema FROM \"information_schema\" . "
                + "/* c */ \"columns\" WHERE table_name = 'orders'"));
        assertEquals(List.of(), allowedRows("SELECT 1 WHERE EXISTS (SELECT 1 FROM information_schema.columns "
                + "WHERE table_name = 'salaries')"));
        assertEquals(List.of("3"), allowedRows("WITH t AS (SELECT table_name FROM information_schema.tables) "
                + "SELECT count(*) FROM t"));
        List<String> union = firstCells(allowedRows("SELECT table_name::text FROM information_schema.tables UNION "
                + "SELECT tablename::text FROM pg_tables UNION SELECT relname::text FROM pg_stat_all_tables"));
        assertTrue(union.contains("orders") && union.contains("mv_region"), union.toString());
        List<String> lateral = allowedRows("SELECT c.relname, t.column_name FROM pg_class c, LATERAL (SELECT "
                + "column_name FROM information_schema.columns k WHERE k.table_name = c.relname) t "
                + "WHERE c.relname IN ('orders', 'salaries')");
        assertTrue(lateral.contains("orders|discount"), lateral.toString());
        // With information_schema on the path a bare name is not rewritten, and stays refused.
        String bare = "SELECT table_name FROM tables";
        String rewritten = CatalogRewrite.rewrite(split(bare), "information_schema, public", selection.filters(),
                selection.views());
        assertEquals(bare, rewritten);
        assertRefusedAsNotSelected(check.checkNow(CheckRequest.of(selection, null, "information_schema, public",
                bare)));
        // A view reached from a filter subquery of the statement's own making, with an outer column: refused.
        ViewFilters.Filter tables = selection.views().byName("information_schema", "tables");
        assertRefusedAsNotSelected(verdict("SELECT c.relname, t.n FROM pg_catalog.pg_class c, LATERAL (SELECT "
                + "c.relname AS n, table_name FROM information_schema.tables WHERE " + tables.condition()
                + " OFFSET 0) t"));
    }

    private static io.pgward.guard.lexer.StatementText split(String sql) {
        try {
            return SqlLexer.split(sql, true).getFirst();
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void domainsViewUsageAndRoutinesShowTheVisibleOnes() throws SQLException {
        List<String> domains = firstCells(allowedRows("SELECT domain_name FROM information_schema.domains "
                + "WHERE domain_schema = 'public'"));
        assertEquals(List.of("positive_amount"), domains);
        assertEquals(List.of("positive_amount_check"), firstCells(allowedRows("SELECT constraint_name "
                + "FROM information_schema.domain_constraints WHERE domain_schema = 'public'")));
        assertEquals(List.of("orders|discount"), allowedRows("SELECT table_name, column_name "
                + "FROM information_schema.column_domain_usage WHERE domain_schema = 'public'"));
        assertEquals(List.of("v_sales|orders"), allowedRows("SELECT view_name, table_name "
                + "FROM information_schema.view_table_usage"));
        assertFalse(allowedRows("SELECT column_name FROM information_schema.view_column_usage").isEmpty());
        assertEquals(List.of(), allowedRows("SELECT routine_name FROM information_schema.routines "
                + "WHERE routine_schema = 'public'"));
        assertFalse(allowedRows("SELECT specific_name FROM information_schema.routines "
                + "WHERE routine_name = 'lower' AND routine_schema = 'pg_catalog'").isEmpty());
        assertEquals(List.of(), allowedRows("SELECT parameter_name FROM information_schema.parameters "
                + "WHERE specific_schema = 'public'"));
        assertTrue(allowedRows("SELECT sequence_name FROM information_schema.sequences").contains("orders_id_seq"));
    }

    /** drizzle-kit pull's information_schema statements (0.31), with the schema "public". */
    @Test
    void drizzleKitPullStatementsShowTheSelectionOnly() throws SQLException {
        assertEquals(List.of("customers|id|1", "orders|id|1"), allowedRows("""
                SELECT table_name, column_name, ordinal_position
                  FROM information_schema.table_constraints t
                  LEFT JOIN information_schema.key_column_usage k
                  USING(constraint_name,table_schema,table_name)
                  WHERE t.constraint_type='PRIMARY KEY'
                      and table_name != '__drizzle_migrations'
                      AND t.table_schema = 'public'
                      ORDER BY table_name, ordinal_position"""));
        List<String> checks = allowedRows("""
                SELECT
                    tc.table_name,
                    tc.constraint_name,
                    cc.check_clause
                FROM
                    information_schema.table_constraints tc
                JOIN
                    information_schema.check_constraints cc
                    ON tc.constraint_name = cc.constraint_name
                WHERE
                    tc.constraint_schema = 'public'
                AND
                    tc.constraint_type = 'CHECK'""");
        // Beside orders' check, the NOT NULL constraints (a check each in information_schema, named by OIDs before
        // PostgreSQL 18); never payment_tokens' amount_positive, nor orders' of the same name.
        assertTrue(checks.stream().anyMatch(r -> r.startsWith("orders|orders_status_known|")), checks.toString());
        assertTrue(checks.stream().allMatch(r -> r.startsWith("orders|orders_status_known|")
                || r.endsWith("IS NOT NULL")), checks.toString());
        List<String> keys = allowedRows("""
                SELECT c.column_name, c.data_type, constraint_type, constraint_name, constraint_schema
                      FROM information_schema.table_constraints tc
                      JOIN information_schema.constraint_column_usage AS ccu USING (constraint_schema, constraint_name)
                      JOIN information_schema.columns AS c ON c.table_schema = tc.constraint_schema
                        AND tc.table_name = c.table_name AND ccu.column_name = c.column_name
                      WHERE tc.table_name = 'customers' and constraint_schema = 'public'""");
        // PostgreSQL 18 lists the NOT NULL constraint of id as well; the foreign key to payment_tokens is never shown.
        assertTrue(keys.contains("id|integer|PRIMARY KEY|customers_pkey|public"), keys.toString());
        assertTrue(keys.stream().allMatch(r -> r.equals("id|integer|PRIMARY KEY|customers_pkey|public")
                || r.equals("id|integer|CHECK|customers_id_not_null|public")), keys.toString());
        List<String> columns = allowedRows("""
                select * from information_schema.columns
                	where table_schema = 'public' and table_name != '__drizzle_migrations'
                	order by table_name, ordinal_position""");
        assertTrue(columns.stream().anyMatch(r -> r.contains("|customers|email|")), columns.toString());
    }

    /** information_schema's pure built-ins are built-ins for every login; the one that reads pg_index is not. */
    @Test
    void informationSchemaPureFunctionsAreBuiltIns() {
        for (TableSelection login : List.of(TableSelection.NONE, selection)) {
            assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(login, null, PATH,
                    "SELECT (information_schema._pg_expandarray(ARRAY[3, 1])).x")));
            assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(login, null, PATH,
                    "SELECT information_schema._pg_char_max_length(1043, 14)")));
            Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(login, null,
                    PATH, "SELECT information_schema._pg_index_position(1, 1::int2)")));
            assertEquals(CatalogRefusals.FUNCTION, refuse.rule(), refuse.message());
        }
    }

    @Test
    void pgjdbcPrimaryKeysCallInformationSchemaExpandArray() throws SQLException {
        String sql = "SELECT a.attname, a.atttypid, atttypmod FROM pg_catalog.pg_class ct   JOIN "
                + "pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)   JOIN pg_catalog.pg_namespace n ON "
                + "(ct.relnamespace = n.oid)   JOIN (SELECT i.indexrelid, i.indrelid, i.indisprimary,              "
                + "information_schema._pg_expandarray(i.indkey) AS keys         FROM pg_catalog.pg_index i) i     ON "
                + "(a.attnum = (i.keys).x AND a.attrelid = i.indrelid) WHERE true  AND n.nspname = 'public' AND "
                + "ct.relname = 'orders' AND i.indisprimary  ORDER BY a.attnum ";
        assertEquals(List.of("id"), firstCells(allowedRows(sql)));
        assertEquals(List.of(), rows(rewrite(sql.replace("'orders'", "'payment_tokens'"))));
    }

    @Test
    void aRenamedVisibleTableIsFoundUnderItsNewName() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("ALTER TABLE public.customers RENAME TO clients");
            ResolvedSelection resolved = SelectionResolver.resolve(c, SelectedNames.parse("tables",
                    List.of("public.orders", "public.clients")));
            ViewFilters renamed = ViewFilters.of(resolved.visible(), resolved.names(), ViewColumns.read(c));
            String condition = renamed.byName("information_schema", "tables").condition();
            c.rollback();
            assertTrue(condition.contains("\"clients\"") && !condition.contains("\"customers\""), condition);
        }
    }

    /**
     * Names with quotes, a backslash, braces, commas, spaces, the word NULL and non-ASCII letters are written into the
     * filter's constants and read back by the proof exactly, with standard_conforming_strings on and off.
     */
    @Test
    void oddNamesAreWrittenAndProvenExactly() throws SQLException {
        String schema = "Odd \"Ünï\" 'x'";
        String table = "we\"ird, {x} \\ NULL";
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS \"Odd \"\"Ünï\"\" 'x'\"");
            s.execute("CREATE TABLE IF NOT EXISTS \"Odd \"\"Ünï\"\" 'x'\".\"we\"\"ird, {x} \\ NULL\" (a int)");
            s.execute("CREATE TABLE IF NOT EXISTS \"Odd \"\"Ünï\"\" 'x'\".\"we\"\"ird\" (b int)");
            ResolvedSelection resolved = SelectionResolver.resolve(c, SelectedNames.parse("tables",
                    List.of("\"Odd \"\"Ünï\"\" 'x'\".\"we\"\"ird, {x} \\ NULL\"", "public.orders")));
            assertEquals(2, resolved.relations().size(), resolved.toString());
            TableSelection odd = new TableSelection(resolved.relations().stream()
                    .map(r -> new SelectedRelation(r.oid(), r.displayName())).toList(), false)
                    .withViews(ViewFilters.of(resolved.visible(), resolved.names(), ViewColumns.read(c)));
            String sql = "SELECT table_schema, table_name, column_name FROM information_schema.columns ORDER BY 1, 2, 3";
            String rewritten = CatalogRewrite.rewrite(SqlLexer.split(sql, true).getFirst(), PATH, odd.filters(),
                    odd.views());
            for (boolean conforming : List.of(true, false)) {
                assertEquals(Verdict.ALLOW, check.checkNow(new CheckRequest(odd, null, PATH, conforming, rewritten,
                        List.of())), rewritten);
            }
            List<String> rows = rows(rewritten);
            assertTrue(rows.contains(schema + "|" + table + "|a"), rows.toString());
            assertFalse(rows.stream().anyMatch(r -> r.endsWith("|b")), rows.toString());
            try (Statement off = c.createStatement()) {
                off.execute("SET standard_conforming_strings = off");
                try (ResultSet rs = off.executeQuery(rewritten)) {
                    int n = 0;
                    while (rs.next()) {
                        n++;
                    }
                    assertEquals(rows.size(), n);
                }
            }
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> firstCells(List<String> rows) {
        return rows.stream().map(r -> r.split("\\|", -1)[0]).toList();
    }
}
