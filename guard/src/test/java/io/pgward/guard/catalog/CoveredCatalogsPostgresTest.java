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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The catalogs covered after the first slice (pg_description, pg_database, pg_proc, pg_range, pg_sequence,
 * pg_trigger, pg_policy, pg_statistic_ext, pg_rewrite, pg_depend, pg_roles, pg_auth_members, the built-in-only and
 * the empty ones) and the masked ACL columns, on a real PostgreSQL (14 to 18 with -Dpg.version): each shows the
 * selection's rows and the built-in ones, and nothing of the hidden objects the fixture adds around them. Every
 * statement is checked by L3 after the rewrite and then run as written.
 *
 * <p>Selection: the guard corpus's (orders, customers, v_sales, mv_region). Hidden, each with a marker the tests
 * look for: comments on secrets, hr.salaries, schema hr and a user function; a trigger, a policy, a rule, a
 * statistics object and a publication on secrets; a sequence owned by hr.salaries; a range type in hr; a role that
 * owns only a hidden table and is granted SELECT on orders; its per-role setting and its comment.
 */
@PostgresTest
class CoveredCatalogsPostgresTest {

    private static final String PATH = "\"$user\", public";
    /** Owns only hidden objects; granted SELECT on a selected table, so it sits in that table's ACL. */
    private static final String HIDDEN_ROLE = "pgward_cov_hidden_owner";
    /** Owns a selected relation, so it is visible; a member of HIDDEN_ROLE and of nothing visible. */
    private static final String VISIBLE_ROLE = "pgward_cov_visible_owner";
    /** Owns a selected view; VISIBLE_ROLE is its member. */
    private static final String SECOND_VISIBLE_ROLE = "pgward_cov_view_owner";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;
    private static CatalogFilters filters;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            for (String role : List.of(HIDDEN_ROLE, VISIBLE_ROLE, SECOND_VISIBLE_ROLE)) {
                s.execute("DO $$ BEGIN CREATE ROLE " + role + "; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
            }
            for (String sql : List.of(
                    "COMMENT ON TABLE public.orders IS 'visible: orders table'",
                    "COMMENT ON COLUMN public.orders.amount IS 'visible: amount column'",
                    "COMMENT ON TABLE public.secrets IS 'hidden: secrets table'",
                    "COMMENT ON COLUMN hr.salaries.salary IS 'hidden: salary column'",
                    "COMMENT ON SCHEMA hr IS 'hidden: hr schema'",
                    "COMMENT ON FUNCTION public.leak_secret(int) IS 'hidden: user function'",
                    "COMMENT ON ROLE " + HIDDEN_ROLE + " IS 'hidden: role comment'",
                    "CREATE TABLE hr.owned (x int)",
                    "ALTER TABLE hr.owned OWNER TO " + HIDDEN_ROLE,
                    "ALTER MATERIALIZED VIEW public.mv_region OWNER TO " + VISIBLE_ROLE,
                    "GRANT " + HIDDEN_ROLE + " TO " + VISIBLE_ROLE,
                    "ALTER VIEW public.v_sales OWNER TO " + SECOND_VISIBLE_ROLE,
                    "GRANT " + SECOND_VISIBLE_ROLE + " TO " + VISIBLE_ROLE,
                    "GRANT SELECT ON public.orders TO " + HIDDEN_ROLE,
                    "GRANT SELECT ON public.orders TO " + VISIBLE_ROLE,
                    "GRANT SELECT ON public.customers TO PUBLIC",
                    "ALTER ROLE " + HIDDEN_ROLE + " SET search_path = hr",
                    "CREATE TRIGGER secrets_hidden_trigger BEFORE UPDATE ON public.secrets FOR EACH ROW "
                            + "EXECUTE FUNCTION suppress_redundant_updates_trigger()",
                    "CREATE TRIGGER orders_visible_trigger BEFORE UPDATE ON public.orders FOR EACH ROW "
                            + "EXECUTE FUNCTION suppress_redundant_updates_trigger()",
                    "CREATE POLICY secrets_hidden_policy ON public.secrets USING (id > 0)",
                    "CREATE POLICY orders_visible_policy ON public.orders USING (amount >= 0)",
                    "CREATE RULE secrets_hidden_rule AS ON INSERT TO public.secrets DO INSTEAD NOTHING",
                    "CREATE STATISTICS secrets_hidden_stx ON id, token FROM public.secrets",
                    "CREATE STATISTICS orders_visible_stx ON customer_id, status FROM public.orders",
                    "CREATE SEQUENCE hr.salaries_hidden_seq OWNED BY hr.salaries.emp",
                    "CREATE TYPE hr.hidden_range AS RANGE (subtype = float8)",
                    "CREATE PUBLICATION hidden_publication FOR TABLE public.secrets",
                    // A large object's OID is the user's choice, below FirstNormalObjectId too.
                    "SELECT lo_create(9999)",
                    "COMMENT ON LARGE OBJECT 9999 IS 'hidden: large object comment'",
                    "CREATE POLICY orders_reads_hidden ON public.orders USING (status <> "
                            + "(SELECT max(emp) FROM hr.salaries))",
                    "CREATE TABLE hr.orders (x int)",
                    "COMMENT ON TABLE hr.orders IS 'hidden: a table named as a selected one'",
                    "CREATE VIEW public.v_sales_reads_hidden AS SELECT o.id, s.salary FROM public.orders o, "
                            + "hr.salaries s")) {
                s.execute(sql);
            }
            List<String> selected = new ArrayList<>(GuardFixture.SELECTED);
            selected.add("public.v_sales_reads_hidden");
            filters = FilteredFixture.filters(c, selected);
            selection = GuardFixture.selection(c, selected).withFilters(filters);
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

    /** The statement rewritten, allowed by L3, and run: each row's columns joined by '|'. */
    private static List<String> rows(String sql) throws SQLException {
        String rewritten = rewrite(sql);
        assertNotEquals(sql, rewritten, "nothing was rewritten");
        assertEquals(Verdict.ALLOW, verdict(rewritten), rewritten);
        return run(rewritten);
    }

    private static List<String> run(String sql) throws SQLException {
        return FilteredFixture.rows(db, sql);
    }

    private static String text(List<String> rows) {
        return String.join("\n", rows);
    }

    private static void assertHides(List<String> rows, String... words) {
        for (String word : words) {
            assertFalse(text(rows).contains(word), word + " in " + rows);
        }
    }

    private static void assertShows(List<String> rows, String... words) {
        for (String word : words) {
            assertTrue(text(rows).contains(word), word + " not in " + rows);
        }
    }

    private static void assertRefusedAsNotSelected(String sql) {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(CatalogRefusals.RELATION, refuse.rule(), refuse.message());
    }

    @Test
    void everyCatalogOfThisServerIsCovered() {
        for (CoveredCatalog catalog : CoveredCatalog.values()) {
            boolean exists = !(catalog == CoveredCatalog.PG_PUBLICATION_NAMESPACE && db.serverMajor() < 15);
            assertEquals(exists, filters.byName(catalog.relation()) != null, catalog.relation());
        }
    }

    @Test
    void commentsOfVisibleAndBuiltInObjectsOnly() throws SQLException {
        List<String> rows = rows("SELECT description FROM pg_catalog.pg_description");
        assertShows(rows, "visible: orders table", "visible: amount column");
        assertHides(rows, "hidden:");
        assertTrue(rows.size() > 1000, "built-in comments are shown: " + rows.size());
        List<String> schemas = rows("SELECT d.description FROM pg_description d WHERE d.classoid = 2615");
        assertHides(schemas, "hidden:");
        assertShows(schemas, "system catalog schema");
        assertEquals(List.of(), rows("SELECT description FROM pg_description WHERE objoid = 9999"));
        assertEquals(List.of("hidden: large object comment"), run("SELECT description FROM pg_description "
                + "WHERE objoid = 9999"));
        assertHides(rows("SELECT description FROM pg_catalog.pg_shdescription"), "hidden:");
        assertEquals(List.of(), rows("SELECT description FROM pg_catalog.pg_shdescription"));
    }

    @Test
    void theCurrentDatabaseOnly() throws SQLException {
        assertEquals(List.of(db.name()), rows("SELECT datname FROM pg_database"));
        assertEquals(List.of(), rows("SELECT 1 FROM pg_catalog.pg_database WHERE datname = 'template1'"));
    }

    @Test
    void builtInFunctionsExtensionsAndLanguagesOnly() throws SQLException {
        assertEquals(List.of(), rows("SELECT proname FROM pg_proc WHERE proname IN ('leak_secret', 'eq3', "
                + "'purge_inactive_records', 'refresh_stuff') OR proname LIKE 'dblink%'"));
        assertEquals(List.of("1"), rows("SELECT count(*) FROM pg_proc WHERE proname = 'pg_get_expr' AND "
                + "pronargs = 2"));
        assertEquals(List.of("plpgsql"), rows("SELECT extname FROM pg_extension ORDER BY 1"));
        assertShows(rows("SELECT lanname FROM pg_language"), "plpgsql", "sql");
        assertEquals(List.of(), rows("SELECT oprname FROM pg_operator WHERE oprname = '==='"));
        assertShows(rows("SELECT spcname FROM pg_tablespace"), "pg_default");
        for (String catalog : List.of("pg_cast", "pg_opclass", "pg_opfamily", "pg_conversion", "pg_ts_config")) {
            assertEquals(List.of("0"), rows("SELECT count(*) FROM pg_catalog." + catalog + " WHERE oid >= 16384"),
                    catalog);
        }
    }

    @Test
    void triggersPoliciesRulesStatisticsAndSequencesOfVisibleRelationsOnly() throws SQLException {
        List<String> triggers = rows("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal");
        assertShows(triggers, "orders_visible_trigger");
        assertHides(triggers, "secrets_hidden_trigger");
        List<String> policies = rows("SELECT polname FROM pg_policy ORDER BY 1");
        assertEquals(List.of("orders_reads_hidden", "orders_visible_policy"), policies);
        // A policy's expression may read a hidden relation, whose name and columns its tree carries.
        assertTrue(run("SELECT polqual FROM pg_policy WHERE polname = 'orders_reads_hidden'").getFirst()
                .contains("salaries"));
        assertEquals(List.of("null"), rows("SELECT polqual FROM pg_policy WHERE polname = 'orders_reads_hidden'"));
        assertTrue(text(rows("SELECT polqual FROM pg_policy WHERE polname = 'orders_visible_policy'"))
                .contains(":varattno"), "a policy reading its own table alone is shown");
        // v_sales reads orders alone, v_leak (hidden) reads secrets; mv_region_reads_hidden reads hr.salaries.
        List<String> actions = rows("SELECT c.relname, r.ev_action IS NOT NULL FROM pg_rewrite r "
                + "JOIN pg_class c ON c.oid = r.ev_class WHERE c.oid >= 16384 ORDER BY 1");
        assertEquals(List.of("mv_region|t", "v_sales|t", "v_sales_reads_hidden|f"), actions);
        assertHides(rows("SELECT ev_action FROM pg_rewrite"), "salaries", "secrets", "token");
        assertShows(rows("SELECT ev_action FROM pg_rewrite WHERE ev_class < 16384"), ":relid");
        assertHides(rows("SELECT rulename FROM pg_rewrite"), "secrets_hidden_rule");
        assertShows(rows("SELECT rulename FROM pg_rewrite WHERE ev_class >= 16384"), "_RETURN");
        assertEquals(List.of("orders_visible_stx"), rows("SELECT stxname FROM pg_statistic_ext"));
        List<String> sequences = rows("SELECT c.relname FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid");
        assertShows(sequences, "orders_id_seq", "customers_id_seq");
        assertHides(sequences, "salaries_hidden_seq");
        assertEquals(List.of(), rows("SELECT 1 FROM pg_catalog.pg_sequence s WHERE NOT EXISTS "
                + "(SELECT 1 FROM pg_class c WHERE c.oid = s.seqrelid)"));
    }

    @Test
    void rangesOfVisibleAndBuiltInTypesOnly() throws SQLException {
        List<String> ranges = rows("SELECT t.typname FROM pg_range r JOIN pg_type t ON t.oid = r.rngtypid");
        assertShows(ranges, "int4range", "tstzrange");
        assertHides(ranges, "hidden_range");
        assertEquals(List.of(), rows("SELECT rngtypid FROM pg_range WHERE rngtypid >= 16384"));
    }

    @Test
    void noPublicationsForeignServersEventTriggersOrRoleSettings() throws SQLException {
        List<String> empty = new ArrayList<>(List.of("pg_publication", "pg_publication_rel",
                "pg_foreign_data_wrapper", "pg_foreign_server", "pg_event_trigger", "pg_db_role_setting"));
        if (db.serverMajor() >= 15) {
            empty.add("pg_publication_namespace");
        }
        for (String catalog : empty) {
            assertEquals(List.of("0"), rows("SELECT count(*) FROM " + catalog), catalog);
            assertNotEquals("0", run("SELECT count(*) FROM pg_catalog.pg_publication").getFirst());
        }
    }

    @Test
    void dependenciesWithBothEndsVisible() throws SQLException {
        long secrets = Long.parseLong(run("SELECT 'public.secrets'::regclass::oid").getFirst());
        long orders = Long.parseLong(run("SELECT 'public.orders'::regclass::oid").getFirst());
        assertEquals(List.of("0"), rows("SELECT count(*) FROM pg_depend WHERE objid = " + secrets
                + " OR refobjid = " + secrets));
        assertNotEquals(List.of("0"), rows("SELECT count(*) FROM pg_depend WHERE refobjid = " + orders));
        assertNotEquals("0", run("SELECT count(*) FROM pg_depend WHERE refobjid = " + secrets).getFirst());
        // The sequence of a hidden table, the hidden schema's objects.
        assertEquals(List.of("0"), rows("SELECT count(*) FROM pg_depend d JOIN pg_namespace n "
                + "ON n.oid = d.refobjid WHERE n.nspname = 'hr'"));
    }

    @Test
    void rolesOwningVisibleObjectsAndTheSessionsRoleOnly() throws SQLException {
        List<String> roles = rows("SELECT rolname, rolconfig FROM pg_roles");
        assertShows(roles, VISIBLE_ROLE, db.user());
        assertHides(roles, HIDDEN_ROLE, "analyst", "pg_read_all_data", "search_path");
        List<String> users = rows("SELECT usename, useconfig FROM pg_catalog.pg_user");
        assertHides(users, HIDDEN_ROLE, "analyst");
        assertShows(users, db.user());
        assertEquals(List.of(), rows("SELECT rolname FROM pg_roles WHERE rolconfig IS NOT NULL"));
        // VISIBLE_ROLE is a member of HIDDEN_ROLE: the membership names a hidden role and is not shown; its
        // membership in SECOND_VISIBLE_ROLE (visible by owning a selected view) is.
        assertEquals(List.of(SECOND_VISIBLE_ROLE + "|" + VISIBLE_ROLE), rows("SELECT g.rolname, m.rolname "
                + "FROM pg_auth_members a JOIN pg_roles g ON g.oid = a.roleid JOIN pg_roles m ON m.oid = a.member"));
        assertNotEquals("0", run("SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid "
                + "WHERE r.rolname = '" + HIDDEN_ROLE + "'").getFirst());
    }

    @Test
    void aclColumnsKeepTheEntriesAmongVisibleRolesAndPublic() throws SQLException {
        String direct = run("SELECT relacl FROM pg_class WHERE oid = 'public.orders'::regclass").getFirst();
        assertTrue(direct.contains(HIDDEN_ROLE), direct);
        String orders = text(rows("SELECT c.relacl FROM pg_class c WHERE c.relname = 'orders'"));
        assertFalse(orders.contains(HIDDEN_ROLE), orders);
        assertTrue(orders.contains(VISIBLE_ROLE + "=r/") && orders.contains(db.user() + "="), orders);
        String customers = text(rows("SELECT relacl FROM pg_class WHERE relname = 'customers'"));
        assertTrue(customers.contains("=r/"), "PUBLIC's entry stays: " + customers);
        assertEquals(List.of("null"), rows("SELECT relacl FROM pg_class WHERE relname = 'orders_pkey'"),
                "default privileges stay NULL");
        // An ACL read through the whole catalog row or n.* is the masked one too.
        assertHides(rows("SELECT n.* FROM pg_namespace n"), "analyst");
        assertHides(rows("SELECT c.* FROM pg_class c WHERE c.relname = 'orders'"), HIDDEN_ROLE);
        assertHides(rows("SELECT datacl FROM pg_database"), HIDDEN_ROLE);
    }

    @Test
    void cteSetOperationLateralAndSublinkShapesShowNothingHidden() throws SQLException {
        for (String sql : List.of(
                "WITH d AS (SELECT objoid, description FROM pg_description) SELECT description FROM d",
                "SELECT description FROM pg_description UNION ALL SELECT rolname FROM pg_roles",
                "SELECT x.description FROM pg_class c, LATERAL (SELECT description FROM pg_description d "
                        + "WHERE d.objoid = c.oid) x",
                "SELECT (SELECT string_agg(description, ',') FROM pg_description)",
                "SELECT d.description FROM pg_description d WHERE d.objoid IN "
                        + "(SELECT oid FROM pg_class WHERE relname = 'orders')",
                "SELECT r.rolname FROM pg_roles r WHERE EXISTS (SELECT 1 FROM pg_auth_members m "
                        + "WHERE m.member = r.oid) OR r.rolname LIKE 'pgward_cov%'")) {
            List<String> rows = rows(sql);
            assertHides(rows, "hidden:", HIDDEN_ROLE);
        }
        assertEquals(List.of("visible: orders table"), rows("SELECT d.description FROM pg_description d "
                + "JOIN pg_class c ON c.oid = d.objoid AND d.objsubid = 0 WHERE c.relname = 'orders'"));
        assertEquals(2, run("SELECT d.description FROM pg_description d JOIN pg_class c ON c.oid = d.objoid "
                + "AND d.objsubid = 0 WHERE c.relname = 'orders'").size());
    }

    /** {@code text} with {@code from} replaced, which it must contain. */
    private static String changed(String text, String from, String to) {
        assertTrue(text.contains(from), from + " not in " + text);
        return text.replace(from, to);
    }

    @Test
    void nearCopiesOfTheNewFilterShapesAreRefused() {
        CatalogFilters.Filter description = filters.byName("pg_description");
        CatalogFilters.Filter roles = filters.byName("pg_roles");
        CatalogFilters.Filter database = filters.byName("pg_database");
        CatalogFilters.Filter classes = filters.byName("pg_class");
        String exactDescription = "SELECT description FROM (SELECT description FROM pg_catalog.pg_description WHERE "
                + description.condition() + " OFFSET 0) d";
        assertEquals(Verdict.ALLOW, verdict(exactDescription));
        String exactRoles = "SELECT rolname FROM (SELECT rolname FROM pg_catalog.pg_roles WHERE "
                + roles.condition() + " OFFSET 0) r";
        assertEquals(Verdict.ALLOW, verdict(exactRoles));
        String mask = AclMask.expression("\"relacl\"", selection.filters().byName("pg_class").roles());
        String exactAcl = "SELECT relacl FROM (SELECT " + mask + " AS relacl FROM pg_catalog.pg_class WHERE "
                + classes.condition() + " OFFSET 0) c";
        assertEquals(Verdict.ALLOW, verdict(exactAcl));
        for (String sql : List.of(
                // one classoid case dropped: comments on any catalog's object with a built-in OID
                changed(exactDescription, "(\"objoid\" OPERATOR(pg_catalog.<) '16384'::pg_catalog.oid AND "
                        + "\"classoid\" OPERATOR(pg_catalog.<>) ALL ('{2613,2615,2995}'::pg_catalog.oid[]))",
                        "\"objoid\" OPERATOR(pg_catalog.<) '16384'::pg_catalog.oid"),
                changed(exactDescription, " OFFSET 0", " OFFSET 1"),
                changed(exactDescription, "WHERE ", "WHERE true OR "),
                // the role filter without its key, the unmasked per-role settings
                "SELECT rolname FROM (SELECT rolname FROM pg_catalog.pg_roles OFFSET 0) r",
                "SELECT rolconfig FROM (SELECT rolconfig FROM pg_catalog.pg_roles WHERE " + roles.condition()
                        + " OFFSET 0) r",
                // the current database's filter on another's name
                "SELECT datname FROM (SELECT datname FROM pg_catalog.pg_database WHERE "
                        + database.condition().replace("pg_catalog.current_database()", "'template1'")
                        + " OFFSET 0) d",
                // a mask with one more role, or none
                changed(exactAcl, "'{", "'{1,"),
                "SELECT relacl FROM (SELECT relacl FROM pg_catalog.pg_class WHERE " + classes.condition()
                        + " OFFSET 0) c",
                "SELECT relacl FROM (SELECT relacl::pg_catalog.text AS relacl FROM pg_catalog.pg_class WHERE "
                        + classes.condition() + " OFFSET 0) c",
                // a filter written for one catalog read from another with the same column
                "SELECT 1 FROM (SELECT oid FROM pg_catalog.pg_proc WHERE " + classes.condition() + " OFFSET 0) p",
                // ORDER BY, LIMIT, DISTINCT, an alias inside the subquery
                changed(exactRoles, " OFFSET 0", " ORDER BY rolname OFFSET 0"),
                changed(exactRoles, " OFFSET 0", " OFFSET 0 LIMIT 1"),
                changed(exactRoles, "SELECT rolname FROM pg_catalog", "SELECT DISTINCT rolname FROM pg_catalog"),
                changed(exactRoles, "FROM pg_catalog.pg_roles WHERE \"oid\"",
                        "FROM pg_catalog.pg_roles x WHERE x.oid"),
                // a correlated filter subquery
                "SELECT (SELECT count(*) FROM (SELECT rolname FROM pg_catalog.pg_roles WHERE " + roles.condition()
                        + " AND rolname = o.status OFFSET 0) r) FROM public.orders o")) {
            assertRefusedAsNotSelected(sql);
        }
        // No fence where a condition of the statement could fail on a hidden row; without one, the unfenced filter
        // is what pgward itself sends (FilteredCatalogPostgresTest).
        String unfenced = changed(exactDescription, " OFFSET 0", "");
        assertEquals(Verdict.ALLOW, verdict(unfenced));
        String loud = unfenced + " WHERE 10 / (pg_catalog.length(d.description) - 6) > -100";
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, verdict(loud), loud);
        assertEquals(CatalogRefusals.FENCE_NEEDED, refuse.rule(), refuse.message());
    }
}
