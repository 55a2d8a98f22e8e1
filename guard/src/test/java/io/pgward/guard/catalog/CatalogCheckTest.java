package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The catalog check against a real PostgreSQL holding the guard corpus's fixture, for a login with the corpus's
 * selection (public.orders, public.customers, public.v_sales, public.mv_region): each refusal text of the
 * table-selection reference, and the statement shapes the check must handle.
 */
@PostgresTest
class CatalogCheckTest {

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
            // User functions: passing ones are owned by a role that is not a superuser.
            s.execute("CREATE FUNCTION public.add_tax(x numeric) RETURNS numeric IMMUTABLE LANGUAGE sql "
                    + "AS 'SELECT x * 1.2'");
            s.execute("CREATE FUNCTION public.double_it(x int) RETURNS int IMMUTABLE LANGUAGE sql RETURN x * 2");
            s.execute("CREATE FUNCTION public.label(x int) RETURNS text STABLE LANGUAGE plpgsql AS "
                    + "$$BEGIN IF x IS DISTINCT FROM 0 THEN RETURN 'n' || public.double_it(x); END IF; "
                    + "RETURN substring('zero' from 1 for 4); END$$");
            s.execute("CREATE FUNCTION public.leak_token(x int) RETURNS text STABLE LANGUAGE sql "
                    + "AS 'SELECT token FROM public.secrets WHERE id = x'");
            s.execute("CREATE FUNCTION public.leak_atomic(x int) RETURNS text STABLE LANGUAGE sql "
                    + "BEGIN ATOMIC SELECT token FROM public.secrets WHERE id = x; END");
            s.execute("CREATE FUNCTION public.volatile_one() RETURNS int VOLATILE LANGUAGE sql AS 'SELECT 1'");
            s.execute("CREATE FUNCTION public.definer_one() RETURNS int STABLE SECURITY DEFINER LANGUAGE sql "
                    + "AS 'SELECT 1'");
            s.execute("CREATE FUNCTION public.dynamic(x text) RETURNS int STABLE LANGUAGE plpgsql AS "
                    + "$$DECLARE r int; BEGIN EXECUTE x INTO r; RETURN r; END$$");
            s.execute("CREATE FUNCTION public.calls_volatile() RETURNS int STABLE LANGUAGE sql "
                    + "AS 'SELECT public.volatile_one()'");
            s.execute("CREATE FUNCTION public.setting_one() RETURNS int STABLE LANGUAGE sql SET work_mem = '1MB' "
                    + "AS 'SELECT 1'");
            s.execute("CREATE FUNCTION public.super_one() RETURNS int STABLE LANGUAGE sql AS 'SELECT 1'");
            // Settings read by a name the caller passes in, and by the body's own constant.
            s.execute("CREATE FUNCTION public.setting_of(n text) RETURNS text STABLE LANGUAGE sql "
                    + "AS 'SELECT current_setting(n)'");
            s.execute("CREATE FUNCTION public.setting_atomic(n text) RETURNS text STABLE LANGUAGE sql "
                    + "BEGIN ATOMIC SELECT pg_catalog.current_setting(n); END");
            s.execute("CREATE FUNCTION public.setting_plpgsql(n text) RETURNS text STABLE LANGUAGE plpgsql "
                    + "AS $$BEGIN RETURN current_setting('a', true) || \"current_setting\"(n || ''); END$$");
            s.execute("CREATE FUNCTION public.passes_setting(n text) RETURNS text STABLE LANGUAGE sql "
                    + "RETURN public.setting_of(n)");
            s.execute("CREATE FUNCTION public.tenant() RETURNS text STABLE LANGUAGE sql "
                    + "AS $$SELECT current_setting('app.tenant', true)$$");
            s.execute("CREATE FUNCTION public.tenant_atomic() RETURNS text STABLE LANGUAGE sql "
                    + "RETURN current_setting('app.tenant', true)");
            // Names by OID: a hidden relation's name, printed by a body the statement does not show.
            s.execute("CREATE DOMAIN public.relation_ref AS regclass");
            s.execute("CREATE FUNCTION public.name_of(o oid) RETURNS text STABLE LANGUAGE sql "
                    + "AS 'SELECT o::regclass::text'");
            s.execute("CREATE FUNCTION public.name_atomic(o oid) RETURNS text STABLE LANGUAGE sql "
                    + "RETURN o::regclass::text");
            s.execute("CREATE FUNCTION public.name_plpgsql(o oid) RETURNS text STABLE LANGUAGE plpgsql "
                    + "AS $$BEGIN RETURN CAST(o AS pg_catalog.\"regclass\"); END$$");
            s.execute("CREATE FUNCTION public.name_by_domain(o oid) RETURNS text STABLE LANGUAGE sql "
                    + "AS 'SELECT o::public.relation_ref::text'");
            s.execute("CREATE FUNCTION public.type_name_of(o oid) RETURNS text STABLE LANGUAGE sql "
                    + "AS 'SELECT format_type(o, NULL)'");
            s.execute("CREATE FUNCTION public.type_name_atomic(o oid) RETURNS text STABLE LANGUAGE sql "
                    + "RETURN format_type(o, NULL)");
            s.execute("CREATE FUNCTION public.name_by_output(o oid) RETURNS text STABLE LANGUAGE sql "
                    + "AS 'SELECT textin(regclassout(o))'");
            s.execute("CREATE FUNCTION public.name_by_signature(o oid, OUT r regclass, OUT n int) STABLE "
                    + "LANGUAGE sql AS 'SELECT o, 1'");
            // Through the columns of row types: a catalog column's %TYPE, and a row type returned.
            s.execute("CREATE FUNCTION public.name_by_column_type(t oid) RETURNS text STABLE LANGUAGE plpgsql "
                    + "AS $$DECLARE v pg_sequences.data_type%TYPE := t; BEGIN RETURN v::text; END$$");
            s.execute("CREATE FUNCTION public.proc_by_column_type(t oid) RETURNS text STABLE LANGUAGE plpgsql "
                    + "AS $$DECLARE v pg_catalog.pg_type.typinput%TYPE := t; BEGIN RETURN v::text; END$$");
            s.execute("CREATE TYPE public.labelled AS (t regtype, n int)");
            s.execute("CREATE FUNCTION public.name_by_row_type(o oid) RETURNS public.labelled STABLE LANGUAGE sql "
                    + "AS 'SELECT o, 1'");
            // Code in a parameter's default, and a default's row type deciding anyelement.
            s.execute("CREATE FUNCTION public.default_reads(x text DEFAULT pg_catalog.query_to_xml('SELECT 1', true, "
                    + "false, '')::text) RETURNS text STABLE LANGUAGE sql AS 'SELECT $1'");
            s.execute("CREATE FUNCTION public.default_row(j jsonb, r anyelement DEFAULT NULL::pg_catalog.pg_sequences) "
                    + "RETURNS text STABLE LANGUAGE sql AS 'SELECT jsonb_populate_record(r, j)::text'");
            s.execute("CREATE FUNCTION public.default_plain(x int DEFAULT 2) RETURNS int STABLE LANGUAGE sql "
                    + "AS 'SELECT x * 2'");
            // Roles by name: aclitem's input tells whether one exists.
            s.execute("CREATE FUNCTION public.role_probe(n text) RETURNS text STABLE LANGUAGE sql "
                    + "AS $$SELECT (('=r/' || n)::aclitem)::text$$");
            s.execute("CREATE FUNCTION public.role_probe_atomic(n text) RETURNS text STABLE LANGUAGE sql "
                    + "BEGIN ATOMIC SELECT (('=r/' || n)::aclitem)::text; END");
            // A range over regclass prints its bounds as regclass does; its multirange too.
            s.execute("CREATE TYPE public.regrange AS RANGE (subtype = regclass, subtype_opclass = oid_ops)");
            s.execute("CREATE FUNCTION public.range_name(o oid) RETURNS text STABLE LANGUAGE sql "
                    + "AS $$SELECT ('[' || o || ',' || o || ']')::public.regrange::text$$");
            s.execute("ALTER FUNCTION public.range_name(oid) OWNER TO pgward_fn_owner");
            for (String f : List.of("default_reads(text)", "default_row(jsonb, anyelement)", "default_plain(int)",
                    "role_probe(text)", "role_probe_atomic(text)")) {
                s.execute("ALTER FUNCTION public." + f + " OWNER TO pgward_fn_owner");
            }
            for (String f : List.of("name_of(oid)", "name_atomic(oid)", "name_plpgsql(oid)", "name_by_domain(oid)",
                    "type_name_of(oid)", "type_name_atomic(oid)", "name_by_output(oid)", "name_by_signature(oid)",
                    "name_by_column_type(oid)", "proc_by_column_type(oid)", "name_by_row_type(oid)")) {
                s.execute("ALTER FUNCTION public." + f + " OWNER TO pgward_fn_owner");
            }
            for (String f : List.of("setting_of(text)", "setting_atomic(text)", "setting_plpgsql(text)",
                    "passes_setting(text)", "tenant()", "tenant_atomic()")) {
                s.execute("ALTER FUNCTION public." + f + " OWNER TO pgward_fn_owner");
            }
            if (c.getMetaData().getDatabaseMajorVersion() >= 15) {
                s.execute("CREATE FUNCTION public.flags_of(n text) RETURNS text[] STABLE LANGUAGE sql "
                        + "AS 'SELECT pg_settings_get_flags(n)'");
                s.execute("ALTER FUNCTION public.flags_of(text) OWNER TO pgward_fn_owner");
            }
            for (String f : List.of("add_tax(numeric)", "double_it(int)", "label(int)", "leak_token(int)",
                    "leak_atomic(int)", "volatile_one()", "definer_one()", "dynamic(text)", "calls_volatile()",
                    "setting_one()")) {
                s.execute("ALTER FUNCTION public." + f + " OWNER TO pgward_fn_owner");
            }
            s.execute("CREATE OPERATOR public.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq)");
            s.execute("CREATE FUNCTION public.uses_operator(x int) RETURNS boolean IMMUTABLE LANGUAGE sql "
                    + "AS 'SELECT x === 1'");
            s.execute("ALTER FUNCTION public.uses_operator(int) OWNER TO pgward_fn_owner");
            s.execute("CREATE TYPE public.mytext");
            s.execute("CREATE FUNCTION public.mytext_in(cstring) RETURNS public.mytext LANGUAGE internal "
                    + "IMMUTABLE STRICT AS 'textin'");
            s.execute("CREATE FUNCTION public.mytext_out(public.mytext) RETURNS cstring LANGUAGE internal "
                    + "IMMUTABLE STRICT AS 'textout'");
            s.execute("CREATE TYPE public.mytext (INPUT = public.mytext_in, OUTPUT = public.mytext_out, LIKE = text)");
            s.execute("CREATE VIEW public.v_calls AS SELECT id, public.volatile_one() AS one FROM public.orders");
            s.execute("CREATE VIEW public.v_size AS SELECT pg_database_size(current_database()) AS size");
            s.execute("CREATE TABLE public.guarded(id int)");
            s.execute("ALTER TABLE public.guarded ENABLE ROW LEVEL SECURITY");
            s.execute("CREATE POLICY guarded_p ON public.guarded USING (public.volatile_one() = 1)");
            s.execute("CREATE SCHEMA shadow");
            s.execute("CREATE TABLE shadow.orders(id int)");
            selection = GuardFixture.selection(c);
        }
        check = CatalogChecks.on(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    private static Verdict verdict(String sql) {
        return check.checkNow(CheckRequest.of(selection, null, PATH, sql));
    }

    private static Verdict withoutSelection(String sql) {
        return check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH, sql));
    }

    private static void assertAllowed(Verdict v) {
        assertEquals(Verdict.ALLOW, v);
    }

    private static Verdict.Refuse assertRefused(String rule, String message, Verdict v) {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, v);
        assertEquals(message, r.message());
        assertEquals(rule, r.rule());
        return r;
    }

    // ---- the reference's refusal texts -------------------------------------------------------------------------

    @Test
    void refusesARelationOutsideTheSelection() {
        Verdict.Refuse r = assertRefused(CatalogRefusals.RELATION, "pgward refused this query: it reads "
                + "public.secrets, which this login's table selection does not include. " + SELECTED,
                verdict("SELECT * FROM public.secrets"));
        assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, r.sqlState());
    }

    @Test
    void namesEveryRelationOutsideTheSelectionInOrder() {
        assertRefused(CatalogRefusals.RELATION, "pgward refused this query: it reads public.secrets, hr.salaries, "
                + "which this login's table selection does not include. " + SELECTED,
                verdict("SELECT * FROM public.orders o, public.secrets s WHERE s.id IN (SELECT 1 FROM hr.salaries)"));
    }

    @Test
    void refusesAUserFunctionThatReadsATable() {
        assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: function public.leak_token is not "
                + "built in.", verdict("SELECT public.leak_token(id) FROM public.orders"));
        assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: function public.leak_atomic is not "
                + "built in.", verdict("SELECT public.leak_atomic(1)"));
    }

    @Test
    void refusesUserFunctionsThatFailTheRule() {
        for (String f : List.of("volatile_one", "definer_one", "calls_volatile", "setting_one", "super_one",
                "uses_operator")) {
            String call = f.equals("uses_operator") ? "(1)" : "()";
            assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: function public." + f
                    + " is not built in.", verdict("SELECT public." + f + call));
        }
        assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: function public.dynamic is not built in.",
                withoutSelection("SELECT public.dynamic('SELECT 1')"));
    }

    /** SHOW port is refused for every read-only login: a function must not read it for a name its caller chose. */
    @Test
    void refusesUserFunctionsThatReadASettingNamedByTheirCaller() throws SQLException {
        List<String> functions = new java.util.ArrayList<>(List.of("setting_of", "setting_atomic", "setting_plpgsql",
                "passes_setting"));
        try (Connection c = db.connect()) {
            if (c.getMetaData().getDatabaseMajorVersion() >= 15) {
                functions.add("flags_of");
            }
        }
        for (String f : functions) {
            String expected = "pgward refused this query: function public." + f + " is not built in.";
            assertRefused(CatalogRefusals.FUNCTION, expected, verdict("SELECT public." + f + "('port')"));
            assertRefused(CatalogRefusals.FUNCTION, expected, withoutSelection("SELECT public." + f + "('port')"));
        }
        assertAllowed(verdict("SELECT public.tenant(), public.tenant_atomic()"));
        assertAllowed(withoutSelection("SELECT public.tenant(), public.tenant_atomic()"));
    }

    /**
     * With a selection, object-identifier types are refused in a function's body as in the statement, and so are
     * the gated built-ins, whose arguments nothing proves there.
     */
    @Test
    void refusesUserFunctionsThatUseObjectIdentifierTypesWithASelection() {
        for (String f : List.of("name_of", "name_atomic", "name_plpgsql", "name_by_domain", "type_name_of",
                "type_name_atomic", "name_by_output", "name_by_signature", "name_by_column_type",
                "proc_by_column_type")) {
            String sql = "SELECT CAST(public." + f + "(CAST(1259 AS pg_catalog.oid)) AS text)";
            assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: function public." + f
                    + " is not built in.", verdict(sql));
            assertAllowed(withoutSelection(sql));
        }
        // A row type outside the selection is a relation it does not include, whatever its columns.
        assertInstanceOf(Verdict.Refuse.class, verdict("SELECT CAST(public.name_by_row_type(1259) AS text)"));
        // The defaults the planner adds to a call are held to the rule of a body; a plain one passes.
        assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: function public.default_reads is not "
                + "built in.", verdict("SELECT public.default_reads()"));
        assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: function public.default_row is not "
                + "built in.", verdict("SELECT public.default_row('{}'::jsonb)"));
        assertAllowed(verdict("SELECT public.default_plain(), public.default_plain(3)"));
        for (String f : List.of("role_probe", "role_probe_atomic")) {
            assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: function public." + f
                    + " is not built in.", verdict("SELECT public." + f + "('postgres')"));
            assertAllowed(withoutSelection("SELECT public." + f + "('postgres')"));
        }
    }

    @Test
    void allowsUserFunctionsThatPassTheRule() {
        assertAllowed(verdict("SELECT public.add_tax(amount) FROM public.orders"));
        assertAllowed(verdict("SELECT public.double_it(id) FROM public.orders"));
        assertAllowed(verdict("SELECT public.label(id) FROM public.orders"));
    }

    @Test
    void refusesAnOperatorOutsidePgCatalog() {
        assertRefused(CatalogRefusals.OPERATOR, "pgward refused this query: operator public.=== is not built in.",
                verdict("SELECT id FROM public.orders WHERE id === 1"));
    }

    @Test
    void refusesATypeWithIoFunctionsOutsidePgCatalog() {
        assertRefused(CatalogRefusals.TYPE, "pgward refused this query: type public.mytext is not built in.",
                verdict("SELECT 'x'::public.mytext"));
        assertRefused(CatalogRefusals.TYPE, "pgward refused this query: type public.mytext is not built in.",
                withoutSelection("SELECT ARRAY['x'::public.mytext]"));
    }

    @Test
    void refusesObjectIdentifierTypesOnlyWithASelection() {
        assertRefused(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, "pgward refused this query: type regtype is not "
                + "allowed while a table selection is set.", verdict("SELECT 'int4'::regtype"));
        assertRefused(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, "pgward refused this query: type regclass is not "
                + "allowed while a table selection is set.", verdict("SELECT 'public.orders'::regclass::oid"));
        assertAllowed(withoutSelection("SELECT 'public.orders'::regclass::oid"));
        for (String sql : List.of("SELECT '[1259,1259]'::public.regrange::text",
                "SELECT '{[1259,1259]}'::public.regmultirange::text")) {
            assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
            assertAllowed(withoutSelection(sql));
        }
        assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: function public.range_name is not built in.",
                verdict("SELECT public.range_name(CAST(1259 AS pg_catalog.oid))"));
    }

    @Test
    void allowsARegconfigConstantOnlyPassedStraightToTextSearch() {
        assertAllowed(verdict("SELECT to_tsvector('english', name) FROM public.customers"));
        assertAllowed(verdict("SELECT ts_headline('english', name, plainto_tsquery('english', 'x')) "
                + "FROM public.customers"));
        String regconfig = "pgward refused this query: type regconfig is not allowed while a table selection is set.";
        assertRefused(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, regconfig, verdict("SELECT 'english'::regconfig"));
        assertRefused(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, regconfig, verdict("SELECT get_current_ts_config()"));
        assertRefused(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, regconfig,
                verdict("SELECT to_tsvector('english'::text::regconfig, name) FROM public.customers"));
        assertRefused(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, regconfig,
                verdict("SELECT to_tsvector(c, 'x') FROM (VALUES ('english'::regconfig)) v(c)"));
    }

    @Test
    void refusesDeniedBuiltInsOnlyWithASelection() {
        assertRefused(CatalogRefusals.DENIED_BUILT_IN, "pgward refused this query: pg_database_size is not "
                + "allowed while a table selection is set.", verdict("SELECT pg_database_size(current_database())"));
        assertRefused(CatalogRefusals.DENIED_BUILT_IN, "pgward refused this query: query_to_xmlschema is not "
                + "allowed while a table selection is set.", verdict("SELECT query_to_xmlschema('SELECT 1', true, "
                + "false, '')"));
        assertRefused(CatalogRefusals.DENIED_BUILT_IN, "pgward refused this query: pg_table_is_visible is not "
                + "allowed while a table selection is set.", verdict("SELECT pg_table_is_visible(0)"));
        assertAllowed(withoutSelection("SELECT pg_database_size(current_database())"));
    }

    /** A system view is refused as a relation outside the selection, and so is the function it is built on. */
    @ParameterizedTest
    @ValueSource(strings = {"SELECT * FROM pg_lock_status()", "SELECT * FROM pg_show_all_settings()",
            "SELECT * FROM pg_cursor()", "SELECT * FROM pg_prepared_statement()", "SELECT * FROM pg_prepared_xact()",
            "SELECT * FROM pg_show_all_file_settings()", "SELECT * FROM pg_hba_file_rules()",
            "SELECT * FROM pg_config()", "SELECT * FROM pg_available_extensions()",
            "SELECT * FROM pg_available_extension_versions()", "SELECT * FROM pg_timezone_names()",
            "SELECT * FROM pg_show_replication_origin_status()",
            "SELECT * FROM pg_sequence_parameters(0)",
            "SELECT * FROM pg_stat_get_activity(NULL)", "SELECT pg_stat_get_numscans(1259)",
            "SELECT * FROM pg_get_backend_memory_contexts()", "SELECT * FROM pg_get_replication_slots()"})
    void refusesTheFunctionsTheRefusedSystemViewsAreBuiltOn(String sql) {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, verdict(sql), sql);
        assertEquals(CatalogRefusals.DENIED_BUILT_IN, r.rule(), () -> sql + ": " + r.message());
        assertAllowed(withoutSelection(sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {"pg_locks", "pg_settings", "pg_cursors", "pg_prepared_statements", "pg_file_settings",
            "pg_hba_file_rules", "pg_config", "pg_stat_activity", "pg_backend_memory_contexts", "pg_timezone_names"})
    void theSystemViewsThemselvesAreRefused(String view) {
        assertEquals(CatalogRefusals.RELATION, assertInstanceOf(Verdict.Refuse.class,
                verdict("SELECT * FROM " + view)).rule(), view);
    }

    @Test
    void pgTypeofNamesOnlyTheTypeOfAValueTheStatementHas() {
        assertAllowed(verdict("SELECT pg_typeof(amount), pg_typeof(id)::text FROM public.orders"));
        assertAllowed(verdict("SELECT pg_typeof(1) ORDER BY 1"));
        assertRefused(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, "pgward refused this query: type regtype is not "
                + "allowed while a table selection is set.", verdict("SELECT pg_typeof(1) = 'int4'::regtype"));
        assertRefused(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, "pgward refused this query: type regtype is not "
                + "allowed while a table selection is set.", verdict("SELECT t FROM (SELECT 23::oid::regtype) s(t)"));
    }

    @Test
    void refusesWhenNoSelectedRelationExistsAnyMore() {
        Verdict.Refuse r = assertRefused(CatalogRefusals.NONE_EXISTS,
                "pgward refused this query: none of the selected tables or views exist any more.", check.checkNow(CheckRequest.of(
                        new TableSelection(List.of(), true), null, PATH, "SELECT 1")));
        assertEquals(SqlStates.UNDEFINED_TABLE, r.sqlState());
    }

    // ---- views, policies -----------------------------------------------------------------------------------------

    @Test
    void aSelectedViewMayReadRelationsThatAreNotSelected() throws SQLException {
        TableSelection leak;
        try (Connection c = db.connect()) {
            leak = GuardFixture.selection(c, List.of("public.v_leak"));
        }
        assertAllowed(check.checkNow(CheckRequest.of(leak, null, PATH, "SELECT token FROM public.v_leak")));
        assertRefused(CatalogRefusals.RELATION, "pgward refused this query: it reads public.secrets, which this "
                + "login's table selection does not include. Selected: public.v_leak.",
                check.checkNow(CheckRequest.of(leak, null, PATH, "SELECT token FROM public.secrets")));
    }

    @Test
    void checksTheFunctionsAViewDefinitionCalls() {
        assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: it reads public.v_calls; inside the "
                + "definition of public.v_calls: function public.volatile_one is not built in.",
                withoutSelection("SELECT id FROM public.v_calls"));
    }

    @Test
    void checksTheBuiltInsASelectedViewCalls() throws SQLException {
        TableSelection size;
        try (Connection c = db.connect()) {
            size = GuardFixture.selection(c, List.of("public.v_size"));
        }
        assertRefused(CatalogRefusals.DENIED_BUILT_IN, "pgward refused this query: it reads public.v_size; inside "
                + "the definition of public.v_size: pg_database_size is not allowed while a table selection is set.", check.checkNow(CheckRequest.of(size, null, PATH,
                "SELECT size FROM public.v_size")));
    }

    @Test
    void checksRowSecurityPolicyExpressions() {
        assertRefused(CatalogRefusals.FUNCTION, "pgward refused this query: it reads public.guarded; inside a "
                + "row-security policy of public.guarded: function public.volatile_one is not built in.",
                withoutSelection("SELECT count(*) FROM public.guarded"));
    }

    // ---- statement shapes -------------------------------------------------------------------------------------

    @Test
    void analysesTheQueryInsideExplainDeclareAndCopy() {
        assertAllowed(verdict("EXPLAIN (FORMAT JSON) SELECT * FROM public.orders"));
        assertRefused(CatalogRefusals.RELATION, "pgward refused this query: it reads public.secrets, which this "
                + "login's table selection does not include. " + SELECTED, verdict("EXPLAIN SELECT * FROM public.secrets"));
        assertAllowed(verdict("DECLARE c NO SCROLL CURSOR WITHOUT HOLD FOR SELECT * FROM public.orders"));
        assertInstanceOf(Verdict.Refuse.class, verdict("DECLARE c CURSOR FOR TABLE public.secrets"));
        assertAllowed(verdict("COPY (SELECT * FROM public.v_sales) TO STDOUT WITH (FORMAT csv)"));
        assertAllowed(verdict("COPY public.orders (id, status) TO STDOUT"));
        assertAllowed(verdict("COPY BINARY \"public\".orders TO STDOUT"));
        assertRefused(CatalogRefusals.RELATION, "pgward refused this query: it reads public.secrets, which this "
                + "login's table selection does not include. " + SELECTED, verdict("COPY public.secrets TO STDOUT"));
    }

    @Test
    void sessionCommandsNeedNoAnalysis() {
        assertAllowed(verdict("SHOW search_path"));
        assertAllowed(verdict("SET statement_timeout = 1000"));
        assertAllowed(verdict("FETCH 10 FROM c"));
        assertInstanceOf(Verdict.Refuse.class, verdict("DELETE FROM public.orders"));
    }

    @Test
    void handlesDuplicateColumnNamesAndRecordAndVoidColumns() {
        assertAllowed(verdict("SELECT id, id FROM public.orders"));
        assertAllowed(verdict("SELECT o.id, c.id FROM public.orders o JOIN public.customers c ON c.id = o.customer_id"));
        assertAllowed(verdict("SELECT ROW(id, amount), (o).id FROM public.orders o"));
        assertAllowed(verdict("SELECT pg_sleep(0)"));
        assertAllowed(verdict("SELECT 1 AS \"a\", 2 AS \"a\", NULL"));
    }

    @Test
    void replacesParametersWithTypedNulls() {
        String sql = "SELECT o.id FROM public.orders o WHERE o.customer_id = $1 AND o.status = $2 LIMIT $3";
        assertAllowed(check.checkNow(new CheckRequest(selection, null, PATH, true, sql, List.of())));
        assertAllowed(check.checkNow(new CheckRequest(selection, null, PATH, true, sql, List.of(23, 25, 20))));
        assertAllowed(check.checkNow(new CheckRequest(selection, null, PATH, true, sql, List.of(23, 0))));
        assertAllowed(check.checkNow(new CheckRequest(selection, null, PATH, true, "SELECT $1::int + 1", List.of())));
        assertInstanceOf(Verdict.Refuse.class, check.checkNow(new CheckRequest(selection, null, PATH, true,
                "SELECT token FROM public.secrets WHERE id = $1", List.of())));
        assertRefused(CatalogRefusals.OBJECT_IDENTIFIER_TYPE, "pgward refused this query: type regclass is not "
                + "allowed while a table selection is set.", check.checkNow(new CheckRequest(selection, null, PATH,
                true, "SELECT $1", List.of(2205))));
        Verdict.Refuse unknown = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                new CheckRequest(selection, null, PATH, true, "SELECT 1 WHERE $2 IS NULL", List.of())));
        assertEquals("42P18", unknown.sqlState(), unknown.message());
    }

    @Test
    void aSimpleQuerysParameterGetsPostgresqlsErrorForAStatementWithoutParameters() {
        // A Parse of the same text first: its verdict must not answer the simple Query from the cache.
        Verdict.Refuse parse = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                new CheckRequest(selection, null, PATH, true, "SELECT 1 WHERE $2 IS NULL", List.of())));
        assertEquals("42P18", parse.sqlState(), parse.message());
        for (String sql : List.of("SELECT 1 WHERE $2 IS NULL", "SELECT $70000", "SELECT $0")) {
            Verdict.Refuse simple = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                    new CheckRequest(selection, null, PATH, true, sql, List.of(), true)));
            assertEquals("42P02", simple.sqlState(), sql + ": " + simple.message());
            assertEquals("there is no parameter $" + sql.replaceAll("^.*\\$([0-9]+).*$", "$1"), simple.message());
            assertEquals(sql.indexOf('$') + 1, simple.position(), sql);
        }
        // A Parse may leave a parameter's type to inference.
        assertEquals(Verdict.ALLOW, check.checkNow(new CheckRequest(selection, null, PATH, true,
                "SELECT $1::int + 1", List.of())));
    }

    @Test
    void postgresErrorsKeepTheirStateAndPosition() {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class,
                verdict("SELECT nosuchcolumn FROM public.orders"));
        assertEquals(SqlStates.UNDEFINED_COLUMN, r.sqlState());
        assertEquals(CatalogRefusals.POSTGRES_ERROR, r.rule());
        assertEquals(8, r.position());
        r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(new CheckRequest(selection, null, PATH,
                true, "SELECT $1::int, nosuch FROM public.orders", List.of())));
        assertEquals(17, r.position(), r.message());
    }

    @Test
    void anAllowIsGivenBeforeTheRollbackAndARefusalOnlyAfterIt() throws Exception {
        String allowed = "SELECT count(*) FROM public.customers";
        String refused = "SELECT nosuch FROM public.customers";
        try (Connection c = db.connect()) {
            c.setAutoCommit(true);
            org.postgresql.core.BaseConnection pg = c.unwrap(org.postgresql.core.BaseConnection.class);
            List<org.postgresql.core.TransactionState> seen = new java.util.ArrayList<>();
            CheckTransaction.Checked checked = CheckTransaction.checked(c, new CheckRequest(selection, null, PATH,
                    true, allowed, List.of()), StatementShape.of(allowed, true), Duration.ofSeconds(5),
                    new SharedRows.Generation(), early -> {
                        assertEquals(Verdict.ALLOW, early.verdict());
                        seen.add(pg.getTransactionState());
                    });
            assertEquals(Verdict.ALLOW, checked.verdict());
            assertEquals(List.of(org.postgresql.core.TransactionState.OPEN), seen,
                    "given once, while the check's transaction is still open");
            assertEquals(org.postgresql.core.TransactionState.IDLE, pg.getTransactionState(), "then rolled back");
            checked = CheckTransaction.checked(c, new CheckRequest(selection, null, PATH, true, refused, List.of()),
                    StatementShape.of(refused, true), Duration.ofSeconds(5), new SharedRows.Generation(),
                    early -> seen.add(null));
            assertInstanceOf(Verdict.Refuse.class, checked.verdict());
            assertEquals(1, seen.size(), "a refusal is not given early");
        }
    }

    @Test
    void provesTheTextIsOneStatement() throws Exception {
        // L1 and L3 read this text with standard_conforming_strings off (one string literal); PostgreSQL and
        // pgjdbc, told it is on, see three statements. The check must not run the DROP. Inside the check function's
        // parentheses pgjdbc does not split at the semicolons, and PostgreSQL's grammar rejects them there.
        String sql = "SELECT 'a\\' ) AS x; DROP TABLE public.customers CASCADE; SELECT (' AS y";
        StatementShape differential = StatementShape.of(sql, false);
        assertEquals(StatementShape.Kind.QUERY, differential.kind());
        CheckRequest request = new CheckRequest(selection, null, PATH, true, sql, List.of());
        try (Connection c = db.connect()) {
            c.setAutoCommit(true);
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class,
                    CheckTransaction.run(c, request, differential, Duration.ofSeconds(5)));
            assertEquals("syntax error at or near \";\"", r.message());
            assertEquals(sql.indexOf(';') + 1, r.position());
        }
        // Closing both parentheses puts the semicolons where pgjdbc splits the text: three statements.
        String closingBoth = "SELECT 'a\\' )) AS x; DROP TABLE public.customers CASCADE; SELECT ((' AS y";
        try (Connection c = db.connect()) {
            c.setAutoCommit(true);
            assertRefused(CatalogRefusals.NOT_ONE_STATEMENT, "pgward refused this query: it is not exactly one "
                    + "statement", CheckTransaction.run(c, new CheckRequest(selection, null, PATH, true, closingBoth,
                            List.of()), StatementShape.of(closingBoth, false), Duration.ofSeconds(5)));
        }
        assertAllowed(verdict("SELECT count(*) FROM public.customers"));
        assertInstanceOf(Verdict.Refuse.class, verdict("SELECT 1) AS x UNION SELECT (1"));
        assertInstanceOf(Verdict.Refuse.class, verdict("SELECT 1; SELECT 2"));
    }

    /**
     * The view goes out with the reads of it after it, unless the text would take them in: read with
     * standard_conforming_strings off (as the shape is made here) this text is one string literal, but the session
     * has it on, so for pgjdbc and PostgreSQL it ends inside an open quote, which the first read would close. It goes
     * alone, and PostgreSQL's error is about the statement's own quote, where it is.
     */
    @Test
    void aTextThatWouldTakeTheReadsInGoesAloneAndGetsItsOwnError() throws Exception {
        String sql = "SELECT 'a\\' AS x, (1) AS y, '";
        try (Connection c = db.connect()) {
            c.setAutoCommit(true);
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, CheckTransaction.run(c,
                    CheckRequest.of(TableSelection.NONE, null, PATH, sql), StatementShape.of(sql, false),
                    Duration.ofSeconds(5)));
            assertEquals(CatalogRefusals.POSTGRES_ERROR, r.rule(), r.toString());
            assertEquals(SqlStates.SYNTAX_ERROR, r.sqlState(), r.toString());
            assertTrue(r.message().startsWith("unterminated quoted string at or near \"'"), r.toString());
            assertEquals(sql.lastIndexOf('\'') + 1, r.position(), r.toString());
        }
    }

    /**
     * A read-only session has no temporary schema, so PostgreSQL stops at pg_temp (3F000) where the check's control
     * connection, which keeps one, would look the name up and not find it: the refusal is the session's error. A
     * plain new connection has none either.
     */
    @ParameterizedTest
    @ValueSource(strings = {"SELECT pg_temp.nosuch()", "SELECT id FROM public.orders WHERE \"pg_temp\".f(id) > 0",
            "SELECT 'x'::pg_temp.t", "SELECT 1 OPERATOR(pg_temp.+) 1", "SELECT * FROM pg_temp.nosuch",
            "SELECT 'é' AS \"😀\", pg_temp.nosuch()"})
    void aNameInPgTempGetsTheErrorOfASessionWithoutATemporarySchema(String sql) throws Exception {
        org.postgresql.util.ServerErrorMessage own;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            own = org.junit.jupiter.api.Assertions.assertThrows(org.postgresql.util.PSQLException.class,
                    () -> s.execute(sql)).getServerErrorMessage();
        }
        for (TableSelection login : List.of(TableSelection.NONE, selection)) {
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class,
                    check.checkNow(CheckRequest.of(login, null, PATH, sql)), sql);
            assertEquals(CatalogRefusals.POSTGRES_ERROR, r.rule(), r.toString());
            assertEquals(own.getSQLState(), r.sqlState(), r.toString());
            assertEquals(own.getMessage(), r.message(), r.toString());
            assertEquals(own.getPosition(), io.pgward.guard.Positions.inCharacters(sql, r.position()), r.toString());
        }
    }

    @Test
    void readsTheTextWithTheSessionsStandardConformingStrings() {
        assertAllowed(check.checkNow(new CheckRequest(selection, null, PATH, false,
                "SELECT 'it\\'s' AS s, id FROM public.orders", List.of())));
        // With standard_conforming_strings off, 'x\\' is the string x\ and the text goes on to read secrets.
        assertEquals(CatalogRefusals.RELATION, assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                new CheckRequest(selection, null, PATH, false, "SELECT 'x\\\\' AS s, token FROM public.secrets",
                        List.of()))).rule());
    }

    @Test
    void resolvesNamesWithTheSessionsSearchPath() {
        assertAllowed(verdict("SELECT * FROM orders"));
        assertRefused(CatalogRefusals.RELATION, "pgward refused this query: it reads shadow.orders, which this "
                + "login's table selection does not include. " + SELECTED,
                check.checkNow(CheckRequest.of(selection, null, "shadow, public", "SELECT * FROM orders")));
    }

    @Test
    void pgTempOfTheControlConnectionHoldsNothingAStatementCanName() {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class,
                verdict("SELECT * FROM pg_temp.orders"));
        assertEquals(SqlStates.UNDEFINED_TABLE, r.sqlState());
        assertEquals(SqlStates.UNDEFINED_TABLE, assertInstanceOf(Verdict.Refuse.class,
                verdict("SELECT * FROM pgward_check")).sqlState());
        assertAllowed(check.checkNow(CheckRequest.of(selection, null, "pg_temp, public", "SELECT * FROM orders")));
    }

    @Test
    void runsAsTheBackendRole() {
        CheckRequest asAnalyst = CheckRequest.of(selection, "analyst", PATH, "SELECT * FROM public.orders");
        assertAllowed(check.checkNow(asAnalyst));
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                CheckRequest.of(selection, "no_such_role_here", PATH, "SELECT 1")));
        assertEquals(CatalogRefusals.CHECK_FAILED, r.rule(), r.message());
    }

    @Test
    void theAsyncApiAnswersOffTheCallersThread() throws Exception {
        Verdict v = check.check(CheckRequest.of(selection, null, PATH, "SELECT count(*) FROM public.mv_region"))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertAllowed(v);
        assertTrue(check.cachedVerdicts() > 0);
    }
}
