package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A type looked up by a name bound as a parameter, as psycopg 3's {@code TypeInfo.fetch} and {@code EnumInfo.fetch}
 * do ({@code WHERE t.oid = to_regtype($1)}), through a filtered catalog on a real PostgreSQL: the visible enum
 * public.order_status is found, and the hidden hr.order_status, with its label, gives exactly what an absent name
 * gives. The same call anywhere its result could tell a hidden type from an absent one stays refused.
 */
@PostgresTest
class TypeByNamePostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final String TYPE_INFO = """
            SELECT
                typname AS name, oid, typarray AS array_oid,
                oid::regtype::text AS regtype, typdelim AS delimiter
            FROM pg_type t
            WHERE t.oid = to_regtype($1)
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
                WHERE t.oid = to_regtype($1)
                ORDER BY e.enumsortorder
            ) x
            GROUP BY name, oid, array_oid""";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            FilteredFixture.createStatusTypes(s);
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

    /** The rewritten statement's rows for {@code name}, run as the database owner. */
    private static List<String> rows(String sql, String name) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET search_path = " + PATH);
            // pgjdbc marks parameters with ?, PostgreSQL with $n.
            try (PreparedStatement p = c.prepareStatement(rewrite(sql).replace("$1", "?"))) {
                p.setString(1, name);
                try (ResultSet rs = p.executeQuery()) {
                    ResultSetMetaData meta = rs.getMetaData();
                    while (rs.next()) {
                        List<String> row = new ArrayList<>();
                        for (int i = 1; i <= meta.getColumnCount(); i++) {
                            row.add(rs.getString(i));
                        }
                        rows.add(String.join("|", row).replaceAll("\\|\\d+\\|\\d+\\|", "|#|#|"));
                    }
                }
            }
        }
        return rows;
    }

    @Test
    void aNameBoundAsTextIsResolvedBeforeItsBindForItsTypeModifier() throws SQLException {
        // psycopg 3.2's lookup binds the name as text: to_regtype then finds a hidden type and fails on a modifier it
        // takes none of, where an absent name gives NULL. That tells a hidden type from an absent one, so the verdict
        // names the parameter, whose bound values the session resolves (a hidden type's name binds as one nothing
        // has: PythonClientsIT).
        assertEquals(List.of(), rows(TYPE_INFO, "hr.no_such_type(1)"));
        SQLException found = assertThrows(SQLException.class, () -> rows(TYPE_INFO, "hr.order_status(1)"));
        assertTrue(found.getMessage().contains("type modifier is not allowed"), found.getMessage());
        for (int type : new int[] {0, 25, 1043}) {
            for (String sql : List.of(TYPE_INFO, ENUM_INFO)) {
                assertEquals(new Verdict.Allow(false, List.of(new Verdict.TypeNameParameter(1, true))),
                        verdict(sql, type), sql);
            }
        }
        // A text of another type (name, bpchar) is not read as a type name: refused.
        for (int type : new int[] {19, 1042}) {
            assertInstanceOf(Verdict.Refuse.class, verdict(TYPE_INFO, type));
        }
        // psycopg 3.1's spelling binds a regtype, whose values the session resolves before each Bind.
        assertInstanceOf(Verdict.Allow.class, verdict(TYPE_INFO.replace("to_regtype($1)", "$1::regtype"), 2206));
        assertInstanceOf(Verdict.Allow.class, verdict(TYPE_INFO.replace("to_regtype($1)", "$1::regtype"), 0));
    }

    @Test
    void aNameThatFailsOnlyWhenFoundIsNeverLookedUp() {
        // The same answer for a hidden and an absent name, whatever the spelling that carries a modifier.
        for (String[] pair : List.of(
                new String[] {"to_regtype('hr.order_status(1)')", "to_regtype('hr.no_such_type(1)')"},
                new String[] {"to_regtype('hr.salaries.id%TYPE')", "to_regtype('hr.no_such.id%TYPE')"},
                new String[] {"to_regprocedure('abs(hr.order_status(1))')",
                    "to_regprocedure('abs(hr.no_such_type(1))')"})) {
            Verdict hidden = verdict("SELECT t.oid FROM pg_type t WHERE t.oid = " + pair[0] + "::oid", 25);
            Verdict absent = verdict("SELECT t.oid FROM pg_type t WHERE t.oid = " + pair[1] + "::oid", 25);
            assertInstanceOf(Verdict.Refuse.class, hidden, pair[0]);
            assertEquals(((Verdict.Refuse) absent).message().replace("no_such_type", "order_status")
                    .replace("no_such", "salaries"), ((Verdict.Refuse) hidden).message(), pair[0]);
        }
        // A name computed at run time is refused whatever it would name.
        for (String sql : List.of(
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype(lower('HR.ORDER_STATUS(1)'))",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype('hr.' || 'order_status(1)')",
                "SELECT t.oid FROM pg_type t, (VALUES ('hr.order_status(1)')) x(n) WHERE t.oid = to_regtype(x.n)",
                "SELECT p.oid FROM pg_proc p WHERE p.oid = to_regprocedure(lower('ABS(HR.ORDER_STATUS(1))'))")) {
            assertInstanceOf(Verdict.Refuse.class, verdict(sql, 25), sql);
        }
    }

    @Test
    void aResultThatCouldTellHiddenFromAbsentIsRefused() {
        for (String sql : List.of(
                "SELECT to_regtype($1)",
                "SELECT to_regtype($1)::oid",
                "SELECT t.oid = to_regtype($1) FROM pg_type t",
                "SELECT t.oid FROM pg_type t WHERE NOT (t.oid = to_regtype($1))",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1) OR t.oid = 23",
                "SELECT t.oid FROM pg_type t WHERE t.oid IS DISTINCT FROM to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid <> to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid < to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1) AND to_regtype($1) IS NULL",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1)::oid + 0",
                "SELECT t.oid FROM pg_type t WHERE (t.oid + 0)::oid = to_regtype($1)",
                "SELECT t.oid FROM pg_type t LEFT JOIN pg_class c ON c.reltype = to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regtype($1) GROUP BY 1 HAVING to_regtype($1) > 0",
                "SELECT c.oid FROM pg_class c WHERE c.oid = to_regtype($1)",
                "SELECT x FROM (SELECT 16384::oid + g AS x FROM generate_series(0, 9999) g) s "
                        + "WHERE x = to_regtype($1)",
                "SELECT t.oid FROM pg_type t WHERE t.oid = to_regclass($1)")) {
            assertInstanceOf(Verdict.Refuse.class, verdict(sql, 25), sql);
        }
    }
}
