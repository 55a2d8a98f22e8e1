package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * EXPLAIN through views, row-security policies and SQL functions, for a login that selects a view over a table it
 * does not see (the guard corpus's selection plus {@code public.v_masked}, which reads hr.salaries, and others): the
 * view may be read, but its definition is withheld elsewhere, and a plan prints what the view reads (relation names,
 * columns, filter constants, row estimates). The checks run as the corpus's {@code analyst}, to whom row security
 * applies.
 */
@PostgresTest
class ExplainViewsPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final String ROLE = "analyst";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        List<String> names = new ArrayList<>(GuardFixture.SELECTED);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            // Selected views over what the login does not see: directly, through an unselected view, through a
            // selected one.
            s.execute("CREATE VIEW public.v_masked AS SELECT left(s.emp, 1) AS initial, s.salary > 95000 AS high "
                    + "FROM hr.salaries s WHERE s.salary > 1000");
            s.execute("CREATE VIEW public.v_tokens AS SELECT id FROM public.v_leak");
            s.execute("CREATE VIEW public.v_highs AS SELECT count(*) AS n FROM public.v_masked WHERE high");
            // A materialized view is scanned as a table: its plan shows its own name and nothing of its query.
            s.execute("CREATE MATERIALIZED VIEW public.mv_payroll AS SELECT count(*) AS n FROM hr.salaries");
            // Row security: a policy that reads a hidden table, and one that reads nothing.
            s.execute("CREATE TABLE public.tickets(id int, owner text)");
            s.execute("ALTER TABLE public.tickets ENABLE ROW LEVEL SECURITY");
            s.execute("CREATE POLICY tickets_staff ON public.tickets USING (owner IN (SELECT emp FROM hr.salaries))");
            s.execute("CREATE TABLE public.notes(id int, body text)");
            s.execute("ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY");
            s.execute("CREATE POLICY notes_positive ON public.notes USING (id > 0)");
            // Selected views over selected tables only, whose definitions use a user function (inlined into the
            // plan), a hidden type, or a type of a selected table's column, which the login sees.
            s.execute("DO $$ BEGIN CREATE ROLE pgward_fn_owner; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
            s.execute("CREATE FUNCTION public.mask(t text) RETURNS text IMMUTABLE LANGUAGE sql "
                    + "AS $$SELECT left(t, 1) || '-salt-7f3a'$$");
            s.execute("ALTER FUNCTION public.mask(text) OWNER TO pgward_fn_owner");
            s.execute("CREATE FUNCTION public.initial_of(t text) RETURNS text STABLE LANGUAGE plpgsql "
                    + "AS $$BEGIN RETURN left(t, 1); END$$");
            s.execute("ALTER FUNCTION public.initial_of(text) OWNER TO pgward_fn_owner");
            s.execute("CREATE VIEW public.v_masked_status AS SELECT id, public.mask(status) AS status "
                    + "FROM public.orders");
            s.execute("CREATE TYPE hr.order_state AS ENUM ('pending', 'shipped')");
            s.execute("CREATE VIEW public.v_states AS SELECT id FROM public.orders "
                    + "WHERE status = ANY (enum_range(NULL::hr.order_state)::text[])");
            s.execute("CREATE TYPE public.priority AS ENUM ('low', 'high')");
            s.execute("ALTER TABLE public.orders ADD COLUMN priority public.priority");
            s.execute("CREATE VIEW public.v_urgent AS SELECT id FROM public.orders WHERE priority = 'high'");
            s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + ROLE);
            names.addAll(List.of("public.v_masked", "public.v_tokens", "public.v_highs", "public.mv_payroll",
                    "public.tickets", "public.notes", "public.v_masked_status", "public.v_states",
                    "public.v_urgent"));
            selection = FilteredFixture.filteredSelection(c, names);
        }
        check = FilteredFixture.check(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static Verdict verdict(String sql) {
        return check.checkNow(CheckRequest.of(selection, ROLE, PATH, sql));
    }

    private static void assertAllowed(String sql) {
        assertEquals(Verdict.ALLOW, verdict(sql), sql);
    }

    private static Verdict.Refuse assertPlanRefused(Verdict verdict, String sql) {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict, sql);
        assertEquals(CatalogRefusals.EXPLAIN_WITHHELD, r.rule(), sql + ": " + r.message());
        assertEquals("42501", r.sqlState(), sql);
        assertTrue(!r.message().contains("salaries") && !r.message().contains("secrets")
                && !r.message().contains("v_leak"), r.message());
        return r;
    }

    /** Why the rule exists: PostgreSQL's plan of the view, for the login's role, prints its definition. */
    @Test
    void thePlanOfAViewPrintsWhatItReads() throws SQLException {
        String plan;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET ROLE " + ROLE);
            plan = String.join("\n", FilteredFixture.rows(c, "EXPLAIN VERBOSE SELECT * FROM public.v_masked"));
            String policy = String.join("\n", FilteredFixture.rows(c, "EXPLAIN SELECT * FROM public.tickets"));
            assertTrue(policy.contains("salaries"), policy);
            String function = String.join("\n", FilteredFixture.rows(c, "EXPLAIN SELECT * FROM v_masked_status "
                    + "WHERE status = 'x'"));
            assertTrue(function.contains("-salt-7f3a"), function);
            String type = String.join("\n", FilteredFixture.rows(c, "EXPLAIN SELECT * FROM public.v_states"));
            assertTrue(type.contains("hr.order_state"), type);
        }
        assertTrue(plan.contains("hr.salaries") && plan.contains("emp") && plan.contains("1000"), plan);
    }

    /**
     * Where the server loads auto_explain, a plan also reaches a session whose client_min_messages is LOG or lower,
     * as a message: why a login with a selection keeps it at NOTICE or above (SessionCommands).
     */
    @Test
    void autoExplainSendsThePlanAtLogLevel() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("LOAD 'auto_explain'");
            s.execute("SET auto_explain.log_min_duration = 0");
            s.execute("SET ROLE " + ROLE);
            s.execute("SET client_min_messages = log");
            s.executeQuery("SELECT * FROM public.v_masked").close();
            StringBuilder messages = new StringBuilder();
            for (java.sql.SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                messages.append(w.getMessage()).append('\n');
            }
            assertTrue(messages.toString().contains("salaries"), messages.toString());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "EXPLAIN SELECT * FROM public.v_masked",
        "explain verbose select initial from v_masked",
        "EXPLAIN (VERBOSE, COSTS off) SELECT * FROM v_masked",
        "EXPLAIN (FORMAT JSON) SELECT * FROM v_masked",
        "EXPLAIN (FORMAT XML) SELECT * FROM v_masked",
        "EXPLAIN (FORMAT YAML) SELECT * FROM v_masked",
        "EXPLAIN (ANALYZE false) SELECT * FROM v_masked",
        "EXPLAIN TABLE v_masked",
        "EXPLAIN SELECT o.id FROM public.orders o JOIN v_masked m ON m.initial = o.status",
        "EXPLAIN SELECT (SELECT count(*) FROM v_masked)",
        "EXPLAIN SELECT * FROM public.orders WHERE EXISTS (SELECT FROM v_masked WHERE high)",
        "EXPLAIN WITH m AS MATERIALIZED (SELECT * FROM v_masked) SELECT * FROM m",
        "EXPLAIN SELECT * FROM v_tokens",
        "EXPLAIN SELECT * FROM v_highs",
        "EXPLAIN SELECT * FROM public.tickets",
        "EXPLAIN SELECT n.id FROM public.notes n JOIN public.tickets t USING (id)",
        "EXPLAIN SELECT * FROM v_masked_status WHERE status = 'x'",
        "EXPLAIN SELECT * FROM v_states"})
    void explainOfWhatReachesWhatTheLoginDoesNotSeeIsRefused(String sql) {
        assertPlanRefused(verdict(sql), sql);
    }

    @Test
    void theRefusalNamesOnlyTheSelectedRelationTheStatementReads() {
        assertEquals("pgward refused this query: EXPLAIN would show what public.v_masked reads, and it reads objects "
                + "outside this login's table selection. The view can be read without EXPLAIN.",
                assertPlanRefused(verdict("EXPLAIN SELECT * FROM v_masked"), "v_masked").message());
        assertEquals("pgward refused this query: EXPLAIN would show what public.v_tokens reads, and it reads objects "
                + "outside this login's table selection. The view can be read without EXPLAIN.",
                assertPlanRefused(verdict("EXPLAIN SELECT * FROM v_tokens"), "v_tokens").message());
        assertEquals("pgward refused this query: EXPLAIN would show the row-security policies of public.tickets, "
                + "and they read objects outside this login's table selection. The table can be read without "
                + "EXPLAIN.", assertPlanRefused(verdict("EXPLAIN SELECT * FROM tickets"), "tickets").message());
    }

    /** The planner puts a SQL function's body in the place of its call; the login's catalog shows no user function. */
    @Test
    void explainOfACallOfAUserSqlFunctionIsRefused() throws SQLException {
        String sql = "EXPLAIN VERBOSE SELECT public.mask(status) FROM public.orders";
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET ROLE " + ROLE);
            String plan = String.join("\n", FilteredFixture.rows(c, sql));
            assertTrue(plan.contains("-salt-7f3a"), plan);
        }
        assertEquals("pgward refused this query: EXPLAIN could show the body of function public.mask, which this "
                + "login's catalog does not show. The function can be called without EXPLAIN.",
                assertPlanRefused(verdict(sql), sql).message());
        assertPlanRefused(verdict("EXPLAIN SELECT id FROM public.orders WHERE public.mask(status) = 'p'"), sql);
        assertAllowed("SELECT public.mask(status) FROM public.orders");
        // A PL/pgSQL function is never inlined: its plan shows the call as written.
        assertAllowed("EXPLAIN VERBOSE SELECT public.initial_of(status) FROM public.orders");
    }

    /**
     * A catalog read through its filter subquery, written by hand: the plan's estimates follow the whole catalog's
     * statistics, hidden rows included, so EXPLAIN of it is refused as EXPLAIN of the catalog itself is.
     */
    @Test
    void explainOfAFilteredCatalogIsRefusedAsTheCatalogIs() {
        String filtered = FilteredFixture.rewrite("SELECT relname FROM pg_catalog.pg_class WHERE relnamespace = 2200",
                PATH, selection);
        assertAllowed(filtered);
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict("EXPLAIN " + filtered));
        assertEquals(CatalogRefusals.RELATION, r.rule(), r.message());
        assertTrue(r.message().startsWith("pgward refused this query: it reads pg_catalog.pg_class, which this "
                + "login's table selection does not include."), r.message());
    }

    /** In the extended protocol: the statement of a Parse, with its parameter types given or inferred. */
    @Test
    void explainWithParametersIsRefusedToo() {
        String sql = "EXPLAIN SELECT * FROM v_masked WHERE initial = $1";
        assertPlanRefused(check.checkNow(CheckRequest.of(selection, ROLE, PATH, sql)), sql);
        assertPlanRefused(check.checkNow(new CheckRequest(selection, ROLE, PATH, true, sql, List.of(25))), sql);
    }

    /** EXPLAIN (GENERIC_PLAN) plans a statement with its parameters unbound (PostgreSQL 16 and later). */
    @Test
    void aGenericPlanIsRefusedToo() {
        assumeTrue(db.serverMajor() >= 16, "PostgreSQL " + db.serverMajor() + " has no GENERIC_PLAN");
        String sql = "EXPLAIN (GENERIC_PLAN) SELECT * FROM v_masked WHERE initial = $1";
        assertPlanRefused(check.checkNow(CheckRequest.of(selection, ROLE, PATH, sql)), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        // The guard corpus's allow-explain cases.
        "EXPLAIN SELECT * FROM public.orders WHERE customer_id = 42",
        "EXPLAIN (FORMAT JSON) SELECT c.region, sum(o.amount) FROM public.orders o JOIN public.customers c "
                + "ON c.id = o.customer_id GROUP BY c.region",
        "EXPLAIN (ANALYZE false) SELECT * FROM public.orders",
        // A view over selected relations, materialized views, a policy that reads nothing.
        "EXPLAIN VERBOSE SELECT * FROM public.v_sales JOIN public.customers c ON c.id = customer_id",
        "EXPLAIN (FORMAT YAML) SELECT * FROM public.mv_region",
        "EXPLAIN SELECT * FROM public.mv_payroll",
        "EXPLAIN SELECT * FROM public.notes WHERE body <> ''",
        "EXPLAIN SELECT * FROM public.v_urgent"})
    void explainOfWhatReachesOnlySelectedRelationsIsAllowed(String sql) {
        assertAllowed(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT * FROM public.v_masked",
        "SELECT * FROM v_tokens",
        "SELECT n FROM v_highs",
        "SELECT * FROM public.tickets",
        "SELECT * FROM v_masked_status WHERE status = 'x'",
        "SELECT * FROM v_states",
        "DECLARE c CURSOR FOR SELECT * FROM v_masked",
        "COPY (SELECT * FROM v_masked) TO STDOUT"})
    void readingThemWithoutExplainIsAllowed(String sql) {
        assertAllowed(sql);
    }
}
