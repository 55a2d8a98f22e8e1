package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * The leaky-view rule: a login that selects {@code public.v_staff}, a plain view that filters out hr.staff's row of
 * alice (hr.staff and hr.depts are not selected), may read the view, but not with code PostgreSQL could run on alice's row before
 * the view's filter. The same view as a security barrier, and views over selected tables only, are not affected.
 * The checks run as the corpus's {@code analyst}.
 */
@PostgresTest
class LeakyViewsPostgresTest {

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
            s.execute("CREATE TABLE hr.staff(emp text, dept text)");
            s.execute("INSERT INTO hr.staff VALUES ('1', 'sales'), ('2', 'ops'), ('alice', 'board')");
            s.execute("CREATE TABLE hr.depts(dept text, visible bool)");
            s.execute("INSERT INTO hr.depts VALUES ('sales', true), ('ops', true), ('board', false)");
            // The filter is the join: a condition on s runs where s is scanned, on alice's row too. (A filter as
            // cheap as the condition, such as emp <> 'alice', tends to run first only because PostgreSQL orders
            // the conditions of one scan by cost.)
            String staff = " AS SELECT s.emp, s.dept FROM hr.staff s JOIN hr.depts d ON d.dept = s.dept "
                    + "WHERE d.visible";
            s.execute("CREATE VIEW public.v_staff" + staff);
            // Explicitly not a barrier, and a barrier spelled as PostgreSQL also accepts it.
            s.execute("CREATE VIEW public.v_staff_off WITH (security_barrier = 'OFF')" + staff);
            s.execute("CREATE VIEW public.v_staff_barrier WITH (security_barrier = 'Yes')" + staff);
            // Through views: an unselected plain view, and a selected barrier, which stops the search.
            s.execute("CREATE VIEW hr.v_staff_all" + staff);
            s.execute("CREATE VIEW public.v_staff_outer AS SELECT emp, dept FROM hr.v_staff_all");
            s.execute("CREATE VIEW public.v_over_barrier AS SELECT emp, dept FROM public.v_staff_barrier");
            s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + ROLE);
            names.addAll(List.of("public.v_staff", "public.v_staff_off", "public.v_staff_barrier",
                    "public.v_staff_outer", "public.v_over_barrier"));
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

    private static Verdict.Refuse assertLeakRefused(String sql) {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(CatalogRefusals.LEAKY_VIEW, r.rule(), sql + ": " + r.message());
        assertEquals("42501", r.sqlState(), sql);
        assertTrue(!r.message().contains("hr.") && !r.message().contains("staff_all"), r.message());
        return r;
    }

    /** Why the rule exists: PostgreSQL evaluates the login's condition on the row the view filters out. */
    @Test
    void postgresShowsTheFilteredRowInTheError() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET ROLE " + ROLE);
            SQLException cast = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM public.v_staff WHERE emp::int = 1").close());
            assertTrue(cast.getMessage().contains("\"alice\""), cast.getMessage());
            SQLException division = assertThrows(SQLException.class, () -> s.executeQuery("SELECT * FROM "
                    + "public.v_staff WHERE 1 / (CASE WHEN emp = 'alice' THEN 0 ELSE 1 END) = 1").close());
            assertEquals("22012", division.getSQLState(), division.getMessage());
            // A security barrier keeps the condition above its own filter.
            assertEquals(List.of("1"), FilteredFixture.rows(c,
                    "SELECT emp FROM public.v_staff_barrier WHERE emp::int = 1"));
        }
    }

    @Test
    void theRefusalNamesTheViewAndWhatCouldLeak() {
        assertEquals("pgward refused this query: public.v_staff is a view over relations outside this login's "
                + "table selection, and a cast through text could run on rows it filters out (PostgreSQL may "
                + "evaluate conditions before the view's own). Use leakproof functions and operators only with it, "
                + "or have the database owner make it a security barrier: ALTER VIEW public.v_staff SET "
                + "(security_barrier = true).", assertLeakRefused("SELECT * FROM v_staff WHERE emp::int = 1")
                .message());
        assertTrue(assertLeakRefused("SELECT * FROM v_staff WHERE upper(emp) = 'X'").message()
                .contains("and function pg_catalog.upper could run"));
        assertTrue(assertLeakRefused("SELECT * FROM v_staff WHERE emp LIKE 'a%'").message()
                .contains("and operator pg_catalog.~~ could run"));
        assertTrue(assertLeakRefused("SELECT * FROM v_staff_outer WHERE emp::int = 1").message()
                .startsWith("pgward refused this query: public.v_staff_outer is a view"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT * FROM v_staff WHERE 1 / (CASE WHEN emp = 'alice' THEN 0 ELSE 1 END) = 1",
        "SELECT * FROM public.v_staff WHERE emp::int = 1",
        "SELECT * FROM v_staff WHERE length(emp) > 4",
        "SELECT * FROM (SELECT emp::int AS n FROM v_staff) s WHERE n = 1",
        "SELECT dept FROM v_staff GROUP BY dept, emp HAVING emp::int = 1",
        "SELECT o.id FROM public.orders o JOIN v_staff v ON o.id = v.emp::int",
        "SELECT * FROM v_staff WHERE greatest(emp, 'b') = 'b'",
        "SELECT * FROM public.orders o WHERE EXISTS (SELECT FROM v_staff WHERE emp::int = o.id)",
        "SELECT * FROM v_staff WHERE (SELECT o.id FROM public.orders o WHERE o.status = emp) = 1",
        "SELECT * FROM v_staff_off WHERE emp::int = 1",
        "SELECT * FROM v_staff_outer WHERE emp::int = 1",
        // The select list of anything but the statement itself may be evaluated below the view's filter.
        "SELECT o.id, s.n FROM public.orders o LEFT JOIN (SELECT emp::int AS n FROM v_staff) s ON true",
        "WITH c AS (SELECT emp::int AS n FROM v_staff) SELECT n FROM c",
        "SELECT emp::int FROM v_staff UNION ALL SELECT 1",
        "SELECT * FROM v_staff v, LATERAL (SELECT v.emp::int AS n) x",
        // A HAVING without aggregates is moved to WHERE: grouping expressions it uses count (PostgreSQL 18).
        "SELECT upper(dept) FROM v_staff GROUP BY upper(dept) HAVING upper(dept) = 'X'",
        "SELECT emp::int FROM v_staff GROUP BY emp HAVING emp::int = 1"})
    void codeThatCouldFailOnAFilteredRowIsRefused(String sql) {
        assertLeakRefused(sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT * FROM v_staff",
        "SELECT count(*) FROM v_staff",
        "SELECT * FROM v_staff WHERE dept = 'x'",
        "SELECT * FROM public.v_staff WHERE dept IN ('sales', 'ops') AND emp <> '3'",
        "SELECT * FROM v_staff ORDER BY emp LIMIT 5",
        "SELECT * FROM v_staff WHERE dept < 'p' AND dept BETWEEN 'a' AND 'z'",
        "SELECT dept, count(*), max(emp::int) FROM v_staff GROUP BY dept ORDER BY dept",
        "SELECT * FROM v_staff WHERE dept IS NOT NULL AND coalesce(emp, '') <> ''",
        "SELECT * FROM public.orders WHERE created_at > now() - interval '1 day' "
                + "AND EXISTS (SELECT FROM v_staff WHERE dept = 'ops')",
        "SELECT * FROM v_staff_outer WHERE dept = 'ops'",
        // A security barrier, read directly or through a plain view over it.
        "SELECT * FROM v_staff_barrier WHERE emp::int = 1",
        "SELECT * FROM v_over_barrier WHERE upper(emp) = 'X'",
        // A view over selected tables only.
        "SELECT * FROM public.v_sales WHERE upper(status) = 'X' AND amount::int > 3"})
    void leakproofCodeBarriersAndViewsOverSelectedTablesAreAllowed(String sql) {
        assertEquals(Verdict.ALLOW, verdict(sql), sql);
    }

    /**
     * An output column of the statement itself that nothing sorts, groups or partitions by is computed after every
     * filter: PostgreSQL runs these without an error on alice's row, and pgward allows them.
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT emp::int, upper(dept) FROM v_staff",
        "SELECT upper(dept), count(*) FROM v_staff GROUP BY dept ORDER BY dept",
        "SELECT dept, sum(emp::int), max(emp::int) FROM v_staff GROUP BY dept",
        "SELECT emp::int, rank() OVER (PARTITION BY dept ORDER BY emp) FROM v_staff",
        "SELECT length(dept), emp::int FROM v_staff ORDER BY dept LIMIT 1",
        "SELECT o.id, v.emp::int FROM public.orders o JOIN v_staff v ON o.status = v.dept",
        "SELECT emp::int FROM v_staff_outer WHERE dept = 'ops'",
        "WITH c AS (SELECT emp FROM v_staff) SELECT emp::int FROM c"})
    void anOutputColumnNothingSortsByIsComputedAfterEveryFilter(String sql) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET ROLE " + ROLE);
            s.executeQuery(sql).close();
        }
        assertEquals(Verdict.ALLOW, verdict(sql), sql);
    }

    /**
     * What the statement sorts, groups, makes distinct or partitions by, and what an aggregate sorts by, is computed
     * where the planner sorts, which may be below the view's filter.
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT emp FROM v_staff ORDER BY emp::int LIMIT 5",
        "SELECT emp::int AS n FROM v_staff ORDER BY 1",
        "SELECT upper(dept), count(*) FROM v_staff GROUP BY upper(dept)",
        "SELECT DISTINCT emp::int FROM v_staff",
        "SELECT DISTINCT ON (emp::int) emp FROM v_staff",
        "SELECT row_number() OVER (ORDER BY emp::int) FROM v_staff",
        "SELECT rank() OVER (PARTITION BY upper(dept)) FROM v_staff",
        "SELECT string_agg(emp, ',' ORDER BY emp::int) FROM v_staff",
        "SELECT count(DISTINCT emp::int) FROM v_staff",
        "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY emp::int) FROM v_staff",
        // Without GROUP BY, max(x) may become ORDER BY x DESC LIMIT 1 with x IS NOT NULL among a scan's conditions.
        "SELECT max(emp::int) FROM v_staff",
        "SELECT sum(emp::int) FROM v_staff",
        "SELECT max(emp::int) FROM v_staff GROUP BY ()"})
    void sortAndGroupingKeysAreHeldToTheRule(String sql) {
        assertLeakRefused(sql);
    }

    /** Why: a sort below the view's semi-join, under a Gather Merge, computes its key on every row of the table. */
    @Test
    void postgresMaySortBelowTheViewsFilter() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE hr.staff_big(emp text, dept text)");
            s.execute("INSERT INTO hr.staff_big SELECT g::text, 'x' FROM generate_series(1, 50000) g");
            s.execute("INSERT INTO hr.staff_big VALUES ('alice', 'board')");
            s.execute("CREATE TABLE hr.acl(emp text)");
            s.execute("INSERT INTO hr.acl SELECT emp FROM hr.staff_big, generate_series(1, 3) WHERE emp <> 'alice'");
            s.execute("CREATE INDEX ON hr.acl(emp)");
            s.execute("VACUUM ANALYZE hr.staff_big, hr.acl");
            s.execute("CREATE VIEW public.v_staff_big AS SELECT s.emp, s.dept FROM hr.staff_big s "
                    + "WHERE EXISTS (SELECT FROM hr.acl a WHERE a.emp = s.emp)");
            s.execute("GRANT SELECT ON public.v_staff_big TO " + ROLE);
            s.execute("SET ROLE " + ROLE);
            for (String cheap : List.of("parallel_setup_cost", "parallel_tuple_cost", "min_parallel_table_scan_size")) {
                s.execute("SET " + cheap + " = 0");
            }
            SQLException sort = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT emp, dept FROM public.v_staff_big ORDER BY emp::int LIMIT 5").close());
            assertTrue(sort.getMessage().contains("\"alice\""), sort.getMessage());
            assertEquals(List.of("1"), FilteredFixture.rows(c, "SELECT emp::int FROM public.v_staff_big WHERE "
                    + "dept = 'x' ORDER BY emp LIMIT 1"));
        }
    }

    @Test
    void aParameterCountsAsAValue() {
        assertEquals(Verdict.ALLOW, check.checkNow(new CheckRequest(selection, ROLE, PATH, true,
                "SELECT * FROM v_staff WHERE dept = $1", List.of(25))));
        Verdict v = check.checkNow(new CheckRequest(selection, ROLE, PATH, true,
                "SELECT * FROM v_staff WHERE emp::int = $1", List.of(23)));
        assertEquals(CatalogRefusals.LEAKY_VIEW, assertInstanceOf(Verdict.Refuse.class, v).rule());
    }

    @Test
    void aLoginWithoutASelectionIsNotAffected() {
        String sql = "SELECT * FROM v_staff WHERE emp::int = 1";
        assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH, sql)), sql);
    }
}
