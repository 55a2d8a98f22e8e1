package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * A name the login does not see answers exactly as a name nothing has (issue 13: helpers "behave as for a
 * nonexistent object"), on a real PostgreSQL (14 to 18 with -Dpg.version), with the guard corpus's selection.
 * Hidden: public.secrets, the schema hr (hr.salaries, and hr.orders, a namesake of a selected table). Every hidden
 * spelling is compared with the same statement naming something absent ({@code zz} for {@code hr},
 * {@code secretz} for {@code secrets}) run directly on PostgreSQL: rows, column names, SQLSTATE, message and
 * position must be the same.
 */
@PostgresTest
class AbsentNamesPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final String HR_FIRST = "hr, public";
    private static final List<String> HIDDEN = List.of("secrets", "salaries", "hr.orders");

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("CREATE TABLE IF NOT EXISTS hr.orders (id int PRIMARY KEY, token text)");
            ResolvedSelection resolved = SelectionResolver.resolve(c, SelectedNames.parse("tables",
                    GuardFixture.SELECTED));
            selection = GuardFixture.selection(c).withFilters(CatalogFilters.of(resolved.visible(),
                    CatalogColumns.read(c)));
        }
        check = CatalogChecks.on(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static Served serve(String sql, String path) {
        try {
            return check.serve(new CheckRequest(selection, null, path, true, sql, List.of()),
                    SqlLexer.split(sql, true).getFirst()).toCompletableFuture().join();
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    /** The column names, then every row (columns joined by '|'), run directly as the database owner. */
    private static List<String> run(String sql, String path) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET search_path = " + path);
            try (ResultSet rs = s.executeQuery(sql)) {
                ResultSetMetaData meta = rs.getMetaData();
                List<String> names = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    names.add(meta.getColumnLabel(i) + ":" + meta.getColumnTypeName(i));
                }
                out.add(String.join("|", names));
                while (rs.next()) {
                    List<String> row = new ArrayList<>();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        row.add(rs.getString(i));
                    }
                    out.add(String.join("|", row));
                }
            }
        }
        return out;
    }

    /** PostgreSQL's error for {@code sql} run directly: SQLSTATE, message, position. */
    private static String directError(String sql) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET search_path = " + PATH);
            s.executeQuery(sql).close();
        } catch (PSQLException e) {
            ServerErrorMessage m = e.getServerErrorMessage();
            assertNotNull(m, e.getMessage());
            return m.getSQLState() + " " + m.getMessage() + " @" + m.getPosition();
        }
        throw new AssertionError("ran: " + sql);
    }

    /** The refusal as the client gets it: its position in characters. */
    private static String refusal(Verdict verdict, String sql) {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict, sql);
        return r.sqlState() + " " + r.message() + " @" + io.pgward.guard.Positions.inCharacters(sql, r.position());
    }

    /**
     * Served through the selection, {@code hidden} gives the rows (and column names and types) that {@code absent}
     * gives run directly, and its served text never reaches a hidden object.
     */
    private static void assertRowsAsAbsent(String hidden, String absent, String path) throws SQLException {
        Served served = serve(hidden, path);
        assertInstanceOf(Verdict.Allow.class, served.verdict(), hidden + " → " + served.verdict());
        List<String> rows = run(served.text(), path);
        assertEquals(run(absent, path), rows, served.text());
        String all = String.join("\n", rows).toLowerCase(Locale.ROOT);
        HIDDEN.forEach(h -> assertFalse(all.contains(h), hidden + " shows " + h));
    }

    private static void assertRowsAsAbsent(String hidden, String absent) throws SQLException {
        assertRowsAsAbsent(hidden, absent, PATH);
    }

    /** Served through the selection, {@code hidden} fails as {@code absent} fails run directly, names swapped. */
    private static void assertErrorAsAbsent(String hidden, String absent, String from, String to)
            throws SQLException {
        String expected = directError(absent).replace(from, to);
        assertEquals(expected, refusal(serve(hidden, PATH).verdict(), hidden), hidden);
        // and the absent spelling through pgward is PostgreSQL's own answer
        assertEquals(directError(absent), refusal(serve(absent, PATH).verdict(), absent), absent);
    }

    // ---- to_reg*: NULL, as for a name nothing has -------------------------------------------------------------

    @Test
    void toRegOfAHiddenNameAnswersNull() throws SQLException {
        assertRowsAsAbsent("SELECT to_regclass('public.payment_tokens') IS NULL",
                "SELECT to_regclass('public.payment_tokenz') IS NULL");
        assertRowsAsAbsent("SELECT to_regclass('public.secrets'), to_regclass('public.orders')::text",
                "SELECT to_regclass('public.secretz'), to_regclass('public.orders')::text");
        assertRowsAsAbsent("SELECT to_regclass('hr.salaries')", "SELECT to_regclass('zz.salaries')");
        assertRowsAsAbsent("SELECT to_regnamespace('hr'), to_regtype('public.secrets'), to_regtype('hr.orders')",
                "SELECT to_regnamespace('zz'), to_regtype('public.secretz'), to_regtype('zz.orders')");
        assertRowsAsAbsent("SELECT to_regproc('hr.nosuch'), to_regprocedure('hr.f(int)')",
                "SELECT to_regproc('zz.nosuch'), to_regprocedure('zz.f(int)')");
    }

    @Test
    void anAbsentNameIsAnsweredTheSameWay() throws SQLException {
        assertRowsAsAbsent("SELECT to_regclass('hr.no_such')", "SELECT to_regclass('zz.no_such')");
        assertRowsAsAbsent("SELECT to_regclass('public.no_such')", "SELECT to_regclass('public.no_such')");
        Served absent = serve("SELECT to_regclass('public.no_such')", PATH);
        assertTrue(absent.text().contains("NULL::pg_catalog.text"), absent.text());
    }

    @Test
    void everySpellingOfTheHiddenNameIsAnsweredNull() throws SQLException {
        for (String spelling : List.of("'HR.Salaries'", "'\"hr\".\"salaries\"'", "E'hr.sal\\x61ries'",
                "U&'hr.sal\\0061ries'", "$$hr.salaries$$::varchar", "'hr.salaries'::text", " /* c */ 'hr.salaries' ")) {
            assertRowsAsAbsent("SELECT pg_catalog.to_regclass(" + spelling + ") AS r",
                    "SELECT to_regclass('zz.salaries') AS r");
        }
        assertRowsAsAbsent("SELECT \"to_regclass\"('hr.salaries')", "SELECT to_regclass('zz.salaries')");
    }

    @Test
    void theCallIsAnsweredNullWhereverItIs() throws SQLException {
        assertRowsAsAbsent("SELECT count(*) FROM pg_class WHERE oid = to_regclass('hr.salaries')",
                "SELECT count(*) FROM pg_class WHERE oid = to_regclass('zz.salaries')");
        assertRowsAsAbsent("WITH t AS (SELECT to_regclass('public.secrets') AS r) SELECT r IS NULL FROM t",
                "WITH t AS (SELECT to_regclass('public.secretz') AS r) SELECT r IS NULL FROM t");
        assertRowsAsAbsent("SELECT x FROM (SELECT to_regclass('hr.salaries') UNION ALL SELECT "
                + "to_regclass('orders')) s(x)", "SELECT x FROM (SELECT to_regclass('zz.salaries') UNION ALL SELECT "
                + "to_regclass('orders')) s(x)");
        assertRowsAsAbsent("SELECT r.x, to_regclass('hr.salaries') FROM pg_class c, LATERAL (SELECT "
                + "to_regclass('public.secrets') x) r WHERE c.relname = 'customers'", "SELECT r.x, "
                + "to_regclass('zz.salaries') FROM pg_class c, LATERAL (SELECT to_regclass('public.secretz') x) r "
                + "WHERE c.relname = 'customers'");
        // the same string elsewhere keeps its value: only the call's argument is replaced
        String both = "SELECT 'hr.salaries' AS n, to_regclass('hr.salaries')";
        Served served = serve(both, PATH);
        assertEquals(Verdict.ALLOW, served.verdict());
        assertEquals(run("SELECT 'hr.salaries' AS n, to_regclass('zz.salaries')", PATH), run(served.text(), PATH));
    }

    /** A hidden relation ahead on search_path is absent too (known limit: the oracle would find the visible one). */
    @Test
    void aHiddenRelationAheadOnSearchPathIsNull() throws SQLException {
        assertRowsAsAbsent("SELECT to_regclass('orders')", "SELECT to_regclass('zz.orders')", HR_FIRST);
        assertRowsAsAbsent("SELECT to_regclass('orders')::text", "SELECT to_regclass('public.orders')::text");
    }

    @Test
    void aVisibleNameIsNotReplaced() {
        String sql = "SELECT to_regclass('public.orders'), to_regnamespace('public')";
        Served served = serve(sql, PATH);
        assertEquals(Verdict.ALLOW, served.verdict());
        assertEquals(sql, served.text());
    }

    /** Where the call cannot be answered NULL, hidden and absent names get the same refusal. */
    @Test
    void whatCannotBeAnsweredNullIsRefusedAlike() {
        for (String shape : List.of("SELECT to_regclass(x) FROM (SELECT '%s') s(x)",
                "SELECT to_regclass((SELECT '%s'))", "SELECT to_regclass('%s'), $1::text",
                "SELECT to_regclass('%s'), $1")) {
            String hidden = refusal(serve(shape.formatted("hr.salaries"), PATH).verdict(), shape);
            String absent = refusal(serve(shape.formatted("hr.salarie_"), PATH).verdict(), shape);
            assertEquals(hidden, absent.replace("salarie_", "salaries"), shape);
            assertFalse(hidden.contains(CatalogRefusals.NULL_NAME), hidden);
        }
    }

    @Test
    void theRefusalForCheckingAloneIsTheAbsentObjects() {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(selection, null,
                PATH, "SELECT to_regclass('hr.salaries')")));
        assertEquals(CatalogRefusals.ABSENT_OBJECT, r.rule());
        assertEquals(null, r.detail());
    }

    // ---- errors: PostgreSQL's, with its position ---------------------------------------------------------------

    @Test
    void aRegLiteralOfAHiddenNameFailsAtItsPosition() throws SQLException {
        assertErrorAsAbsent("SELECT 'public.secrets'::regclass::oid", "SELECT 'public.secretz'::regclass::oid",
                "secretz", "secrets");
        assertErrorAsAbsent("SELECT 1, CAST('public.secrets' AS pg_catalog.regclass)",
                "SELECT 1, CAST('public.secretz' AS pg_catalog.regclass)", "secretz", "secrets");
        assertErrorAsAbsent("SELECT 1, regclass 'public.secrets'", "SELECT 1, regclass 'public.secretz'",
                "secretz", "secrets");
        assertErrorAsAbsent("SELECT 'public.secrets' AS n, pg_relation_size('public.secrets')",
                "SELECT 'public.secrets' AS n, pg_relation_size('public.secretz')", "secretz", "secrets");
        assertErrorAsAbsent("SELECT '{int4,public.secrets}'::regtype[]", "SELECT '{int4,public.secretz}'::regtype[]",
                "secretz", "secrets");
        assertErrorAsAbsent("SELECT relname FROM pg_class WHERE oid = 'public.secrets'::regclass",
                "SELECT relname FROM pg_class WHERE oid = 'public.secretz'::regclass", "secretz", "secrets");
    }

    @Test
    void aNameInTheHiddenSchemaFailsAsInASchemaNothingHas() throws SQLException {
        assertErrorAsAbsent("SELECT 'hr.salaries'::regclass::oid", "SELECT 'zz.salaries'::regclass::oid", "zz", "hr");
        assertErrorAsAbsent("SELECT 'hr.nosuch'::regclass::oid", "SELECT 'zz.nosuch'::regclass::oid", "zz", "hr");
        assertErrorAsAbsent("SELECT 'HR.Orders'::regtype", "SELECT 'ZZ.Orders'::regtype", "zz", "hr");
        assertErrorAsAbsent("SELECT 'hr.nosuch'::regtype", "SELECT 'zz.nosuch'::regtype", "zz", "hr");
        assertErrorAsAbsent("SELECT 'hr.nosuch'::regproc", "SELECT 'zz.nosuch'::regproc", "zz", "hr");
        // looked up when it runs: no position
        assertErrorAsAbsent("SELECT has_table_privilege('hr.salaries', 'select')",
                "SELECT has_table_privilege('zz.salaries', 'select')", "zz", "hr");
        assertErrorAsAbsent("SELECT has_table_privilege('hr.nosuch', 'select')",
                "SELECT has_table_privilege('zz.nosuch', 'select')", "zz", "hr");
        assertErrorAsAbsent("SELECT pg_get_viewdef('hr.nosuch')", "SELECT pg_get_viewdef('zz.nosuch')", "zz", "hr");
    }

    /** PostgreSQL stops at its first error: on the full database a hidden name before it does not fail. */
    @Test
    void aHiddenNameBeforeAnotherErrorFailsFirst() throws SQLException {
        assertErrorAsAbsent("SELECT 'public.secrets'::regclass, 'nosuch'::regclass",
                "SELECT 'public.secretz'::regclass, 'nosuch'::regclass", "secretz", "secrets");
        assertErrorAsAbsent("SELECT 'hr.salaries'::regclass, 'x'::int", "SELECT 'zz.salaries'::regclass, 'x'::int",
                "zz", "hr");
        assertErrorAsAbsent("SELECT '{public.secrets,nosuch}'::regclass[]",
                "SELECT '{public.secretz,nosuch}'::regclass[]", "secretz", "secrets");
        assertErrorAsAbsent("SELECT 'nosuch'::regclass, 'public.secrets'::regclass",
                "SELECT 'nosuch'::regclass, 'public.secretz'::regclass", "secretz", "secrets");
    }

    /**
     * PostgreSQL reads an operator's operands before it looks the operator up, and a call's arguments before the
     * function, yet the error points at the operator or the function's name: before the literal in the text. On the
     * full database the hidden name resolves and the lookup fails; where nothing has the name, the literal fails first.
     */
    @Test
    void aHiddenNameReadBeforeAnErrorThatPointsEarlierFailsFirst() throws SQLException {
        assertErrorAsAbsent("SELECT 1 WHERE 1 = 'public.secrets'::regclass::text",
                "SELECT 1 WHERE 1 = 'public.secretz'::regclass::text", "secretz", "secrets");
        assertErrorAsAbsent("SELECT 1 + 'hr.salaries'::regclass", "SELECT 1 + 'zz.salaries'::regclass", "zz", "hr");
        assertErrorAsAbsent("SELECT nosuch_fn('hr.orders'::regtype)", "SELECT nosuch_fn('zz.orders'::regtype)",
                "zz", "hr");
        assertErrorAsAbsent("SELECT 1 - pg_relation_size('public.secrets')",
                "SELECT 1 - pg_relation_size('public.secretz')", "secretz", "secrets");
        assertErrorAsAbsent("SELECT 1 WHERE 1 = E'public.secrets'::regclass::text AND 2 = $$hr.salaries$$::regclass",
                "SELECT 1 WHERE 1 = E'public.secretz'::regclass::text AND 2 = $$hr.salaries$$::regclass",
                "secretz", "secrets");
        assertErrorAsAbsent("SELECT 1 WHERE 1 = U&'public.secrets'::regclass::text",
                "SELECT 1 WHERE 1 = U&'public.secretz'::regclass::text", "secretz", "secrets");
        assertErrorAsAbsent("SELECT 1 WHERE 1 = 'public.'\n  'secrets'::regclass::text",
                "SELECT 1 WHERE 1 = 'public.'\n  'secretz'::regclass::text", "secretz", "secrets");
        // PostgreSQL counts a character outside the BMP as one: the literal's position is in its characters.
        assertErrorAsAbsent("SELECT '\uD83D\uDE00' AS e WHERE 1 = 'public.secrets'::regclass::text",
                "SELECT '\uD83D\uDE00' AS e WHERE 1 = 'public.secretz'::regclass::text", "secretz", "secrets");
        assertErrorAsAbsent("SELECT '\uD83D\uDE00' AS e, 'public.secrets'::regclass",
                "SELECT '\uD83D\uDE00' AS e, 'public.secretz'::regclass", "secretz", "secrets");
        assertErrorAsAbsent("SELECT '\uD83D\uDE00' AS e, 'hr.nosuch'::regtype",
                "SELECT '\uD83D\uDE00' AS e, 'zz.nosuch'::regtype", "zz", "hr");
        // Two hidden names and no other error: the one PostgreSQL reads first, the select list before WHERE.
        assertErrorAsAbsent("SELECT 'public.secrets'::regclass WHERE 'hr.salaries'::regclass IS NOT NULL",
                "SELECT 'public.secretz'::regclass WHERE 'hr.salaries'::regclass IS NOT NULL",
                "secretz", "secrets");
        assertErrorAsAbsent("SELECT s FROM (SELECT 'public.secrets'::regclass AS s) q WHERE 'hr.orders'::regtype "
                + "IS NOT NULL", "SELECT s FROM (SELECT 'public.secretz'::regclass AS s) q WHERE 'hr.orders'::regtype "
                + "IS NOT NULL", "secretz", "secrets");
        // An error that does not depend on the literal stands: PostgreSQL analyses FROM before the select list.
        assertErrorAsAbsent("SELECT 'public.secrets'::regclass FROM nosuch_table",
                "SELECT 'public.secretz'::regclass FROM nosuch_table", "secretz", "secrets");
        assertErrorAsAbsent("SELECT nosuch_column, 'public.secrets'::regclass FROM public.orders",
                "SELECT nosuch_column, 'public.secretz'::regclass FROM public.orders", "secretz", "secrets");
    }

    /**
     * Each name in a string literal costs a look-up when a statement fails, so past a bound PostgreSQL's error is not
     * given at all: the statement is refused as too complex, with or without a hidden name among its literals.
     */
    @Test
    void anErrorWithMoreNamesThanAreLookedUpIsRefusedWhateverExists() throws SQLException {
        String few = "SELECT 1 FROM public.orders WHERE nosuch_column IN ('a', 'public.secrets')";
        assertErrorAsAbsent(few, few.replace("secrets", "secretz"), "secretz", "secrets");
        String names = java.util.stream.IntStream.range(0, HiddenNameLiterals.MAX_NAMES)
                .mapToObj(i -> "'n" + i + "'").collect(java.util.stream.Collectors.joining(", "));
        for (String last : List.of("'public.secrets'", "'public.secretz'")) {
            String sql = "SELECT 1 FROM public.orders WHERE nosuch_column IN (" + names + ", " + last + ")";
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, serve(sql, PATH).verdict(), last);
            assertEquals(CatalogRefusals.TOO_COMPLEX, r.rule(), last);
            assertEquals("pgward refused this query: it is too complex to check (PostgreSQL's error for it could "
                    + "depend on more than 256 names in string literals, which may name what this login does not see)",
                    r.message());
        }
    }

    @Test
    void aPositionIsInTheClientsTextWhenTheStatementIsRewritten() throws SQLException {
        String hidden = "SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = 'public.secrets'::regclass";
        String absent = hidden.replace("secrets", "secretz");
        assertErrorAsAbsent(hidden, absent, "secretz", "secrets");
        assertNotEquals(" @0", refusal(serve(hidden, PATH).verdict(), hidden).replaceAll(".* @", " @"));
    }

    // ---- relation functions over OIDs nothing proves: NULL outside the visible set ---------------------------

    private static String visibleRelations() {
        return selection.filters().visible().oids(io.pgward.guard.selection.VisibleCatalog.Catalog.PG_CLASS)
                .arrayLiteral();
    }

    private static long oid(String sql) throws SQLException {
        return Long.parseLong(run(sql, PATH).get(1));
    }

    @Test
    void anIndexDefinitionOverInventedOidsShowsVisibleIndexesOnly() throws SQLException {
        String sql = "SELECT count(pg_get_indexdef(i)) FROM generate_series(16384, 17000) i";
        Served served = serve(sql, PATH);
        assertEquals(Verdict.ALLOW, served.verdict(), served.text());
        assertEquals(run("SELECT count(*) FROM pg_index x WHERE x.indexrelid = ANY ('" + visibleRelations()
                + "'::oid[]) AND x.indexrelid BETWEEN 16384 AND 17000", PATH).get(1), run(served.text(), PATH).get(1));
        long hiddenIndex = oid("SELECT 'hr.orders_pkey'::regclass::oid");
        String one = "SELECT i, pg_get_indexdef(i), pg_catalog.pg_table_is_visible(i) FROM generate_series("
                + hiddenIndex + ", " + hiddenIndex + ") i";
        Served hidden = serve(one, PATH);
        assertEquals(Verdict.ALLOW, hidden.verdict(), hidden.text());
        assertEquals(List.of(hiddenIndex + "|null|null"), run(hidden.text(), PATH).subList(1, 2));
    }

    /** A statement that also reads a covered catalog under a condition that needs the fence: wrapped there too. */
    @Test
    void theWrappingWorksBesideAFencedCatalog() throws SQLException {
        String sql = "SELECT count(pg_get_indexdef(i)) FROM generate_series(16384, 17000) i "
                + "JOIN pg_index x ON x.indexrelid = i WHERE 1 / (x.indnatts + 100) >= 0";
        Served served = serve(sql, PATH);
        assertEquals(Verdict.ALLOW, served.verdict(), served.text());
        assertTrue(served.text().contains("OFFSET 0") && served.text().contains("CASE WHEN (i)::pg_catalog.oid"),
                served.text());
        assertEquals(run("SELECT count(*) FROM pg_index x WHERE x.indexrelid = ANY ('" + visibleRelations()
                + "'::oid[]) AND x.indexrelid BETWEEN 16384 AND 17000", PATH).get(1), run(served.text(), PATH).get(1));
    }

    @Test
    void theWrappingIsProvenOnlyExactly() throws SQLException {
        long hiddenIndex = oid("SELECT 'hr.orders_pkey'::regclass::oid");
        String list = visibleRelations();
        String exact = "SELECT pg_get_indexdef(CASE WHEN (i)::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ('" + list
                + "'::pg_catalog.oid[]) THEN (i)::pg_catalog.oid END) FROM generate_series(16384, 17000) i";
        assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(selection, null, PATH, exact)));
        String more = exact.replace("'" + list + "'", "'" + list.replace("}", "," + hiddenIndex + "}") + "'");
        String other = exact.replace("THEN (i)::pg_catalog.oid", "THEN (j)::pg_catalog.oid")
                .replace("generate_series(16384, 17000) i", "generate_series(16384, 17000) i, generate_series(1, 2) j");
        String computed = exact.replace("THEN (i)::pg_catalog.oid", "THEN (i + 1)::pg_catalog.oid");
        for (String near : List.of(more, other, computed)) {
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, serve(near, PATH).verdict(), near);
            assertEquals(CatalogRefusals.DENIED_BUILT_IN, r.rule(), near);
        }
    }

    @Test
    void otherFunctionsOverInventedOidsStayRefused() {
        for (String sql : List.of("SELECT count(pg_get_userbyid(i)) FROM generate_series(16384, 17000) i",
                "SELECT count(pg_get_indexdef(i + 0)) FROM generate_series(16384, 17000) i",
                "SELECT count(pg_get_indexdef(i::int8::oid)) FROM generate_series(16384, 17000) i")) {
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, serve(sql, PATH).verdict(), sql);
            assertEquals(CatalogRefusals.DENIED_BUILT_IN, r.rule(), sql);
        }
    }
}
