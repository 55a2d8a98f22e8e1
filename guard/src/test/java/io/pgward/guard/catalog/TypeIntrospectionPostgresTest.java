package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * asyncpg's type introspection (its {@code INTRO_LOOKUP_TYPES} statement for PostgreSQL 14 and later and
 * {@code INTRO_LOOKUP_TYPES_13}, copied from asyncpg 0.27: a recursive CTE over a subquery of pg_type, pg_namespace,
 * pg_range and pg_attribute/pg_class sublinks, CASE and COALESCE, {@code $1::oid[]} and
 * {@code basetype::regtype::text}) through a filtered catalog on a real PostgreSQL: it is allowed, a visible enum
 * and a visible row type are described with the types they reach, and a hidden type's OID in the array gives
 * nothing. The proofs it needs (CASE, COALESCE, scalar subqueries, set operations and recursive CTEs) refuse what
 * could carry a hidden or invented OID into a reg* value.
 */
@PostgresTest
class TypeIntrospectionPostgresTest {

    private static final String PATH = "\"$user\", public";
    private static final int OID_ARRAY = 1028;
    private static final int OID = 26;

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

    private static String resource(String name) throws IOException {
        try (InputStream in = TypeIntrospectionPostgresTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String rewrite(String sql) {
        return FilteredFixture.rewrite(sql, PATH, selection);
    }

    private static Verdict verdict(String sql, int... parameterTypes) {
        List<Integer> types = new ArrayList<>();
        for (int t : parameterTypes) {
            types.add(t);
        }
        return check.checkNow(new CheckRequest(selection, null, PATH, true, rewrite(sql), types));
    }

    private static long oid(String type) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT '" + type + "'::regtype::oid")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The rewritten statement's (name, basetype name, element name) rows for the OIDs, run as the owner. */
    private static List<String> introspect(String sql, long... oids) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET search_path = " + PATH);
            try (PreparedStatement p = c.prepareStatement(rewrite(sql).replace("$1", "?"))) {
                Long[] boxed = new Long[oids.length];
                for (int i = 0; i < oids.length; i++) {
                    boxed[i] = oids[i];
                }
                p.setArray(1, c.createArrayOf("oid", boxed));
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        rows.add(rs.getString("ns") + "." + rs.getString("name") + "|" + rs.getString("kind") + "|"
                                + rs.getString("elemtype_name") + "|" + rs.getString("attrnames"));
                    }
                }
            }
        }
        rows.sort(null);
        return rows;
    }

    @Test
    void asyncpgIntrospectionIsAllowedAndDescribesVisibleTypesOnly() throws Exception {
        for (String file : List.of("asyncpg-lookup-types.sql", "asyncpg-lookup-types-13.sql")) {
            String sql = resource(file);
            for (int type : new int[] {0, OID_ARRAY}) {
                assertFalse(verdict(sql, type) instanceof Verdict.Refuse, file + ": " + verdict(sql, type));
            }
            assertEquals(List.of("public.order_status|e|-|null"), introspect(sql, oid("public.order_status")), file);
            List<String> orders = introspect(sql, oid("public.orders"));
            assertTrue(orders.stream().anyMatch(r -> r.startsWith("public.orders|c|")), orders.toString());
            assertTrue(orders.contains("public.order_status|e|-|null"), orders.toString());
            assertEquals(List.of("pg_catalog._int4|b|integer|null", "pg_catalog.int4|b|-|null"),
                    introspect(sql, oid("int4[]")), file);
            for (String hidden : List.of("hr.order_status", "hr.secret_kind", "hr.salaries", "hr.secret_kind[]")) {
                assertEquals(List.of(), introspect(sql, oid(hidden)), file + ": " + hidden);
            }
        }
    }

    @Test
    void valuesThatOnlyPassThroughCaseCoalesceSubqueriesAndCtesStayProven() {
        for (String sql : List.of(
                "SELECT (CASE WHEN t.typtype = 'e' THEN t.oid ELSE NULL END)::regtype::text FROM pg_type t",
                "SELECT COALESCE(t.typelem, t.typbasetype)::regtype::text FROM pg_type t",
                "SELECT x::regtype::text FROM (SELECT t.oid FROM pg_type t UNION SELECT t.typelem FROM pg_type t) s(x)",
                "SELECT (SELECT t.oid FROM pg_type t WHERE t.typname = 'int4')::regtype::text",
                "WITH RECURSIVE r(x, d) AS (SELECT t.oid, 0 FROM pg_type t WHERE t.typname = '_int4' "
                        + "UNION ALL SELECT t.typelem, r.d + 1 FROM pg_type t, r WHERE t.oid = r.x AND r.d < 3) "
                        + "SELECT x::regtype::text FROM r",
                "WITH RECURSIVE r(x, d) AS (SELECT t.oid, 0 FROM pg_type t UNION ALL SELECT r.x, r.d + 1 FROM r "
                        + "WHERE r.d < 1) SELECT x::regtype::text FROM r")) {
            assertInstanceOf(Verdict.Allow.class, verdict(sql), sql);
        }
    }

    @Test
    void anInventedOrBoundOidCarriedIntoARegValueIsRefused() {
        for (String sql : List.of(
                "SELECT (CASE WHEN t.oid > 0 THEN t.oid ELSE 16999 END)::regtype::text FROM pg_type t",
                "SELECT COALESCE(NULL::oid, 16999::oid)::regtype::text FROM pg_type t",
                "SELECT x::regtype::text FROM (SELECT t.oid FROM pg_type t UNION ALL SELECT 16999::oid) s(x)",
                "SELECT x::regtype::text FROM (SELECT t.oid FROM pg_type t INTERSECT SELECT g::oid "
                        + "FROM generate_series(16384, 20000) g) s(x)",
                "WITH RECURSIVE r(x) AS (SELECT t.oid FROM pg_type t UNION ALL SELECT x + 1 FROM r WHERE x < 17000) "
                        + "SELECT x::regtype::text FROM r",
                "WITH RECURSIVE r(a, b, d) AS (SELECT t.oid, 16999::oid, 0 FROM pg_type t UNION ALL "
                        + "SELECT r.b, r.a, r.d + 1 FROM r WHERE r.d < 1) SELECT a::regtype::text FROM r",
                "SELECT (SELECT 16384::oid + g FROM generate_series(0, 0) g)::regtype::text",
                "SELECT (SELECT 16999::oid)::regtype::text",
                "SELECT (CASE WHEN t.oid > 0 THEN t.oid ELSE $1 END)::regtype::text FROM pg_type t",
                "SELECT COALESCE($1, t.oid)::regtype::text FROM pg_type t",
                "SELECT x::regtype::text FROM (SELECT t.oid FROM pg_type t UNION SELECT $1) s(x)")) {
            assertInstanceOf(Verdict.Refuse.class, sql.contains("$1") ? verdict(sql, OID) : verdict(sql), sql);
        }
    }
}
