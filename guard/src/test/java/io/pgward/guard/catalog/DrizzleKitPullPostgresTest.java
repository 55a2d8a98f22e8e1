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
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * drizzle-kit pull's per-table statements ({@code drizzle-kit-pull.sql}) through the guard corpus's selection on a
 * real PostgreSQL (14 to 18 with -Dpg.version): each is allowed once rewritten and shows nothing hidden. Hidden beside
 * the fixture's: {@code public.payment_tokens} (a serial key, a foreign key to customers) and {@code hr.orders}, a
 * namesake of a selected table with a serial column of its own.
 */
@PostgresTest
class DrizzleKitPullPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final List<String> HIDDEN = List.of("secrets", "salaries", "payment_tokens", "secret_col",
            "tok_live", "hr.", "v_leak");

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;
    private static Map<String, String> statements;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        statements = statements();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE TABLE public.payment_tokens (id serial PRIMARY KEY, customer_id int "
                    + "REFERENCES public.customers(id), token text)");
            s.execute("INSERT INTO public.payment_tokens (customer_id, token) VALUES (NULL, 'tok_live_CCCC')");
            s.execute("CREATE TABLE hr.orders (id serial PRIMARY KEY, secret_col int)");
            ResolvedSelection resolved = SelectionResolver.resolve(c, SelectedNames.parse("tables",
                    GuardFixture.SELECTED));
            selection = GuardFixture.selection(c)
                    .withFilters(CatalogFilters.of(resolved.visible(), CatalogColumns.read(c)))
                    .withViews(ViewFilters.of(resolved.visible(), resolved.names(), ViewColumns.read(c)));
        }
        check = CatalogChecks.on(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static Map<String, String> statements() throws IOException {
        try (InputStream in = DrizzleKitPullPostgresTest.class.getResourceAsStream("drizzle-kit-pull.sql")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Map<String, String> byName = new LinkedHashMap<>();
            String[] parts = text.split("(?m)^-- name: ");
            for (int i = 1; i < parts.length; i++) {
                int end = parts[i].indexOf('\n');
                byName.put(parts[i].substring(0, end).strip(), parts[i].substring(end + 1).strip());
            }
            return byName;
        }
    }

    private static String statement(String name, String table) {
        return statements.get(name).replace("${schema}", "public").replace("${table}", table);
    }

    private static String rewrite(String sql) {
        try {
            return CatalogRewrite.rewrite(SqlLexer.split(sql, true).getFirst(), PATH, selection.filters(),
                    selection.views());
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    private static Verdict verdict(String sql) {
        return check.checkNow(CheckRequest.of(selection, null, PATH, sql));
    }

    private static List<String> rows(String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> cells = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    cells.add(String.valueOf(rs.getString(i)));
                }
                rows.add(String.join("|", cells));
            }
        }
        return rows;
    }

    /** The rewritten statement's rows; the refusals of all of them are reported together. */
    private static List<String> allowedRows(String sql, List<String> refusals) throws SQLException {
        String rewritten = rewrite(sql);
        Verdict verdict = verdict(rewritten);
        if (verdict != Verdict.ALLOW) {
            refusals.add(verdict + "\n  for: " + sql.lines().limit(3).toList());
            return List.of();
        }
        List<String> rows = rows(rewritten);
        for (String row : rows) {
            for (String word : HIDDEN) {
                assertFalse(row.toLowerCase(Locale.ROOT).contains(word), word + " in " + row + " of " + sql);
            }
        }
        return rows;
    }

    @Test
    void everyPerTableStatementRunsAndShowsNothingHidden() throws SQLException {
        List<String> refusals = new ArrayList<>();
        for (String table : List.of("orders", "customers")) {
            for (String name : List.of("columns", "constraints", "checks", "foreignKeys", "indexes",
                    "indexConstraints")) {
                allowedRows(statement(name, table), refusals);
            }
        }
        for (String view : List.of("v_sales", "mv_region")) {
            allowedRows(statement("columns", view), refusals);
            allowedRows(statement("viewInfo", view), refusals);
        }
        assertEquals(List.of(), refusals);
    }

    /** The serial key is told from its default, which names the sequence pg_get_serial_sequence returns. */
    @Test
    void aSerialKeyIsFoundThroughItsSequence() throws SQLException {
        List<String> refusals = new ArrayList<>();
        List<String> columns = allowedRows(statement("columns", "orders"), refusals);
        assertEquals(List.of(), refusals);
        assertTrue(columns.getFirst().startsWith("orders|id|NO|0|serial|orders_id_seq|"), columns.toString());
        String direct = statement("columns", "orders");
        // What the database itself answers, without the trailing comment drizzle-kit sends after the semicolon.
        assertEquals(rows(direct.substring(0, direct.lastIndexOf(';'))), columns);
    }

    @Test
    void aSequenceOfAHiddenTableIsNeverNamed() {
        for (String sql : List.of(
                "SELECT pg_get_serial_sequence('hr.orders', 'id')::regclass",
                "SELECT pg_get_serial_sequence('public.payment_tokens', 'id')",
                "SELECT pg_get_serial_sequence('payment_tokens', 'id')::regclass::text")) {
            Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(rewrite(sql)), sql);
            assertTrue(refuse.message().contains("does not exist"), refuse.message());
        }
        // A name read from a column other than a visible relation's is not proven; nor a relation's name as text.
        for (String sql : List.of(
                "SELECT pg_get_serial_sequence(c.relname::text, 'id') FROM pg_class c",
                "SELECT pg_get_serial_sequence(n.nspname || '.' || c.relname, 'id')::regclass FROM pg_class c "
                        + "JOIN pg_namespace n ON n.oid = c.relnamespace",
                "SELECT pg_get_serial_sequence(t::text, 'id') FROM (VALUES ('hr.orders')) v(t)",
                "SELECT pg_get_serial_sequence(x::regclass::text, 'id') FROM generate_series(16384, 17000) x",
                "SELECT ('hr.' || pg_get_serial_sequence(a.attrelid::regclass::text, a.attname))::regclass "
                        + "FROM pg_attribute a",
                "SELECT upper(pg_get_serial_sequence(a.attrelid::regclass::text, a.attname))::regclass "
                        + "FROM pg_attribute a")) {
            assertInstanceOf(Verdict.Refuse.class, verdict(rewrite(sql)), sql);
        }
        assertEquals(Verdict.ALLOW, verdict(rewrite("SELECT pg_get_serial_sequence(a.attrelid::regclass::text, "
                + "a.attname)::regclass FROM pg_attribute a")));
        assertEquals(Verdict.ALLOW, verdict(rewrite("SELECT pg_get_serial_sequence(c.oid::regclass::text, 'id') "
                + "FROM pg_class c")));
    }

    /** A constant array of object identifiers is proven element by element; a hidden element is absent. */
    @Test
    void aConstantArrayOfTypesIsProvenElementByElement() throws SQLException {
        List<String> refusals = new ArrayList<>();
        assertEquals(List.of("3"), allowedRows("SELECT count(*) FROM pg_type t WHERE t.oid = ANY "
                + "('{int,int8,int2}'::regtype[])", refusals));
        assertEquals(List.of(), refusals);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN CREATE TYPE hr.grade AS ENUM ('a'); EXCEPTION WHEN duplicate_object THEN NULL; "
                    + "END $$");
        }
        Verdict.Refuse hidden = assertInstanceOf(Verdict.Refuse.class,
                verdict(rewrite("SELECT '{int,hr.grade}'::regtype[]")));
        Verdict.Refuse absent = assertInstanceOf(Verdict.Refuse.class,
                verdict(rewrite("SELECT '{int,hr.nograde}'::regtype[]")));
        // regtype's input looks the schema up first, and a database without hr has none (3F000 on every version)
        assertEquals("schema \"hr\" does not exist", hidden.message());
        assertEquals(absent.message().replace("nograde", "grade"), hidden.message());
        assertEquals(absent.sqlState(), hidden.sqlState());
        Verdict.Refuse byRelation = assertInstanceOf(Verdict.Refuse.class,
                verdict(rewrite("SELECT c.relname FROM pg_class c WHERE c.oid = ANY ('{orders,hr.salaries}'::regclass[])")));
        assertEquals(db.serverMajor() <= 15 ? "schema \"hr\" does not exist"
                : "relation \"hr.salaries\" does not exist", byRelation.message());
        // The fixture's analyst role owns nothing visible: hidden, and told as an absent one is.
        Verdict.Refuse role = assertInstanceOf(Verdict.Refuse.class,
                verdict(rewrite("SELECT '{\"analyst\"}'::regrole[]")));
        assertEquals("role \"analyst\" does not exist", role.message());
        // An array computed at run time, or read from a column, is not a constant.
        for (String sql : List.of("SELECT ARRAY[t.oid::regtype] FROM pg_type t",
                "SELECT string_to_array('int,hr.grade', ',')::regtype[]",
                "SELECT ('{' || 'hr.grade' || '}')::regtype[]")) {
            assertInstanceOf(Verdict.Refuse.class, verdict(rewrite(sql)), sql);
        }
    }

    @Test
    void aBuiltInTablespaceHasNoLocationToShowAndAUserOneIsNeverNamed() throws SQLException {
        List<String> refusals = new ArrayList<>();
        assertEquals(List.of("pg_default|"), allowedRows("SELECT spcname, pg_tablespace_location(oid) "
                + "FROM pg_tablespace WHERE spcname = 'pg_default'", refusals));
        // DataGrip's tablespace list: the owner of a built-in tablespace is a visible role (the checked column).
        assertEquals(List.of("pg_default|" + db.user() + "|", "pg_global|" + db.user() + "|"), allowedRows(
                "SELECT t.spcname, pg_catalog.pg_get_userbyid(t.spcowner), pg_catalog.pg_tablespace_location(t.oid) "
                        + "FROM pg_catalog.pg_tablespace t ORDER BY 1", refusals));
        assertEquals(List.of(), refusals);
        Verdict.Refuse user = assertInstanceOf(Verdict.Refuse.class,
                verdict(rewrite("SELECT pg_tablespace_location(16390)")));
        assertTrue(user.message().contains("does not exist"), user.message());
        assertInstanceOf(Verdict.Refuse.class, verdict(rewrite("SELECT pg_tablespace_location(x::oid) "
                + "FROM generate_series(16384, 16500) x")));
    }
}
