package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Built-in functions that look an object or a setting up by a name or OID they are given, with the guard corpus's
 * selection (orders, customers, v_sales, mv_region) on a real PostgreSQL: a hidden object answers as one nothing
 * has, and a name the check cannot prove visible is refused. Hidden: hr.salaries, secrets (with its TOAST table), the
 * index {@code secrets_token_key} and the role {@code lookup_hidden_role}, which owns nothing visible.
 */
@PostgresTest
class LookupFunctionsPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final String HIDDEN_ROLE = "lookup_hidden_role";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;
    private static long secrets;
    private static String secretsToast;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("DO $$ BEGIN CREATE ROLE " + HIDDEN_ROLE + "; EXCEPTION WHEN duplicate_object THEN NULL; "
                    + "END $$");
            s.execute("CREATE UNIQUE INDEX IF NOT EXISTS secrets_token_key ON public.secrets (id)");
            selection = FilteredFixture.filteredSelection(c, GuardFixture.SELECTED);
        }
        secrets = Long.parseLong(FilteredFixture.rows(db, "SELECT 'public.secrets'::regclass::oid").getFirst());
        secretsToast = FilteredFixture.rows(db, "SELECT reltoastrelid::regclass FROM pg_class WHERE oid = "
                + secrets).getFirst();
        check = FilteredFixture.check(db);
    }

    @AfterAll
    static void stop() throws SQLException {
        check.close();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("DROP ROLE IF EXISTS " + HIDDEN_ROLE);
        }
    }

    private static Verdict verdict(String sql) {
        return check.checkNow(CheckRequest.of(selection, null, PATH, FilteredFixture.rewrite(sql, PATH, selection)));
    }

    private static void assertAllowed(String sql) {
        assertEquals(Verdict.ALLOW, verdict(sql), sql);
    }

    private static void assertAbsent(String sql, String sqlState, String message) {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(CatalogRefusals.ABSENT_OBJECT, r.rule(), r.message());
        assertEquals(sqlState, r.sqlState(), r.message());
        assertEquals(message, r.message());
    }

    /** Functions PostgreSQL 14 does not have: a statement calling one is PostgreSQL's error there, not pgward's. */
    private static final List<String> SINCE_15 = List.of("pg_settings_get_flags", "pg_database_collation_actual_version");

    private static void assumeTheServerHasItsFunctions(String sql) {
        assumeTrue(db.serverMajor() >= 15 || SINCE_15.stream().noneMatch(sql::contains),
                () -> "PostgreSQL " + db.serverMajor() + " has no " + sql);
    }

    private static void assertRefused(String sql, String function) {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(CatalogRefusals.DENIED_BUILT_IN, r.rule(), sql + ": " + r.message());
        assertEquals("pgward refused this query: " + function + " is not allowed while a table selection is set.",
                r.message());
    }

    @Test
    void rowSecurityActiveOfAHiddenRelationAnswersAsForAnAbsentOne() {
        assertAllowed("SELECT row_security_active('public.orders'), row_security_active('orders'::regclass::oid)");
        assertAllowed("SELECT row_security_active('public.nope')");
        // The schema is hidden too: PostgreSQL's error for a schema nothing has, whatever it holds.
        assertAbsent("SELECT row_security_active('hr.salaries')", "3F000", "schema \"hr\" does not exist");
        assertAbsent("SELECT row_security_active('hr.nope')", "3F000", "schema \"hr\" does not exist");
        assertAbsent("SELECT row_security_active('secrets')", "42P01", "relation \"secrets\" does not exist");
        assertAbsent("SELECT row_security_active('secrets_token_key')", "42P01",
                "relation \"secrets_token_key\" does not exist");
        assertAbsent("SELECT row_security_active('" + secretsToast + "')", "3F000",
                "schema \"pg_toast\" does not exist");
        assertAbsent("SELECT row_security_active(" + secrets + "::oid)", "42P01",
                "relation with OID " + secrets + " does not exist");
    }

    @Test
    void rowSecurityActiveOfANameItCannotProveIsRefused() {
        assertRefused("SELECT x, row_security_active(x) FROM (VALUES ('hr.salaries'), ('hr.x')) v(x)",
                "row_security_active");
        assertRefused("SELECT row_security_active(o::oid) FROM generate_series(16384, 17000) o",
                "row_security_active");
        assertAllowed("SELECT c.relname, row_security_active(c.oid) FROM pg_catalog.pg_class c");
    }

    @Test
    void pgHasRoleOfAHiddenRoleAnswersAsForAnAbsentOne() {
        assertAllowed("SELECT pg_has_role(current_user, 'member'), pg_has_role('no_such_role_x', 'usage')");
        assertAbsent("SELECT pg_has_role('" + HIDDEN_ROLE + "', 'member')", "42704",
                "role \"" + HIDDEN_ROLE + "\" does not exist");
        assertAbsent("SELECT pg_has_role(current_user, '" + HIDDEN_ROLE + "', 'usage')", "42704",
                "role \"" + HIDDEN_ROLE + "\" does not exist");
        assertRefused("SELECT pg_has_role(r, 'member') FROM unnest(array['" + HIDDEN_ROLE + "', 'x']::name[]) r",
                "pg_has_role");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT current_setting(name) FROM unnest(array['port', 'listen_addresses']) name",
        "SELECT current_setting(x, true) FROM (SELECT 'port' AS x) s",
        "SELECT current_setting('po' || 'rt')", "SELECT pg_settings_get_flags(('port'))",
        "SELECT current_setting(relname) FROM pg_catalog.pg_class"})
    void aSettingNameItCannotProveVisibleIsRefused(String sql) {
        assumeTheServerHasItsFunctions(sql);
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(CatalogRefusals.DENIED_BUILT_IN, r.rule(), sql + ": " + r.message());
    }

    @Test
    void aSettingPgSettingsShowsOrShowShowsMayBeRead() throws SQLException {
        assertAllowed("SELECT current_setting('search_path'), current_setting(('TimeZone'), true)");
        assertAllowed("SELECT current_setting(x) FROM (SELECT 'server_version_num' AS x) s");
        String dconfig = "SELECT s.name AS \"Parameter\", pg_catalog.current_setting(s.name) AS \"Value\" "
                + "FROM pg_catalog.pg_settings s WHERE s.source <> 'default' AND s.setting IS DISTINCT FROM s.boot_val "
                + "ORDER BY 1";
        assertAllowed(dconfig);
        List<String> rows = FilteredFixture.rows(db, FilteredFixture.rewrite(dconfig, PATH, selection));
        rows.forEach(row -> assertEquals(true, VisibleSettings.NAMES.contains(row.split("\\|")[0]), row));
    }

    @ParameterizedTest
    @ValueSource(strings = {"pg_tablespace_databases(1663)", "pg_database_collation_actual_version(1)",
        "makeaclitem(10, 10, 'SELECT', false)", "pg_is_other_temp_schema(99)", "pg_collation_actual_version(100)",
        "fmgr_sql_validator(1)", "inet_server_port()", "inet_client_addr()", "acldefault('r', 10)",
        "aclitemin('lookup_hidden_role=r/lookup_hidden_role')", "array_in('{1259}', 2205, -1)",
        "record_in('(1)', 2249, -1)", "domain_in('1', 2205, -1)", "enum_in('x', 3500)",
        "range_in('[1,2]', 3904, -1)", "pg_control_system()", "pg_control_checkpoint()", "pg_control_init()",
        "pg_control_recovery()", "oidvectortypes('23 25')"})
    void otherLookupsAreRefused(String call) {
        assumeTheServerHasItsFunctions(call);
        assertRefused("SELECT " + call, call.substring(0, call.indexOf('(')));
    }

    /**
     * PostgreSQL reads an aclitem literal's role names while it analyses the statement: one nothing has is its error
     * at the literal, and a hidden one must be the same (the role names are of the same length, so the position is).
     */
    @ParameterizedTest
    @ValueSource(strings = {"SELECT 'lookup_hidden_role=r/OWNER'::aclitem",
        "SELECT 'OWNER=r/lookup_hidden_role'::aclitem",
        "SELECT '{=r/OWNER,lookup_hidden_role=r/OWNER}'::aclitem[]",
        "SELECT '{\"\\\"lookup_hidden_role\\\"=r/OWNER\"}'::aclitem[]",
        "SELECT ARRAY[]::aclitem[] @> 'lookup_hidden_role=r/OWNER'"})
    void anAclitemNamingAHiddenRoleAnswersAsForARoleNothingHas(String template) {
        String sql = template.replace("OWNER", db.user());
        FilteredFixture.assertAnsweredAsAbsent(db, verdict(sql), sql, HIDDEN_ROLE, "lookup_absent_role");
    }

    @Test
    void anAclitemOfVisibleRolesIsRead() {
        assertAllowed("SELECT '" + db.user() + "=r/" + db.user() + "'::aclitem, '=r/" + db.user() + "'::aclitem");
    }

    @Test
    void textReadAsAnAclitemWhileTheStatementRunsIsRefusedWhateverItNames() throws SQLException {
        List<String> forms = new java.util.ArrayList<>(List.of("SELECT ('ROLE=r/ROLE'::text)::aclitem",
                // Column definitions and XMLTABLE columns read their text with aclitem's input too.
                "SELECT * FROM jsonb_to_record('{\"a\": \"ROLE=r/ROLE\"}') AS x(a aclitem)",
                "SELECT * FROM jsonb_to_record('{\"a\": [\"ROLE=r/ROLE\"]}') AS x(a aclitem[])",
                "SELECT * FROM ROWS FROM (jsonb_to_record('{\"a\": \"ROLE=r/ROLE\"}') AS (a aclitem))",
                "SELECT * FROM xmltable('/a' PASSING CAST('<a><r>ROLE=r/ROLE</r></a>' AS xml) "
                        + "COLUMNS r aclitem PATH 'r')"));
        try (Connection c = db.connect()) {
            if (c.getMetaData().getDatabaseMajorVersion() >= 17) {
                forms.add("SELECT JSON_VALUE('{\"a\": \"ROLE=r/ROLE\"}'::jsonb, '$.a' RETURNING aclitem)");
                forms.add("SELECT * FROM JSON_TABLE('{\"a\": \"ROLE=r/ROLE\"}'::jsonb, '$' "
                        + "COLUMNS (a aclitem PATH '$.a'))");
            }
        }
        for (String form : forms) {
            for (String role : List.of(HIDDEN_ROLE, db.user(), "nobody_has_this_role")) {
                String sql = form.replace("ROLE", role);
                Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
                assertEquals("pgward refused this query: reading text as aclitem is not allowed while a table "
                        + "selection is set.", r.message(), sql);
            }
        }
    }
}
