package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Hints;
import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The refusals of the catalog check as a user reads them, against a real PostgreSQL holding the guard corpus's
 * fixture: PostgreSQL's own errors with their HINT and DETAIL where they describe only what the login may see,
 * the refusal of a valid statement in their place where they could describe a relation outside the selection, the
 * HINTs pgward adds, code refused inside a view's definition said to be there, and PostgreSQL's grammar asked about
 * text without anything of it being analysed or run.
 */
@PostgresTest
class RefusalTextsTest {

    private static final String PATH = "\"$user\", public";
    private static final String SELECTED = "Selected: public.orders, public.customers, public.v_sales, "
            + "public.mv_region.";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("DO $$ BEGIN CREATE ROLE pgward_fn_owner; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
            s.execute("GRANT CREATE, USAGE ON SCHEMA public TO pgward_fn_owner");
            s.execute("CREATE FUNCTION public.volatile_one() RETURNS int VOLATILE LANGUAGE sql AS 'SELECT 1'");
            s.execute("ALTER FUNCTION public.volatile_one() OWNER TO pgward_fn_owner");
            s.execute("CREATE VIEW public.v_calls AS SELECT id, public.volatile_one() AS one FROM public.orders");
            s.execute("CREATE VIEW public.v_outer AS SELECT id FROM public.v_calls");
            s.execute("CREATE FUNCTION public.staff() RETURNS SETOF hr.salaries STABLE LANGUAGE sql "
                    + "AS 'SELECT * FROM hr.salaries'");
            s.execute("ALTER FUNCTION public.staff() OWNER TO pgward_fn_owner");
            s.execute("CREATE SCHEMA shadow");
            s.execute("CREATE TABLE shadow.orders(id int, secret_code text)");
            selection = GuardFixture.selection(c);
        }
        check = CatalogChecks.on(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static Verdict.Refuse refused(TableSelection with, String sql) {
        return assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(with, null, PATH, sql)));
    }

    private static Verdict.Refuse refused(String sql) {
        return refused(selection, sql);
    }

    // ---- PostgreSQL's own errors ------------------------------------------------------------------------------

    @Test
    void keepsPostgresHintForAMisspeltColumnOfASelectedRelation() {
        Verdict.Refuse r = refused("SELECT emial FROM public.customers");
        assertEquals(SqlStates.UNDEFINED_COLUMN, r.sqlState());
        assertEquals(CatalogRefusals.POSTGRES_ERROR, r.rule());
        assertEquals("column \"emial\" does not exist", r.message());
        assertEquals("Perhaps you meant to reference the column \"customers.email\".", r.hint());
        assertEquals(8, r.position());
    }

    @Test
    void keepsPostgresDetailAndHintWithoutASelection() {
        Verdict.Refuse r = refused(TableSelection.NONE, "SELECT salry FROM hr.salaries");
        assertEquals(SqlStates.UNDEFINED_COLUMN, r.sqlState());
        assertEquals("Perhaps you meant to reference the column \"salaries.salary\".", r.hint());
    }

    @Test
    void aMisspeltColumnOfAHiddenRelationGetsTheRefusalOfAValidStatement() {
        String valid = "pgward refused this query: it reads hr.salaries, which this login's table selection does "
                + "not include. " + SELECTED;
        Verdict.Refuse right = refused("SELECT salary FROM hr.salaries");
        assertEquals(valid, right.message());
        for (String sql : List.of("SELECT salry FROM hr.salaries",
                "SELECT s.salry FROM hr.salaries AS s",
                "SELECT salry FROM \"hr\".\"salaries\"",
                "SELECT salry FROM hr . /* c */ salaries",
                "SELECT salry FROM U&\"hr\".U&\"s\\0061laries\"",
                "SELECT o.id, x.salry FROM public.orders o, hr.salaries x",
                "WITH c AS (SELECT * FROM hr.salaries) SELECT salry FROM c",
                "SELECT * FROM public.orders WHERE amount IN (SELECT salry FROM hr.salaries)",
                "SELECT * FROM public.orders o, LATERAL (SELECT salry FROM hr.salaries) l",
                "SELECT id FROM public.orders UNION SELECT salry FROM hr.salaries",
                "SELECT emp FROM hr.salaries WHERE salary = point '(1,2)'",
                "SELECT emp FROM hr.salaries WHERE salary = 'not a number'",
                "SELECT id FROM public.orders, hr.salaries",
                "SELECT (NULL::hr.salaries).salry",
                "SELECT salary FROM public.staff()",
                "SELECT salry FROM public.staff()",
                "SELECT s.salry FROM staff() AS s")) {
            Verdict.Refuse r = refused(sql);
            assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, r.sqlState(), sql);
            assertEquals(valid, r.message(), sql);
            assertEquals(Hints.relations(), r.hint(), sql);
            assertNull(r.detail(), sql);
            assertEquals(0, r.position(), sql);
        }
    }

    @Test
    void aSearchPathThatReachesAHiddenRelationWithholdsPostgresError() {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(selection, null,
                "hr, public", "SELECT salry FROM salaries")));
        assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, r.sqlState());
        assertEquals(Hints.relations(), r.hint());
        assertFalse(r.message().contains("salary"), r.message());
    }

    @Test
    void aHiddenRelationThatSharesASelectedNameWithholdsPostgresError() {
        // With search_path "$user", public, a bare orders is public.orders, but a search_path can make it
        // shadow.orders: the name alone withholds the error (fails closed).
        Verdict.Refuse bare = refused("SELECT secret_cod FROM orders");
        assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, bare.sqlState());
        assertTrue(bare.message().contains("shadow.orders"), bare.message());
        assertFalse(bare.message().contains("secret_code"), bare.message());
        Verdict.Refuse qualified = refused("SELECT secret_cod FROM shadow.orders");
        assertEquals(bare.message(), qualified.message());
        // Qualified with its own schema, a selected relation's error is PostgreSQL's.
        Verdict.Refuse own = refused("SELECT amont FROM public.orders");
        assertEquals(SqlStates.UNDEFINED_COLUMN, own.sqlState());
        assertEquals("Perhaps you meant to reference the column \"orders.amount\".", own.hint());
    }

    @Test
    void aSyntaxErrorStaysPostgresOwnEvenNextToAHiddenName() {
        Verdict.Refuse r = refused("SELECT salary FRM hr.salaries");
        assertEquals(SqlStates.SYNTAX_ERROR, r.sqlState());
        assertEquals("syntax error at or near \"hr\"", r.message());
    }

    // ---- HINTs and where a reason was found --------------------------------------------------------------------

    @Test
    void catalogRefusalsPointAtTheRelationsFunction() throws SQLException {
        assertEquals(Hints.relations(), refused("SELECT token FROM public.secrets").hint());
        assertEquals("select * from pgward.relations() lists the tables and views this login may read.",
                Hints.relations());
        Verdict.Refuse oid = refused("SELECT 'int4'::regtype");
        assertEquals(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, oid.rule());
        assertEquals(Hints.relations(), oid.hint());
    }

    @Test
    void codeFoundOnlyInAViewDefinitionIsSaidToBeThere() throws SQLException {
        TableSelection calls;
        try (Connection c = db.connect()) {
            calls = GuardFixture.selection(c, List.of("public.v_calls", "public.v_outer"));
        }
        assertEquals("pgward refused this query: it reads public.v_calls; inside the definition of public.v_calls: "
                + "function public.volatile_one is not built in.", refused(calls, "SELECT id FROM v_calls").message());
        assertEquals("pgward refused this query: it reads public.v_outer, which reaches public.v_calls; inside the "
                + "definition of public.v_calls: function public.volatile_one is not built in.",
                refused(calls, "SELECT id FROM v_outer").message());
        // Written by the user, the same function is named as the user wrote it.
        assertEquals("pgward refused this query: function public.volatile_one is not built in.",
                refused(calls, "SELECT public.volatile_one() FROM v_calls").message());
    }

    @Test
    void aDefinitionOutsideTheSelectionIsNeitherNamedNorTold() throws SQLException {
        TableSelection outer;
        try (Connection c = db.connect()) {
            outer = GuardFixture.selection(c, List.of("public.v_outer"));
        }
        assertEquals("pgward refused this query: it reads public.v_outer, which reaches a view or a row-security "
                + "policy outside this login's table selection whose code this login may not run",
                refused(outer, "SELECT id FROM v_outer").message());
    }

    @Test
    void refusalsWordedByPgwardBeginAlike() {
        Verdict.Refuse gone = check.checkNow(CheckRequest.of(new TableSelection(List.of(), true), null, PATH,
                "SELECT 1")) instanceof Verdict.Refuse r ? r : null;
        assertEquals("pgward refused this query: none of the selected tables or views exist any more.",
                gone.message());
        assertEquals(SqlStates.UNDEFINED_TABLE, gone.sqlState());
        assertTrue(CatalogRefusals.noTemp(true).message().startsWith(Verdict.Refuse.PREFIX));
        assertTrue(CatalogRefusals.standby().message().startsWith(Verdict.Refuse.PREFIX));
    }

    // ---- PostgreSQL's grammar --------------------------------------------------------------------------------

    private static Optional<Verdict.Refuse> grammar(String text) {
        return grammar(text, true);
    }

    private static Optional<Verdict.Refuse> grammar(String text, boolean standardConformingStrings) {
        return check.grammar(text, standardConformingStrings).toCompletableFuture().join();
    }

    private static void assertRejected(String message, int position, String text) {
        Verdict.Refuse r = grammar(text).orElseThrow(() -> new AssertionError("accepted: " + text));
        assertEquals(SqlStates.SYNTAX_ERROR, r.sqlState(), text);
        assertEquals(message, r.message(), text);
        assertEquals(position, r.position(), text);
        assertEquals(CatalogRefusals.GRAMMAR, r.rule(), text);
    }

    @Test
    void grammarRejectsWhatPostgresCannotParseWithItsOwnWordsAndPosition() {
        assertRejected("syntax error at or near \"TABEL\"", 8, "CREATE TABEL t (id int)");
        assertRejected("unterminated quoted string at or near \"'abc\"", 8, "SELECT 'abc");
        assertRejected("unterminated /* comment at or near \"/* x\"", 10, "SELECT 1 /* x");
        assertRejected("syntax error at or near \"TABEL\"", 16, "SELECT 1; DROP TABEL x");
        // PostgreSQL's 18th character; a verdict counts UTF-16 units (Positions), and the emoji is two of them.
        assertRejected("syntax error at or near \"TABEL\"", 19, "SELECT '😀'; DROP TABEL x");
        assertRejected("unterminated quoted string at or near \"'x\"", 69,
                "SELECT * FROM public.customers; DROP TABLE public.customers; SELECT 'x");
        assertRejected("syntax error at end of input", 27, "SELECT '{}'::jsonb ? 'a' +");
        assertRejected("syntax error at or near \"garbage\"", 1, "garbage");
    }

    @Test
    void grammarReadsTheTextWithTheSessionsStandardConformingStrings() {
        assertEquals(Optional.empty(), grammar("SELECT 'a\\' AS x", true));
        assertTrue(grammar("SELECT 'a\\' AS x", false).isPresent());
    }

    @Test
    void grammarAcceptsValidStatementsAndRunsNoneOfThem() throws SQLException {
        for (String text : List.of("DROP TABLE public.customers CASCADE", "DELETE FROM public.orders",
                "ROLLBACK; DROP TABLE public.customers CASCADE", "COMMIT; DELETE FROM public.orders",
                "SELECT 1; DROP TABLE public.customers CASCADE", "CREATE TABLE public.made_here(id int)",
                "SELECT public.purge_inactive_records()", "CALL public.refresh_stuff()",
                "PREPARE TRANSACTION 'x'; DROP TABLE public.customers CASCADE")) {
            assertEquals(Optional.empty(), grammar(text), text);
        }
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM public.orders), "
                     + "pg_catalog.to_regclass('public.customers') IS NOT NULL, "
                     + "pg_catalog.to_regclass('public.made_here') IS NULL")) {
            rs.next();
            assertTrue(rs.getLong(1) > 0);
            assertTrue(rs.getBoolean(2));
            assertTrue(rs.getBoolean(3));
        }
    }
}
