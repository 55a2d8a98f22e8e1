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
 * The gated catalog functions and object-identifier values of a login with a filtered catalog (design section
 * 3.2), on a real PostgreSQL (14 to 18 with -Dpg.version), with the guard corpus's selection (orders, customers,
 * v_sales, mv_region). Hidden: secrets, v_leak, hr.salaries, and {@code hr.orders}, a hidden table of the same name
 * as a selected one, found first when hr leads the search_path. Every allowed statement is also run, rewritten, and
 * its whole output searched for the hidden names.
 */
@PostgresTest
class GatedFunctionsPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final String HR_FIRST = "hr, public";
    private static final List<String> HIDDEN = List.of("secrets", "salaries", "v_leak", "hr.orders", "tok_live",
            "hidden comment");

    private static TestDatabase db;
    private static CatalogCheck check;
    private static CatalogFilters filters;
    private static TableSelection selection;
    private static long orders;
    private static long secrets;
    private static long hiddenOrders;
    private static long hiddenRole;
    private static long secretsType;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE TABLE hr.orders (id int PRIMARY KEY, token text)");
            s.execute("COMMENT ON TABLE public.orders IS 'the orders'");
            s.execute("COMMENT ON TABLE public.secrets IS 'hidden comment'");
            filters = filters(c, GuardFixture.SELECTED);
            selection = GuardFixture.selection(c).withFilters(filters);
        }
        orders = oid("SELECT 'public.orders'::regclass::oid");
        secrets = oid("SELECT 'public.secrets'::regclass::oid");
        hiddenOrders = oid("SELECT 'hr.orders'::regclass::oid");
        hiddenRole = oid("SELECT 'analyst'::regrole::oid");
        secretsType = oid("SELECT 'public.secrets'::regtype::oid");
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
        return Long.parseLong(rows(sql, PATH).getFirst());
    }

    private static String rewrite(String sql, String path) {
        try {
            return CatalogRewrite.rewrite(SqlLexer.split(sql, true).getFirst(), path, filters);
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    private static Verdict verdict(String sql) {
        return verdict(sql, PATH, selection);
    }

    private static Verdict verdict(String sql, String path, TableSelection login) {
        return check.checkNow(CheckRequest.of(login, null, path, rewrite(sql, path)));
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
                        row.add(rs.getString(i));
                    }
                    rows.add(String.join("|", row));
                }
            }
        }
        return rows;
    }

    /** Allowed, and its rewritten text runs and shows nothing hidden; returns its rows. */
    private static List<String> assertAllowed(String sql) throws SQLException {
        return assertAllowed(sql, PATH);
    }

    private static List<String> assertAllowed(String sql, String path) throws SQLException {
        assertEquals(Verdict.ALLOW, verdict(sql, path, selection), sql);
        List<String> rows = rows(rewrite(sql, path), path);
        String all = String.join("\n", rows).toLowerCase(Locale.ROOT);
        for (String hidden : HIDDEN) {
            assertFalse(all.contains(hidden), sql + " shows " + hidden);
        }
        return rows;
    }

    private static void assertAbsent(String sql, String sqlState, String message) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, refuse.rule(), refuse.message());
        assertEquals(sqlState, refuse.sqlState(), refuse.message());
        assertEquals(message, refuse.message());
    }

    /**
     * A reg* literal of a relation in the hidden schema: up to PostgreSQL 15 the input function fails on the schema
     * first, as it does in a database without it; from 16 on, on the relation.
     */
    private static void assertAbsentInHr(String sql, String relationMessage) {
        if (db.serverMajor() <= 15) {
            assertAbsent(sql, "3F000", "schema \"hr\" does not exist");
        } else {
            assertAbsent(sql, "42P01", relationMessage);
        }
    }

    private static void assertGateRefused(String sql, String function) {
        assertGateRefused(sql, PATH, function);
    }

    private static void assertGateRefused(String sql, String path, String function) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(sql, path, selection), sql);
        assertEquals(CatalogRefusals.DENIED_BUILT_IN, refuse.rule(), sql + ": " + refuse.message());
        assertTrue(refuse.message().contains(function + " is not allowed while a table selection is set"),
                refuse.message());
    }

    private static void assertObjectIdentifierRefused(String sql, String path) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(sql, path, selection), sql);
        assertEquals(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, refuse.rule(), sql + ": " + refuse.message());
    }

    // ---- constants --------------------------------------------------------------------------------------------

    @Test
    void everyFamilyWorksOnAVisibleConstant() throws SQLException {
        assertEquals(List.of("orders_pkey"), assertAllowed("SELECT pg_get_indexdef('public.orders_pkey'::regclass)")
                .stream().map(r -> r.replaceAll(".*INDEX (\\w+) .*", "$1")).toList());
        assertAllowed("SELECT pg_get_userbyid(" + oid("SELECT relowner FROM pg_class WHERE oid = " + orders) + ")");
        assertAllowed("SELECT format_type(23, -1), format_type('public.orders'::regtype, NULL)");
        assertAllowed("SELECT pg_table_is_visible('orders'::regclass), pg_type_is_visible('int4'::regtype)");
        assertEquals(List.of("the orders|id"), assertAllowed("SELECT obj_description('orders'::regclass, "
                + "'pg_class'), pg_catalog.col_description(" + orders + ", 1) IS NULL, 'id'").stream()
                .map(r -> r.replace("|t|", "|")).toList());
        assertAllowed("SELECT has_table_privilege('public.orders', 'select'), has_schema_privilege('public', "
                + "'usage'), has_column_privilege('orders', 'id', 'select')");
        assertEquals(List.of("orders"), assertAllowed("SELECT to_regclass('public.orders')"));
        assertAllowed("SELECT pg_relation_size('orders'), pg_total_relation_size('orders'::regclass), "
                + "pg_table_size(" + orders + "), pg_indexes_size('orders')");
        assertAllowed("SELECT pg_stat_get_numscans('orders'::regclass), pg_stat_get_live_tuples(" + orders + ")");
        assertAllowed("SELECT pg_get_viewdef('v_sales'::regclass), pg_get_viewdef('public.v_sales', true)");
        assertEquals(List.of("public.orders_id_seq"),
                assertAllowed("SELECT pg_get_serial_sequence('public.orders', 'id')"));
        assertAllowed("SELECT count(*) FROM pg_get_keywords()");
        assertAllowed("SELECT pg_get_function_result('pg_get_userbyid'::regproc), "
                + "pg_function_is_visible('pg_catalog.lower(text)'::regprocedure)");
        assertAllowed("SELECT 'orders'::regclass, 'orders'::regclass::oid, 'public'::regnamespace, "
                + "'int4'::regtype, 'pg_class'::regclass");
    }

    @Test
    void aHiddenConstantIsAnAbsentObject() {
        assertAbsentInHr("SELECT 'hr.salaries'::regclass::oid", "relation \"hr.salaries\" does not exist");
        assertAbsent("SELECT to_regclass('hr.salaries')", "42P01", "relation \"hr.salaries\" does not exist");
        assertAbsent("SELECT has_table_privilege('public.secrets', 'SELECT')", "42P01",
                "relation \"public.secrets\" does not exist");
        assertAbsent("SELECT pg_get_viewdef('public.v_leak'::regclass)", "42P01",
                "relation \"public.v_leak\" does not exist");
        assertAbsent("SELECT obj_description('public.secrets'::regclass)", "42P01",
                "relation \"public.secrets\" does not exist");
        assertAbsent("SELECT " + secrets + "::regclass", "42P01", "relation with OID " + secrets + " does not exist");
        assertAbsent("SELECT pg_get_indexdef(" + secrets + ")", "42P01",
                "relation with OID " + secrets + " does not exist");
        assertAbsent("SELECT pg_relation_size(" + secrets + "::oid)", "42P01",
                "relation with OID " + secrets + " does not exist");
        assertAbsent("SELECT relname FROM pg_class WHERE relnamespace = 'hr'::regnamespace", "3F000",
                "schema \"hr\" does not exist");
        assertAbsent("SELECT pg_get_userbyid(" + hiddenRole + ")", "42704",
                "role with OID " + hiddenRole + " does not exist");
        assertAbsent("SELECT has_table_privilege('analyst', 'orders', 'select')", "42704",
                "role \"analyst\" does not exist");
        assertAbsent("SELECT format_type(" + secretsType + ", NULL)", "42704",
                "type with OID " + secretsType + " does not exist");
        assertAbsent("SELECT 'public.secrets'::regtype", "42704", "type \"public.secrets\" does not exist");
        assertAbsent("SELECT to_regclass('orders')", "42P01", "relation \"orders\" does not exist",
                HR_FIRST);
    }

    /**
     * A reg* literal of digits is an OID to the reg* input, where PostgreSQL 14 and 15's to_reg* raise a syntax error
     * for it: the check looks for the name the OID came from among the literals, and such a literal names nothing.
     */
    @Test
    void aLiteralOfDigitsIsAnOidNotAName() {
        assertAbsent("SELECT '99999'::regtype", "42704", "type with OID 99999 does not exist");
        assertAbsent("SELECT '" + secrets + "'::regclass", "42P01", "relation with OID " + secrets + " does not exist");
        assertAbsent("SELECT 99999::oid::regtype, 'a b c'", "42704", "type with OID 99999 does not exist");
        assertAbsent("SELECT 99999::oid::regtype, 'public.secrets', '1 2'", "42704",
                "type with OID 99999 does not exist");
    }

    private static void assertAbsent(String sql, String sqlState, String message, String path) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(sql, path, selection), sql);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, refuse.rule(), refuse.message());
        assertEquals(sqlState, refuse.sqlState());
        assertEquals(message, refuse.message());
    }

    /** A hidden and an absent name answer alike, so the answer is no existence oracle. */
    /** An allow on a visible OID is never shared with the same statement naming a hidden one (ShapeSharing). */
    @Test
    void anAllowIsNotSharedWithAnotherConstantOfTheSameShape() throws SQLException {
        assertAllowed("SELECT " + orders + "::regclass, pg_get_indexdef(" + orders + "::oid) IS NULL");
        assertAbsent("SELECT " + secrets + "::regclass, pg_get_indexdef(" + orders + "::oid) IS NULL", "42P01",
                "relation with OID " + secrets + " does not exist");
        assertAbsent("SELECT " + orders + "::regclass, pg_get_indexdef(" + secrets + "::oid) IS NULL", "42P01",
                "relation with OID " + secrets + " does not exist");
    }

    @Test
    void anAbsentNameAnswersAsAHiddenOne() throws SQLException {
        assertAbsent("SELECT to_regclass('hr.no_such_thing')", "42P01",
                "relation \"hr.no_such_thing\" does not exist");
        assertAbsent("SELECT to_regnamespace('hr')", "3F000", "schema \"hr\" does not exist");
        assertAbsent("SELECT to_regnamespace('no_such_schema')", "3F000", "schema \"no_such_schema\" does not exist");
        // where PostgreSQL itself fails for an absent name, it is left to PostgreSQL, whose error is the same
        assertAllowed("SELECT 1 WHERE false AND has_table_privilege('public.no_such_thing', 'select')");
        assertAbsent("SELECT 1 WHERE false AND has_table_privilege('public.secrets', 'select')", "42P01",
                "relation \"public.secrets\" does not exist");
        SQLException absent = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                () -> rows("SELECT has_table_privilege('public.no_such_thing', 'select')", PATH));
        assertTrue(absent.getMessage().contains("relation \"public.no_such_thing\" does not exist"),
                absent.getMessage());
    }

    // ---- filtered columns -------------------------------------------------------------------------------------

    @Test
    void aFilteredCatalogColumnProvesItsObject() throws SQLException {
        List<String> rows = assertAllowed("SELECT c.relname, pg_get_userbyid(c.relowner), "
                + "pg_table_is_visible(c.oid), obj_description(c.oid, 'pg_class'), c.oid::regclass, "
                + "c.oid::regclass::text FROM pg_catalog.pg_class c "
                + "WHERE c.relkind IN ('r', 'v', 'm') AND c.relnamespace = 'public'::regnamespace ORDER BY 1");
        assertEquals(List.of("customers", "mv_region", "orders", "v_sales"),
                rows.stream().map(r -> r.substring(0, r.indexOf('|'))).toList());
        assertAllowed("SELECT i.indexrelid::regclass, pg_get_indexdef(i.indexrelid), "
                + "pg_get_constraintdef(k.oid), pg_get_expr(d.adbin, d.adrelid), format_type(a.atttypid, "
                + "a.atttypmod) FROM pg_index i JOIN pg_constraint k ON k.conindid = i.indexrelid "
                + "JOIN pg_attribute a ON a.attrelid = i.indrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid "
                + "AND d.adnum = a.attnum");
        assertAllowed("SELECT t.typname, t.typinput, format_type(t.oid, NULL), pg_type_is_visible(t.oid) "
                + "FROM pg_type t WHERE t.typnamespace = 'public'::regnamespace");
    }

    /** A built-in catalog's size and row counts grow with every object, hidden ones too. */
    @Test
    void sizesAndStatisticsAreOfSelectedRelationsOnly() throws SQLException {
        assertAllowed("SELECT pg_relation_size('orders'), pg_stat_get_live_tuples('public.customers'::regclass)");
        assertGateRefused("SELECT pg_relation_size('pg_class')", "pg_relation_size");
        assertGateRefused("SELECT pg_stat_get_live_tuples('pg_catalog.pg_attribute'::regclass)",
                "pg_stat_get_live_tuples");
        // A column of pg_class's key also holds the built-in catalogs: unwrapped (the rewrite wraps a bare column
        // reference only), it is refused; wrapped in the selection's relations, built-in rows get NULL
        // (CatalogArgumentsPostgresTest).
        assertGateRefused("SELECT c.relname, pg_table_size((c.oid)) FROM pg_class c "
                + "WHERE c.relnamespace = 'public'::regnamespace", "pg_table_size");
        assertGateRefused("SELECT pg_total_relation_size((i.indrelid)) FROM pg_index i", "pg_total_relation_size");
        // the same column, proven for one kind in a statement, is asked again for the other
        assertGateRefused("SELECT pg_table_is_visible(i.indrelid), pg_table_size((i.indrelid)) FROM pg_index i",
                "pg_table_size");
        assertAllowed("SELECT c.relname, pg_table_size(c.oid) FROM pg_class c "
                + "WHERE c.relnamespace = 'public'::regnamespace");
        assertAbsent("SELECT pg_relation_size('public.secrets')", "42P01",
                "relation \"public.secrets\" does not exist");
        assertAbsent("SELECT pg_stat_get_numscans(" + secrets + ")", "42P01",
                "relation with OID " + secrets + " does not exist");
    }

    @Test
    void theOriginIsFollowedThroughCtesJoinsAndOuterQueries() throws SQLException {
        assertAllowed("WITH c AS (SELECT oid, relowner FROM pg_class) SELECT pg_get_userbyid(relowner), "
                + "oid::regclass FROM c");
        assertAllowed("SELECT pg_get_userbyid(j.relowner), pg_get_userbyid(j.nspowner), j.reltype::regtype "
                + "FROM (pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace) j");
        assertAllowed("SELECT s.r FROM (SELECT c.oid::regclass AS r FROM pg_class c) s");
        assertAllowed("SELECT (SELECT pg_get_userbyid(c.relowner)) FROM pg_class c");
        assertAllowed("SELECT c.relname FROM pg_class c WHERE EXISTS (SELECT 1 WHERE pg_table_is_visible(c.oid))");
        assertAllowed("SELECT x.relname FROM pg_class c, LATERAL (SELECT c.relname, "
                + "pg_get_userbyid(c.relowner)) x");
    }

    /** psql 15's {@code \d orders}: its column statement, with the OID psql found as a string constant. */
    @Test
    void psqlDescribeOfASelectedTable() throws SQLException {
        List<String> rows = assertAllowed("""
                SELECT a.attname,
                  pg_catalog.format_type(a.atttypid, a.atttypmod),
                  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
                   FROM pg_catalog.pg_attrdef d
                   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
                  a.attnotnull,
                  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
                   WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation)
                   AS attcollation,
                  a.attidentity,
                  a.attgenerated
                FROM pg_catalog.pg_attribute a
                WHERE a.attrelid = '%d' AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum""".formatted(orders));
        assertEquals(5, rows.size(), rows.toString());
        assertTrue(rows.get(0).contains("nextval('orders_id_seq'::regclass)"), rows.toString());
    }

    /** psql 15's "Referenced by" of {@code \d customers}: a partition function and a VALUES list, united. */
    @Test
    void psqlReferencedByOfASelectedTable() throws SQLException {
        long customers = oid("SELECT 'public.customers'::regclass::oid");
        List<String> rows = assertAllowed("""
                SELECT conname, conrelid::pg_catalog.regclass AS ontable,
                       pg_catalog.pg_get_constraintdef(oid, true) AS condef
                  FROM pg_catalog.pg_constraint c
                 WHERE confrelid IN (SELECT pg_catalog.pg_partition_ancestors('%d')
                                     UNION ALL VALUES ('%d'::pg_catalog.regclass))
                       AND contype = 'f' AND conparentid = 0
                ORDER BY conname""".formatted(customers, customers));
        assertEquals(List.of("orders_customer_id_fkey|orders|FOREIGN KEY (customer_id) REFERENCES customers(id)"),
                rows);
    }

    @Test
    void aValuesListIsProvenRowByRow() throws SQLException {
        assertEquals(List.of("orders", "customers"), assertAllowed("SELECT x::regclass FROM (VALUES (" + orders
                + "), ('customers'::regclass::oid)) v(x)"));
        assertAbsent("SELECT x FROM (VALUES ('orders'::regclass), (" + secrets + "::regclass)) v(x)", "42P01",
                "relation with OID " + secrets + " does not exist");
        assertAbsent("SELECT x::regclass FROM (VALUES (" + orders + "), (" + secrets + ")) v(x)", "42P01",
                "relation with OID " + secrets + " does not exist");
        assertObjectIdentifierRefused("SELECT x::regclass FROM (VALUES (" + orders + "), (NULLIF(" + secrets
                + ", 0))) v(x)", PATH);
    }

    // ---- what stays refused -----------------------------------------------------------------------------------

    @Test
    void anythingElseStaysRefused() throws SQLException {
        // a user table's column
        assertGateRefused("SELECT pg_get_userbyid(o.id::oid) FROM orders o", "pg_get_userbyid");
        // generated numbers, a scalar subquery, COALESCE, CASE, arithmetic
        assertGateRefused("SELECT pg_get_indexdef(g::oid) FROM generate_series(16384, 17000) g", "pg_get_indexdef");
        assertGateRefused("SELECT pg_get_indexdef((SELECT (" + orders + "::int8 + 0)::oid))", "pg_get_indexdef");
        assertGateRefused("SELECT pg_get_userbyid(COALESCE(c.relowner, " + hiddenRole + ")) FROM pg_class c",
                "pg_get_userbyid");
        assertGateRefused("SELECT pg_table_is_visible(CASE WHEN c.oid > 0 THEN c.oid ELSE " + secrets
                + "::oid END) FROM pg_class c", "pg_table_is_visible");
        assertGateRefused("SELECT pg_table_is_visible((c.oid::int8 + 1)::oid) FROM pg_class c",
                "pg_table_is_visible");
        // a set operation mixing a filtered column with a constant, in a subquery and in a CTE
        assertGateRefused("SELECT pg_table_is_visible(x) FROM (SELECT oid FROM pg_class UNION ALL SELECT "
                + secrets + "::oid) s(x)", "pg_table_is_visible");
        assertGateRefused("WITH s(x) AS (SELECT oid FROM pg_class UNION SELECT " + secrets + "::oid) "
                + "SELECT pg_table_is_visible(x) FROM s", "pg_table_is_visible");
        // names among other values: each is resolved, and a hidden one would not answer as an absent one does
        assertGateRefused("SELECT to_regclass(x) FROM (SELECT 'orders' UNION SELECT 'hr.no_such') s(x)",
                "to_regclass");
        assertGateRefused("SELECT to_regclass(x) FROM (VALUES ('orders'), ('hr.no_such')) v(x)", "to_regclass");
        assertGateRefused("SELECT to_regclass(CASE WHEN random() > 2 THEN 'orders' ELSE 'hr.no_such' END)",
                "to_regclass");
        // a column of the filter that names another kind of object
        assertGateRefused("SELECT pg_get_userbyid(c.oid) FROM pg_class c", "pg_get_userbyid");
        assertGateRefused("SELECT pg_get_indexdef(c.relnamespace) FROM pg_class c", "pg_get_indexdef");
        // a name read from a column is resolved at run time
        assertGateRefused("SELECT to_regclass(c.relname) FROM pg_class c", HR_FIRST, "to_regclass");
        assertGateRefused("SELECT has_table_privilege(c.relname, 'select') FROM pg_class c", "has_table_privilege");
        // a function the gates do not know, and one that is not proven for every call
        assertGateRefused("SELECT pg_get_functiondef('lower(text)'::regprocedure)", "pg_get_functiondef");
        assertGateRefused("SELECT pg_get_userbyid(c.relowner), pg_get_userbyid(" + hiddenRole
                + " - 0) FROM pg_class c", "pg_get_userbyid");
        assertGateRefused("SELECT obj_description(c.oid, c.relname) FROM pg_class c", "obj_description");
        assertGateRefused("SELECT obj_description(c.oid) FROM pg_class c", "obj_description");
        assertGateRefused("SELECT shobj_description(1, 'pg_database')", "shobj_description");
        // other sessions' activity, and database-wide statistics, are not an object's
        assertGateRefused("SELECT * FROM pg_stat_get_activity(NULL)", "pg_stat_get_activity");
        assertGateRefused("SELECT pg_stat_get_db_numbackends(1)", "pg_stat_get_db_numbackends");
        assertGateRefused("SELECT has_database_privilege(1, 'connect')", "has_database_privilege");
    }

    /** The check reads a parameter as a typed NULL: a NULL proves nothing in a statement that has parameters. */
    @Test
    void aParameterIsNeverProven() throws SQLException {
        assertAllowed("SELECT pg_get_userbyid(NULL), format_type(23, NULL), NULL::regclass");
        // A NULL of a parameter's type may be that parameter; one of another type is not.
        assertGateRefused("SELECT pg_get_userbyid(NULL), $1::oid", "pg_get_userbyid");
        assertEquals(Verdict.ALLOW, verdict("SELECT pg_get_userbyid(NULL), $1::int"));
        assertGateRefused("SELECT pg_get_userbyid($1)", "pg_get_userbyid");
        assertGateRefused("SELECT to_regclass($1)", "to_regclass");
        assertObjectIdentifierRefused("SELECT $1::regclass", PATH);
        assertObjectIdentifierRefused("SELECT c.relname FROM pg_class c WHERE c.oid = $1::regclass", PATH);
    }

    @Test
    void aNameIsResolvedAsPostgresReadsTheString() {
        assertAbsent("SELECT to_regclass(E'hr.sal\\x61ries')", "42P01", "relation \"hr.salaries\" does not exist");
        assertAbsent("SELECT to_regclass(U&'hr.sal\\0061ries')", "42P01",
                "relation \"hr.salaries\" does not exist");
        assertAbsent("SELECT to_regclass($$hr.salaries$$::varchar)", "42P01",
                "relation \"hr.salaries\" does not exist");
        assertAbsent("SELECT pg_get_viewdef('\"public\".\"v_leak\"', true)", "42P01",
                "relation \"public.v_leak\" does not exist");
        assertAbsentInHr("SELECT 'HR.Salaries'::regclass", "relation \"hr.salaries\" does not exist");
    }

    @Test
    void anUnprovenObjectIdentifierValueStaysRefused() {
        // a name read into regclass at run time would find hr.orders first
        assertObjectIdentifierRefused("SELECT c.relname::regclass FROM pg_class c WHERE c.relname = 'orders'",
                HR_FIRST);
        assertObjectIdentifierRefused("SELECT c.relname::text::regclass FROM pg_class c", HR_FIRST);
        assertObjectIdentifierRefused("SELECT g::regclass FROM generate_series(16384, 17000) g", PATH);
        assertObjectIdentifierRefused("SELECT o.id::regclass FROM orders o", PATH);
        assertObjectIdentifierRefused("SELECT c.oid::regclass FROM pg_class c UNION SELECT " + secrets, PATH);
        assertObjectIdentifierRefused("SELECT COALESCE(c.oid, (c.oid::int8 + 1)::oid)::regclass FROM pg_class c",
                PATH);
        // a hidden relation's OID among a COALESCE's arguments is what it is as a constant: absent
        assertAbsent("SELECT COALESCE(c.oid, " + secrets + ")::regclass FROM pg_class c", "42P01",
                "relation with OID " + secrets + " does not exist");
        assertObjectIdentifierRefused("SELECT c.relowner::regclass FROM pg_class c", PATH);
        assertObjectIdentifierRefused("SELECT array_agg(c.oid::regclass) FROM pg_class c", PATH);
    }

    @Test
    void aViewDefinitionReadingAHiddenRelationIsNotPrinted() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE VIEW public.v_mixed AS SELECT o.id, s.token FROM public.orders o, public.secrets s");
            try {
                CatalogFilters mixed = filters(c, List.of("public.orders", "public.v_mixed"));
                TableSelection login = GuardFixture.selection(c, List.of("public.orders", "public.v_mixed"))
                        .withFilters(mixed);
                String sql = "SELECT pg_get_viewdef('public.v_mixed'::regclass)";
                Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(login,
                        null, PATH, sql)));
                assertEquals(CatalogRefusals.DENIED_BUILT_IN, refuse.rule(), refuse.message());
            } finally {
                s.execute("DROP VIEW public.v_mixed");
            }
        }
    }

    @Test
    void aSelectionWithoutFiltersStillRefusesTheGatedFunctions() throws SQLException {
        TableSelection plain;
        try (Connection c = db.connect()) {
            plain = GuardFixture.selection(c);
        }
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(plain, null,
                PATH, "SELECT pg_get_viewdef('v_sales'::regclass)")));
        assertEquals(CatalogRefusals.DENIED_BUILT_IN, refuse.rule(), refuse.message());
    }

    @Test
    void aLoginWithoutASelectionIsNotGated() {
        for (String sql : List.of("SELECT pg_get_viewdef('public.v_leak'::regclass)",
                "SELECT to_regclass('hr.salaries')", "SELECT 'hr.salaries'::regclass::oid",
                "SELECT c.relname::regclass, pg_get_userbyid(c.relowner) FROM pg_class c")) {
            assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH, sql)), sql);
        }
    }
}
