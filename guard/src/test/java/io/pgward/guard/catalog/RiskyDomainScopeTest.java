package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A domain whose CHECK calls a non-built-in function refuses only the statements that reach it, and its CHECK
 * never runs while any statement is checked. The CHECK's function takes a number from a sequence, which a
 * rollback does not give back: the check's transaction always rolls back, so a row written there would prove
 * nothing, but a sequence that moved would.
 */
@PostgresTest
class RiskyDomainScopeTest {

    private static final String PATH = "\"$user\", public";
    private static final String REFUSAL = "pgward refused this query: this database has domains whose CHECK could "
            + "run other code or change data while a query is checked: public.email.";
    private static TestDatabase db;
    private static CatalogCheck check;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        owner("CREATE SEQUENCE public.check_calls",
                "CREATE FUNCTION public.is_valid_email(text) RETURNS boolean LANGUAGE sql "
                        + "AS $$ SELECT nextval('public.check_calls') > 0 AND $1 LIKE '%@%' $$",
                "CREATE DOMAIN public.email AS text CHECK (public.is_valid_email(VALUE))",
                "CREATE TYPE public.contact AS (name text, mail public.email)",
                "CREATE TYPE public.email_range AS RANGE (subtype = text)",
                "CREATE TABLE public.orders(id int, note text)",
                "CREATE TABLE public.people(id int, mail public.email)",
                "CREATE TABLE public.lists(id int, mails public.email[])",
                "CREATE VIEW public.v_people AS SELECT id, mail FROM public.people",
                "CREATE VIEW public.v_orders AS SELECT id, note FROM public.orders",
                "CREATE FUNCTION public.mail_of(public.email) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT $1 $$",
                "CREATE FUNCTION public.same_mail(public.email, text) RETURNS boolean LANGUAGE sql IMMUTABLE "
                        + "AS $$ SELECT $1::text = $2 $$",
                "CREATE OPERATOR public.@@@ (LEFTARG = public.email, RIGHTARG = text, FUNCTION = public.same_mail)",
                "INSERT INTO public.orders VALUES (1, 'a')");
        check = CatalogChecks.on(db, 100);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static void owner(String... statements) throws SQLException {
        AsOwner.run(db, statements);
    }

    /** How many times the CHECK's function has run, ever. */
    private static long checkCalls() throws SQLException {
        return AsOwner.counted(db, "public.check_calls");
    }

    private static Verdict verdict(String sql) throws SQLException {
        return check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH, sql));
    }

    private static Verdict verdictWithSelection(String sql) throws SQLException {
        try (Connection c = db.connect()) {
            return check.checkNow(CheckRequest.of(GuardFixture.selection(c, List.of("public.orders",
                    "public.v_orders", "public.people")), null, PATH, sql));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "SELECT * FROM public.orders WHERE note = 'x@y'",
            "SELECT 'email'::text, ROW('a', 'b@c') IS NULL", "SELECT * FROM public.v_orders",
            "SELECT /* email */ 'public.email' AS x", "SELECT '[a,b)'::public.email_range"})
    void aStatementThatDoesNotReachTheDomainIsChecked(String sql) throws Exception {
        long before = checkCalls();
        assertEquals(Verdict.ALLOW, verdict(sql), sql);
        assertEquals(before, checkCalls(), "the CHECK ran while checking " + sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT 'a@b'::public.email",                                  // a cast to it
        "SELECT CAST('a@b' AS email)",                                 // the same, found by search_path
        "SELECT '{a@b}'::email[]",                                     // an array of it: array_in calls domain_in
        "SELECT '{a@b}'::_email",                                      // the array type by its own name
        "SELECT '(n,a@b)'::public.contact",                            // a composite type with a column of it
        "SELECT * FROM public.people",                                 // a relation with a column of it
        "SELECT * FROM public.lists WHERE mails = '{a@b}'",            // an array column of it
        "SELECT id FROM public.\"v_people\"",                          // a view with a column of it, quoted
        "SELECT public.mail_of('a@b')",                                // a function taking it
        "SELECT 'a@b' OPERATOR(public.@@@) 'a@b'",                     // an operator taking it
        "SELECT U&\"\\0065mail\" '1@2'"})                              // a typed literal, name in U& escapes
    void aStatementThatNamesWhatIsBuiltOnTheDomainIsRefusedWithoutRunningTheCheck(String sql) throws Exception {
        long before = checkCalls();
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(REFUSAL, r.message(), sql);
        assertEquals(CatalogRefusals.RISKY_DOMAIN, r.rule());
        assertEquals(before, checkCalls(), "the CHECK ran while checking " + sql);
    }

    @Test
    void aParameterTypedWithTheDomainIsRefused() throws Exception {
        long email;
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 'public.email'::regtype::oid")) {
            rs.next();
            email = rs.getLong(1);
        }
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(new CheckRequest(
                TableSelection.NONE, null, PATH, true, "SELECT $1 IS NULL", List.of((int) email))));
        assertEquals(REFUSAL, r.message());
    }

    @Test
    void withASelectionOnlyTheStatementsThatReachTheDomainAreRefused() throws Exception {
        assertEquals(Verdict.ALLOW, verdictWithSelection("SELECT note FROM public.orders"));
        assertEquals(Verdict.ALLOW, verdictWithSelection("SELECT * FROM v_orders"));
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class,
                verdictWithSelection("SELECT id FROM public.people"));
        assertEquals(REFUSAL, r.message());
    }

    /**
     * What a domain's CHECK uses is kept by the CHECK's text (DomainCheckUses), not by the domain: a constraint
     * replaced by a risky one is judged anew on the next check.
     */
    @Test
    void aDomainWhoseCheckIsReplacedIsJudgedByItsNewCheck() throws Exception {
        owner("CREATE DOMAIN public.code AS text CONSTRAINT code_short CHECK (length(VALUE) < 10)");
        try {
            assertEquals(Verdict.ALLOW, verdict("SELECT 'x'::public.code"));
            owner("ALTER DOMAIN public.code DROP CONSTRAINT code_short",
                    "ALTER DOMAIN public.code ADD CONSTRAINT code_mail CHECK (public.is_valid_email(VALUE))");
            long before = checkCalls();
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict("SELECT 'y'::public.code AS c"));
            assertEquals(CatalogRefusals.RISKY_DOMAIN, r.rule());
            assertTrue(r.message().contains("public.code"), r.message());
            assertEquals(before, checkCalls(), "the CHECK ran while checking");
        } finally {
            owner("DROP DOMAIN public.code");
        }
    }

    /**
     * The PostgreSQL behaviour the scoping rests on, shown on a plain connection: parse analysis (PREPARE) of a
     * literal cast to the domain does not run the CHECK, executing it does, and parse analysis of a literal of an
     * array of the domain runs it (array_in calls domain_in): hence the types built on the domain count as
     * reaching it.
     */
    @Test
    void parseAnalysisLeavesADomainCheckToExecutionButNotInsideAnArrayLiteral() throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            long before = checkCalls();
            s.execute("PREPARE cast_to_domain AS SELECT 'a@b'::public.email");
            assertEquals(before, checkCalls(), "PREPARE ran the CHECK");
            s.execute("EXECUTE cast_to_domain");
            assertEquals(before + 1, checkCalls(), "EXECUTE ran the CHECK once");
            s.execute("PREPARE array_of_domain AS SELECT '{a@b}'::public.email[]");
            assertEquals(before + 2, checkCalls(), "parse analysis of an array literal runs the CHECK");
            s.execute("DEALLOCATE ALL");
        }
    }
}
