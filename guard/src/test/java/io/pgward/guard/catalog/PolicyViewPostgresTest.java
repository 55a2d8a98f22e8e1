package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
 * pg_policies through the guard corpus's selection on a real PostgreSQL (14 to 18 with -Dpg.version), as drizzle-kit
 * pull reads it: only the policies of visible tables whose roles are visible and whose expressions read visible
 * relations and types alone. The hidden ones: policies on secrets and hr.salaries, a policy of orders for a role that
 * owns nothing visible, one whose expression reads hr.salaries, one that calls a user function, and a policy on
 * secrets named like a visible policy of customers.
 */
@PostgresTest
class PolicyViewPostgresTest {

    private static final String PATH = "\"$user\", public";
    /** Words of hidden policies, roles and relations: none may appear in what pg_policies shows. */
    private static final List<String> HIDDEN = List.of("secrets", "salaries", "tok_policy", "hr_only", "reads_hr",
            "calls_user_function", "leak_secret", "policy_reader", "salary");
    /** The length of hidden_len_eleven's name, which no visible policy's name has. */
    private static final int HIDDEN_LENGTH = "hidden_len_eleven".length();

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("DO $$ BEGIN CREATE ROLE policy_reader; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
            s.execute("CREATE POLICY orders_public ON public.orders FOR SELECT USING (amount >= 0)");
            s.execute("CREATE POLICY orders_owner ON public.orders AS RESTRICTIVE FOR ALL TO CURRENT_USER "
                    + "USING (status <> 'x') WITH CHECK (amount < 1000000)");
            s.execute("CREATE POLICY hr_only ON public.orders TO policy_reader USING (true)");
            s.execute("CREATE POLICY reads_hr ON public.orders USING (status IN (SELECT emp FROM hr.salaries))");
            s.execute("CREATE POLICY calls_user_function ON public.orders USING (public.leak_secret(id) IS NULL)");
            s.execute("CREATE POLICY shared_name ON public.customers USING (region <> 'x')");
            s.execute("CREATE POLICY shared_name ON public.secrets USING (token <> 'x')");
            s.execute("CREATE POLICY tok_policy ON public.secrets USING (token <> 'tok_live')");
            s.execute("CREATE POLICY hidden_len_eleven ON hr.salaries USING (salary > 0)");
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

    private static List<String> rows(String sql) throws SQLException {
        return FilteredFixture.rows(db, sql);
    }

    /** The rewritten statement is allowed and shows nothing hidden; the client's own text stays refused. */
    private static List<String> allowedRows(String sql) throws SQLException {
        String rewritten = rewrite(sql);
        assertNotEquals(sql, rewritten, "not rewritten: " + sql);
        assertEquals(Verdict.ALLOW, verdict(rewritten), rewritten);
        assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        List<String> rows = rows(rewritten);
        for (String row : rows) {
            for (String word : HIDDEN) {
                assertFalse(row.toLowerCase(Locale.ROOT).contains(word), word + " in " + row + " of " + sql);
            }
        }
        return rows;
    }

    private static void assertRefusedAsNotSelected(String sql) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(CatalogRefusals.RELATION, refuse.rule(), refuse.message());
    }

    @Test
    void onlyPoliciesOfVisibleTablesWithVisibleRolesAndExpressionsShow() throws SQLException {
        assertTrue(rows("SELECT policyname FROM pg_policies").size() >= 8, "the unfiltered view shows them all");
        assertEquals(List.of("customers|shared_name|{public}", "orders|orders_owner|{" + db.user() + "}",
                "orders|orders_public|{public}"), allowedRows(
                "SELECT tablename, policyname, roles FROM pg_policies ORDER BY 1, 2"));
    }

    /** drizzle-kit pull 0.31's statement, with its column aliases. */
    @Test
    void drizzleKitPullStatementShowsTheVisiblePoliciesWithTheirExpressions() throws SQLException {
        List<String> policies = allowedRows("SELECT schemaname, tablename, policyname as name, permissive as \"as\", "
                + "roles as to, cmd as for, qual as using, with_check as \"withCheck\" FROM pg_policies "
                + "WHERE schemaname = 'public' ORDER BY 2, 3");
        assertEquals(3, policies.size(), policies.toString());
        assertTrue(policies.contains("public|orders|orders_owner|RESTRICTIVE|{" + db.user()
                + "}|ALL|(status <> 'x'::text)|(amount < (1000000)::numeric)"), policies.toString());
    }

    @Test
    void aConditionOfTheStatementNeverRunsOnAHiddenPolicy() throws SQLException {
        String probe = "SELECT count(*) FROM pg_policies WHERE 1 / (length(policyname) - " + HIDDEN_LENGTH
                + ") > -100";
        SQLException unfiltered = assertThrows(SQLException.class, () -> rows(probe));
        assertTrue(unfiltered.getMessage().contains("division by zero"), unfiltered.getMessage());
        assertEquals(List.of("3"), allowedRows(probe));
        String roles = "SELECT count(*) FROM pg_policies p WHERE 1 / (length(p.roles[1]) - "
                + "length('policy_reader')) > -100";
        assertEquals(List.of("3"), allowedRows(roles));
    }

    @Test
    void spellingsAndShapesAroundTheViewAreFilteredToo() throws SQLException {
        for (String sql : List.of(
                "SELECT policyname FROM \"pg_catalog\".\"pg_policies\" WHERE tablename = 'secrets'",
                "SELECT policyname FROM pg_catalog . pg_policies /* x */ WHERE schemaname = 'hr'",
                "WITH p AS (SELECT * FROM pg_policies) SELECT policyname FROM p WHERE tablename <> 'customers' "
                        + "AND tablename <> 'orders'",
                "SELECT x.policyname FROM pg_class c, LATERAL (SELECT policyname FROM pg_policies "
                        + "WHERE tablename = c.relname) x WHERE c.relname IN ('secrets', 'salaries')",
                "SELECT policyname FROM pg_policies WHERE policyname = 'shared_name' AND tablename = 'secrets'",
                "SELECT policyname FROM pg_policies WHERE tablename IN (SELECT 'secrets') "
                        + "UNION ALL SELECT policyname FROM pg_policies WHERE policyname = 'tok_policy'")) {
            assertEquals(List.of(), allowedRows(sql), sql);
        }
    }

    @Test
    void aHandWrittenCopyOfTheFilterIsTheFilterAndANearCopyIsRefused() {
        ViewFilters.Filter filter = selection.views().byName("pg_catalog", "pg_policies");
        String condition = filter.condition();
        assertTrue(condition.contains("\"orders_public\""), condition);
        assertEquals(Verdict.ALLOW, verdict("SELECT policyname FROM (SELECT policyname FROM pg_catalog.pg_policies"
                + " WHERE " + condition + " OFFSET 0) x"));
        String oneMore = condition.replace("\"orders_public\"", "\"hr_only\",\"orders_public\"");
        String sharedOnSecrets = condition.replace("E'customers'", "E'secrets'");
        assertNotEquals(condition, sharedOnSecrets, condition);
        String independent = "schemaname OPERATOR(pg_catalog.=) E'public'::pg_catalog.name AND tablename "
                + "OPERATOR(pg_catalog.=) ANY ('{customers,orders}'::pg_catalog.name[]) AND policyname "
                + "OPERATOR(pg_catalog.=) ANY ('{orders_owner,orders_public,shared_name}'::pg_catalog.name[])";
        for (String sql : List.of(
                "SELECT policyname FROM (SELECT policyname FROM pg_policies WHERE " + oneMore + " OFFSET 0) x",
                "SELECT policyname FROM (SELECT policyname FROM pg_policies WHERE " + sharedOnSecrets
                        + " OFFSET 0) x",
                // independent lists would admit secrets' shared_name
                "SELECT policyname FROM (SELECT policyname FROM pg_policies WHERE " + independent + " OFFSET 0) x",
                // no fence; the statement's own condition beside the filter; a computed column
                "SELECT policyname FROM (SELECT policyname FROM pg_policies WHERE " + condition + ") x",
                "SELECT policyname FROM (SELECT policyname FROM pg_policies WHERE " + condition
                        + " AND qual <> 'x' OFFSET 0) x",
                "SELECT q FROM (SELECT qual || 'x' AS q FROM pg_policies WHERE " + condition + " OFFSET 0) x")) {
            assertRefusedAsNotSelected(sql);
        }
    }
}
