package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * A type looked up by a name bound to a regtype parameter, as psycopg 3.1's {@code TypeInfo.fetch},
 * {@code EnumInfo.fetch} and {@code CompositeInfo.fetch} do ({@code WHERE t.oid = $1::regtype}, the name sent with
 * an unknown type): the statement is allowed only where its value is compared with visible types' OIDs, and names
 * the parameters whose bound values the session resolves before the Bind; {@link BoundTypeNames} answers a hidden
 * type's name with exactly the error PostgreSQL gives when that type is absent (compared with PostgreSQL's own error
 * after dropping the type, spelling by spelling), and lets visible and absent names, OIDs and keywords through.
 */
@PostgresTest
class BoundTypeNamesPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final String TYPE_INFO = """
            SELECT
                typname AS name, oid, typarray AS array_oid,
                oid::regtype::text AS regtype, typdelim AS delimiter
            FROM pg_type t
            WHERE t.oid = $1::regtype
            ORDER BY t.oid""";
    private static final String ENUM_INFO = """
            SELECT name, oid, array_oid, array_agg(label) AS labels
            FROM (
                SELECT
                    t.typname AS name, t.oid AS oid, t.typarray AS array_oid,
                    e.enumlabel AS label
                FROM pg_type t
                LEFT JOIN  pg_enum e
                ON e.enumtypid = t.oid
                WHERE t.oid = $1::regtype
                ORDER BY e.enumsortorder
            ) x
            GROUP BY name, oid, array_oid""";
    private static final String COMPOSITE_INFO = """
            SELECT
                t.typname AS name, t.oid AS oid, t.typarray AS array_oid,
                t.oid::regtype::text AS regtype,
                coalesce(a.fnames, '{}') AS field_names,
                coalesce(a.ftypes, '{}') AS field_types
            FROM pg_type t
            LEFT JOIN (
                SELECT
                    attrelid,
                    array_agg(attname) AS fnames,
                    array_agg(atttypid) AS ftypes
                FROM (
                    SELECT a.attrelid, a.attname, a.atttypid
                    FROM pg_attribute a
                    JOIN pg_type t ON t.typrelid = a.attrelid
                    WHERE t.oid = $1::regtype
                    AND a.attnum > 0
                    AND NOT a.attisdropped
                    ORDER BY a.attnum
                ) x
                GROUP BY attrelid
            ) a ON a.attrelid = t.typrelid
            WHERE t.oid = $1::regtype""";
    private static final String MULTIRANGE_INFO = """
            SELECT t.typname AS name, t.oid AS oid, t.typarray AS array_oid,
                t.oid::regtype::text AS regtype,
                r.rngtypid AS range_oid, r.rngsubtype AS subtype_oid
            FROM pg_type t
            JOIN pg_range r ON t.oid = r.rngmultitypid
            WHERE t.oid = $1::regtype""";
    /** pg_catalog.regtype's OID: a driver may declare the parameter's type instead of leaving it unknown. */
    private static final int REGTYPE = 2206;
    private static final int TEXT = 25;
    private static final int VARCHAR = 1043;

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            FilteredFixture.createStatusTypes(s);
            s.execute("CREATE TYPE hr.\"Mixed Case\" AS (a int)");
            s.execute("CREATE TYPE public.hidden_pair AS (a int, b int)");
            selection = GuardFixture.selection(c).withFilters(FilteredFixture.filters(c, GuardFixture.SELECTED));
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

    private static Verdict verdict(String sql, int parameterType) {
        return check.checkNow(new CheckRequest(selection, null, PATH, true, rewrite(sql), List.of(parameterType)));
    }

    private static Verdict verdict(String sql, List<Integer> parameterTypes, String path) {
        return check.checkNow(new CheckRequest(selection, null, path, true, FilteredFixture.rewrite(sql, path,
                selection), parameterTypes));
    }

    /** psycopg 3.2's form of a lookup: the name bound to a text parameter, given to to_regtype. */
    private static String toRegtype(String sql) {
        return sql.replace("$1::regtype", "to_regtype($1)");
    }

    @Test
    void psycopgLookupsAreAllowedAndNameTheirTypeNameParameter() {
        for (int type : new int[] {0, REGTYPE}) {
            for (String sql : List.of(TYPE_INFO, ENUM_INFO, COMPOSITE_INFO)) {
                assertEquals(new Verdict.Allow(false, List.of(new Verdict.TypeNameParameter(1, false))),
                        verdict(sql, type), sql);
            }
        }
    }

    @Test
    void psycopgToRegtypeLookupsAreAllowedAndNameTheirTextParameter() {
        for (int type : new int[] {0, TEXT, VARCHAR}) {
            for (String sql : List.of(TYPE_INFO, ENUM_INFO, COMPOSITE_INFO, MULTIRANGE_INFO)) {
                assertEquals(new Verdict.Allow(false, List.of(new Verdict.TypeNameParameter(1, true))),
                        verdict(toRegtype(sql), type), sql);
            }
        }
        assertEquals(new Verdict.Allow(false, List.of(new Verdict.TypeNameParameter(1, true),
                        new Verdict.TypeNameParameter(2, false))),
                verdict("SELECT t.oid FROM pg_type t WHERE t.oid = pg_catalog.to_regtype($1) AND t.oid = $2::regtype",
                        List.of(0, 0), PATH));
    }

    /**
     * A text parameter whose value could show anywhere but in to_regtype compared with visible types' OIDs: pgward
     * binds a name nothing has in place of a hidden type's, which would show there.
     */
    @Test
    void aTextTypeNameParameterAnywhereItsValueCouldShowIsRefused() {
        for (String sql : List.of(
                "SELECT to_regtype($1)",
                "SELECT $1::text, t.oid FROM pg_type t WHERE t.oid = to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1) AND $1 IS NULL",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1) AND length($1) > 3",
                "SELECT t.oid FROM pg_type t WHERE to_regtype($1) IS NULL",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1) OR t.oid = 23",
                "SELECT t.oid FROM pg_type t WHERE NOT (t.oid = to_regtype($1))",
                "SELECT t.oid FROM pg_type t WHERE t.oid <> to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype(($1))",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1 || '')",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1::text)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regclass($1)",
                "SELECT c.oid FROM pg_class c WHERE c.oid = to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = public.to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = x.pg_catalog.to_regtype($1)",
                "SELECT t.oid FROM pg_type t LEFT JOIN pg_class c ON c.reltype = to_regtype($1)",
                "SELECT t.oid, NULL::text FROM pg_type t WHERE t.oid = to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1) UNION SELECT to_regtype($1)")) {
            assertInstanceOf(Verdict.Refuse.class, verdict(sql, List.of(0), PATH), sql);
        }
        assertInstanceOf(Verdict.Refuse.class, verdict(
                "SELECT $2, t.oid FROM pg_type t WHERE t.oid = to_regtype($1)", List.of(0, 0), PATH));
    }

    /**
     * {@code to_regtype} spelled without a schema is a user's function where the search_path puts its schema before
     * pg_catalog: the value would reach that function.
     */
    @Test
    void aUsersFunctionNamedToRegtypeDoesNotTakeTheName() throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE FUNCTION public.to_regtype(text) RETURNS oid LANGUAGE sql STABLE "
                    + "AS 'SELECT length($1)::oid'");
            // Owned by a superuser it would be refused for that alone.
            s.execute("DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'function_owner') THEN "
                    + "CREATE ROLE function_owner; END IF; END$$");
            s.execute("ALTER FUNCTION public.to_regtype(text) OWNER TO function_owner");
        }
        try {
            String sql = "SELECT t.oid FROM pg_catalog.pg_type t WHERE t.oid = to_regtype($1)";
            assertInstanceOf(Verdict.Refuse.class, verdict(sql, List.of(0), "public, pg_catalog"));
            assertEquals(new Verdict.Allow(false, List.of(new Verdict.TypeNameParameter(1, true))),
                    verdict(sql, List.of(0), PATH));
        } finally {
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("DROP FUNCTION public.to_regtype(text)");
            }
        }
    }

    @Test
    void aRegtypeParameterAnywhereItsValueCouldShowIsRefused() {
        for (String sql : List.of(
                "SELECT $1::regtype",
                "SELECT $1::regtype::text",
                "SELECT $1::regtype::oid",
                "SELECT t.oid = $1::regtype FROM pg_type t",
                "SELECT t.oid FROM pg_type t WHERE NOT (t.oid = $1::regtype)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = $1::regtype OR t.oid = 23",
                "SELECT t.oid FROM pg_type t WHERE t.oid IS DISTINCT FROM $1::regtype",
                "SELECT t.oid FROM pg_type t WHERE t.oid <> $1::regtype",
                "SELECT t.oid FROM pg_type t WHERE t.oid = $1::regtype AND $1::regtype IS NULL",
                "SELECT t.oid FROM pg_type t WHERE t.oid = $1::regtype::oid + 0",
                "SELECT t.oid FROM pg_type t LEFT JOIN pg_class c ON c.reltype = $1::regtype",
                "SELECT t.oid FROM pg_type t WHERE t.oid = $1::regtype GROUP BY 1 HAVING $1::regtype > 0",
                "SELECT c.oid FROM pg_class c WHERE c.oid = $1::regtype",
                "SELECT t.oid FROM pg_type t WHERE t.oid = ANY (ARRAY[$1::regtype])",
                "SELECT t.oid FROM pg_type t WHERE t.oid = ANY ($1::regtype[])",
                "SELECT t.oid FROM pg_type t WHERE t.oid = $1::regclass",
                "SELECT t.oid FROM pg_type t WHERE t.oid = $1::text::regtype",
                "WITH p AS (SELECT $1::regtype AS r) SELECT t.oid FROM pg_type t, p WHERE t.oid = p.r",
                "SELECT t.oid FROM pg_type t WHERE t.oid = (SELECT $1::regtype)",
                "SELECT t.oid FROM pg_type t, LATERAL (SELECT $1::regtype AS r) p WHERE t.oid = p.r",
                "SELECT t.oid FROM pg_type t WHERE t.oid = $1::regtype UNION SELECT $1::regtype",
                "SELECT x FROM (SELECT 16384::oid + g AS x FROM generate_series(0, 9999) g) s "
                        + "WHERE x = $1::regtype")) {
            assertInstanceOf(Verdict.Refuse.class, verdict(sql, 0), sql);
        }
    }

    private static Optional<Verdict.Refuse> bound(String value, String path) throws SQLException {
        try (Connection c = db.connect()) {
            return BoundTypeNames.check(c, selection, path, Map.of(1, value));
        }
    }

    /**
     * PostgreSQL's own answer for binding {@code value} once {@code type} is dropped (rolled back): what an absent
     * type gives, spelling by spelling.
     */
    private static String absentAnswer(String type, String value, String path) throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL search_path = " + path);
                s.execute(type.startsWith("SCHEMA:") ? "DROP SCHEMA " + type.substring(7) + " CASCADE"
                        : "DROP TYPE " + type + " CASCADE");
            }
            try (PreparedStatement p = c.prepareStatement("SELECT ?::regtype")) {
                p.setString(1, value);
                p.executeQuery().close();
                return "no error";
            } catch (PSQLException e) {
                return e.getSQLState() + " " + e.getServerErrorMessage().getMessage();
            } finally {
                c.rollback();
            }
        }
    }

    @Test
    void aHiddenTypesNameGetsWhatPostgresSaysWithoutIt() throws SQLException {
        Map<String, List<String>> spellings = Map.of(
                "hr.order_status", List.of("hr.order_status", "HR.Order_Status", "\"hr\".\"order_status\"",
                        " hr . order_status ", "hr.order_status[]", "hr.order_status[3][]", "hr.order_status(2)",
                        "hr.order_status (2, 3) []"),
                "hr.secret_kind", List.of("hr.secret_kind", "hr.\"secret_kind\""),
                "hr.\"Mixed Case\"", List.of("hr.\"Mixed Case\"", "\"hr\".\"Mixed Case\"[]"),
                "public.hidden_pair", List.of("hidden_pair", "public.hidden_pair", "Hidden_Pair[]"));
        for (Map.Entry<String, List<String>> type : spellings.entrySet()) {
            for (String value : type.getValue()) {
                Optional<Verdict.Refuse> answer = bound(value, PATH);
                assertTrue(answer.isPresent(), value);
                boolean inHr = type.getKey().startsWith("hr.");
                assertEquals(absentAnswer(inHr ? "SCHEMA:hr" : type.getKey(), value, PATH),
                        answer.get().sqlState() + " " + answer.get().message(), value);
            }
        }
        String hrFirst = "hr, public";
        Optional<Verdict.Refuse> unqualified = bound("secret_kind", hrFirst);
        assertTrue(unqualified.isPresent());
        assertEquals(absentAnswer("hr.secret_kind", "secret_kind", hrFirst),
                unqualified.get().sqlState() + " " + unqualified.get().message());
    }

    /** PostgreSQL's answer for binding {@code value} once the schema is dropped (rolled back). */
    private static String absentSchemaAnswer(String schema, String value) throws SQLException {
        return absentAnswer("SCHEMA:" + schema, value, PATH);
    }

    @Test
    void aNameInAHiddenSchemaGetsWhatPostgresSaysWithoutTheSchema() throws SQLException {
        for (String value : List.of("hr.order_status", "HR.no_such_type", "\"hr\".\"Mixed Case\"[]", "hr.x(1)")) {
            Optional<Verdict.Refuse> answer = bound(value, PATH);
            assertTrue(answer.isPresent(), value);
            assertEquals(absentSchemaAnswer("hr", value), answer.get().sqlState() + " " + answer.get().message(),
                    value);
        }
    }

    @Test
    void visibleAndAbsentNamesOidsAndKeywordsAreLeftToPostgres() throws SQLException {
        for (String value : List.of("order_status", "public.order_status", "ORDER_STATUS[]", "int4", "integer",
                "int", "double precision".replace(" ", ""), "text", "pg_catalog.text", "\"char\"",
                "no_such_schema.order_status", "no_such_type", "-", "0", "16999", "4294967295", "orders",
                "timestamp(3)", "bit(3)", "varchar(10)[]", "public.order_status(1)")) {
            assertEquals(Optional.empty(), bound(value, PATH), value);
        }
        assertEquals(Optional.empty(), bound("order_status", "hr_does_not_exist, public"));
    }

    @Test
    void aValuePgwardDoesNotReadIsRefusedWhateverItNames() throws SQLException {
        for (String value : List.of("hr.order_status -- x", "hr./**/order_status", "shop.hr.order_status",
                "double precision", "hr.order_status ARRAY", "setof hr.order_status", "hr.order_status(a)",
                "hr.order_status(1+1)", "hr.order_status[9999999999]", "\"\"", "", " ", "1 ", " 1", "hr.1x",
                "hr.order_status;", "U&\"hr\".order_status", "x".repeat(64), "hr." + "x".repeat(64),
                "hr.no_such_type -- x")) {
            Optional<Verdict.Refuse> answer = bound(value, PATH);
            assertTrue(answer.isPresent(), value);
            assertEquals(CatalogRefusals.TYPE_NAME_PARAMETER, answer.get().rule(), value);
        }
    }
}
