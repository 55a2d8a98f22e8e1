package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
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
 * current_schemas(bool) and current_schema() of a login with a table selection answer as in a database without the
 * schemas it does not see, on a real PostgreSQL (14 to 18 with -Dpg.version). The guard corpus's fixture: analyst
 * has USAGE on hr, which the selection hides, so PostgreSQL itself would list hr. Each statement is served for a
 * search_path naming hr and run as analyst; PostgreSQL's own answer for the client's text on the same path with hr
 * replaced by a name nothing has ({@code zz}) must be the same, word for word, column names and types included. A
 * statement pgward cannot rewrite is refused, for hr and zz alike.
 */
@PostgresTest
class CurrentSchemasPostgresTest {

    private static final String ROLE = "analyst";

    private static TestDatabase db;
    private static CatalogCheck check;
    private static TableSelection selection;
    private static TableSelection withPathView;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            GuardFixture.load(c);
            s.execute("DO $$ BEGIN CREATE ROLE schemas_without_hr; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
            s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO schemas_without_hr");
            s.execute("CREATE VIEW public.v_path AS SELECT current_schemas(false) AS path");
            s.execute("GRANT SELECT ON public.v_path TO analyst");
            s.execute("CREATE FUNCTION public.path_of() RETURNS name[] STABLE LANGUAGE sql "
                    + "AS 'SELECT current_schemas(false)'");
            s.execute("ALTER FUNCTION public.path_of() OWNER TO analyst");
            s.execute("CREATE FUNCTION public.schema_of() RETURNS name STABLE LANGUAGE plpgsql "
                    + "AS 'BEGIN RETURN current_schema; END'");
            s.execute("ALTER FUNCTION public.schema_of() OWNER TO analyst");
            selection = FilteredFixture.filteredSelection(c, GuardFixture.SELECTED);
            List<String> names = new ArrayList<>(GuardFixture.SELECTED);
            names.add("public.v_path");
            withPathView = FilteredFixture.filteredSelection(c, names);
        }
        check = CatalogChecks.on(db);
    }

    @AfterAll
    static void stop() {
        check.close();
    }

    @Test
    void postgresListsTheHiddenSchemaItself() throws SQLException {
        // What the rest of this class guards against: the role may use hr, so PostgreSQL names it.
        assertEquals(List.of("current_schemas:_name|current_schema:name", "{hr,public}|hr"),
                run("SELECT current_schemas(false), current_schema()", "hr, nosuch, public", ROLE));
    }

    @Test
    void aHiddenSchemaOnThePathAnswersAsAnAbsentOne() throws SQLException {
        String sql = "SELECT current_schemas(false), current_schema()";
        List<String> served = assertAnsweredAsWithoutHr(sql, "hr, nosuch, public");
        assertEquals(List.of("current_schemas:_name|current_schema:name", "{public}|public"), served);
        // And as for a role that may not use hr, which PostgreSQL leaves out itself.
        assertEquals(run(sql, "hr, nosuch, public", "schemas_without_hr"), served);
    }

    @Test
    void visibleSchemasKeepTheirOrderWithTheImplicitOnes() throws SQLException {
        assertEquals(List.of("current_schemas:_name|current_schemas:_name|current_schema:name",
                        "{public,pg_catalog}|{public,pg_catalog}|public"),
                assertAnsweredAsWithoutHr("SELECT current_schemas(true), current_schemas(false), current_schema",
                        "public, hr, pg_catalog"));
        assertEquals(List.of("current_schemas:_name|current_schemas:_name",
                        "{pg_catalog,information_schema,public}|{information_schema,public}"),
                assertAnsweredAsWithoutHr("SELECT current_schemas(true), current_schemas(false)",
                        "hr, information_schema, \"$user\", hr, public"));
    }

    @Test
    void nothingVisibleOnThePathIsAnEmptyArrayAndANullSchema() throws SQLException {
        assertEquals(List.of("current_schemas:_name|current_schema:name|current_schemas:_name", "{}|null|{pg_catalog}"),
                assertAnsweredAsWithoutHr("SELECT current_schemas(false), current_schema(), current_schemas(true)",
                        "hr, nosuch"));
        assertEquals(List.of("?column?:bool|?column?:bool", "f|t"), assertAnsweredAsWithoutHr(
                "SELECT current_schemas(false) IS NULL, current_schema() IS NULL", "hr"));
    }

    @Test
    void aNullArgumentIsNullNotAnEmptyArray() throws SQLException {
        // current_schemas is strict: NULL for a NULL argument, where nothing left on the path is {}.
        assertEquals(List.of("current_schemas:_name|current_schemas:_name|?column?:bool|current_schemas:_name"
                        + "|current_schema:name|current_schema:name", "null|null|t|{}|null|null"),
                assertAnsweredAsWithoutHr("SELECT current_schemas(NULL), current_schemas(NULL::bool), "
                        + "current_schemas(NULL) IS NULL, current_schemas(false), current_schema(), current_schema",
                        "hr"));
        assertEquals(List.of("current_schemas:_name|?column?:bool|current_schema:name|current_schemas:_name",
                        "null|t|public|{pg_catalog,public}"),
                assertAnsweredAsWithoutHr("SELECT current_schemas(NULL::bool), current_schemas(NULL) IS NULL, "
                        + "current_schema(), current_schemas(true)", "hr, public"));
        String sql = "SELECT current_schemas($1) AS path";
        Served served = serve(sql, "hr, public", List.of(16), selection);
        assertInstanceOf(Verdict.Allow.class, served.verdict());
        assertEquals(run(sql, "zz, public", ROLE, (Object) null),
                run(served.text(), "hr, public", ROLE, (Object) null));
        assertEquals(List.of("path:_name", "null"), run(served.text(), "hr, public", ROLE, (Object) null));
    }

    @Test
    void aPreparedStatementKeepsItsParameter() throws SQLException {
        String sql = "SELECT current_schemas($1) AS path, array_length(current_schemas(true), 1) AS n";
        Served served = serve(sql, "hr, public", List.of(16), selection);
        assertInstanceOf(Verdict.Allow.class, served.verdict());
        assertTrue(served.text().contains("current_schemas($1)"), served.text());
        for (boolean implicit : new boolean[] {true, false}) {
            assertEquals(run(sql, "zz, public", ROLE, implicit), run(served.text(), "hr, public", ROLE, implicit));
        }
        assertEquals(List.of("path:_name|n:int4", "{pg_catalog,public}|2"),
                run(served.text(), "hr, public", ROLE, true));
    }

    @Test
    void everySpellingIsRewrittenOrRefused() throws SQLException {
        String path = "hr, public";
        List<String> rewritten = List.of(
                "SELECT \"current_schemas\"(false)",
                "SELECT pg_catalog.current_schemas(true)",
                "SELECT PG_CATALOG.\"current_schema\"()",
                "SELECT CURRENT_SCHEMA",
                "SELECT current_schema::text, (current_schema)::varchar AS v",
                "SELECT CAST(CAST(current_schemas(false) AS text) AS varchar(40))",
                "SELECT (SELECT current_schemas(true))",
                "SELECT x FROM (SELECT current_schema() AS x) s",
                "WITH p AS (SELECT current_schemas(false) AS s) SELECT s, s[1] FROM p",
                "SELECT array_to_string(current_schemas(false), ',')",
                "SELECT 'hr' = ANY (current_schemas(true)), array_length(current_schemas(false), 1)",
                "SELECT * FROM unnest(current_schemas(true)) WITH ORDINALITY",
                "SELECT n FROM unnest(pg_catalog.current_schemas(false)) n WHERE n = current_schema",
                "SELECT coalesce(current_schema(), 'none') /* current_schema() */, 'current_schema'",
                "SELECT o.id, current_schema FROM public.orders o ORDER BY o.id LIMIT 2",
                "SELECT current_schema, count(*) FROM public.orders GROUP BY current_schema",
                "SELECT 1 FROM public.orders WHERE current_schemas(false)::text LIKE '%hr%' LIMIT 1",
                // A subquery like pgward's around the real answer, or pgward's own with hr among the names: the call
                // inside is rewritten too.
                "SELECT (SELECT pg_catalog.array_agg(n) FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) n)",
                "SELECT " + SchemaPathCalls.wrapper("true", "current_schemas",
                        SchemaPathCalls.namesConstant(List.of("hr", "pg_catalog", "public"))));
        for (String sql : rewritten) {
            Served served = serve(sql, path, List.of(), selection);
            assertInstanceOf(Verdict.Allow.class, served.verdict(), sql);
            assertNotEquals(sql, served.text());
            assertAnsweredAsWithoutHr(sql, path);
        }
        List<String> refused = List.of(
                "SELECT * FROM current_schemas(true)",
                "SELECT x FROM current_schemas(true) x",
                "SELECT * FROM pg_catalog.current_schema()",
                "SELECT current_schemas(current_schema() IS NULL)",
                "SELECT public.path_of()",
                "SELECT public.schema_of()");
        for (String sql : refused) {
            assertRefusedAsWithoutHr(sql, path, selection);
        }
        // A view's call reads the session's path when it runs: the view is refused.
        assertRefusedAsWithoutHr("SELECT path FROM public.v_path", path, withPathView);
    }

    @Test
    void theTemporarySchemaAfterAHiddenOneIsRefused() throws SQLException {
        // Without hr, PostgreSQL would create the session's temporary schema and list it first; with hr it does not.
        assertRefusedAsWithoutHr("SELECT current_schemas(false), current_schema()", "hr, pg_temp, public",
                selection);
        assertEquals(List.of("current_schemas:_name", "{public}"),
                assertAnsweredAsWithoutHr("SELECT current_schemas(false)", "public, hr"));
    }

    @Test
    void theSessionsOwnTemporarySchemaStays() throws SQLException {
        String sql = "SELECT current_schemas(false), current_schema() = ANY (current_schemas(true))";
        Served served = serve(sql, "pg_temp, hr, public", List.of(), selection);
        assertInstanceOf(Verdict.Allow.class, served.verdict());
        List<String> rows = run(served.text(), "pg_temp, hr, public", ROLE);
        assertTrue(rows.get(1).matches("\\{pg_temp_\\d+,public}\\|t"), rows.toString());
    }

    @Test
    void loginsWithoutASelectionAreUnaffected() {
        String sql = "SELECT current_schemas(false), current_schema";
        Served served = serve(sql, "hr, public", List.of(), TableSelection.NONE);
        assertEquals(Verdict.ALLOW, served.verdict());
        assertEquals(sql, served.text());
    }

    /**
     * Serves {@code sql} for {@code path} and runs what pgward sends as analyst; asserts that it is PostgreSQL's
     * answer for the client's text on the path with hr absent, and that the same statement with zz in hr's place is
     * served the same. Returns the column names and types, then the rows.
     */
    private static List<String> assertAnsweredAsWithoutHr(String sql, String path) throws SQLException {
        String absentPath = path.replace("hr", "zz");
        Served hidden = serve(sql, path, List.of(), selection);
        Served absent = serve(sql, absentPath, List.of(), selection);
        assertInstanceOf(Verdict.Allow.class, hidden.verdict(), sql);
        assertEquals(absent.verdict(), hidden.verdict(), sql);
        List<String> served = run(hidden.text(), path, ROLE);
        assertEquals(run(sql, absentPath, ROLE), served, sql + "\nserved as " + hidden.text());
        assertEquals(served, run(absent.text(), absentPath, ROLE), sql);
        return served;
    }

    private static void assertRefusedAsWithoutHr(String sql, String path, TableSelection selected) {
        Verdict hidden = serve(sql, path, List.of(), selected).verdict();
        Verdict.Refuse refusal = assertInstanceOf(Verdict.Refuse.class, hidden, sql);
        assertTrue(refusal.rule().equals(CatalogRefusals.DENIED_BUILT_IN)
                || refusal.rule().equals(CatalogRefusals.FUNCTION), sql + ": " + refusal);
        assertTrue(refusal.message().contains("current_schema") || refusal.message().contains("_of"),
                refusal.message());
        assertEquals(serve(sql, path.replace("hr", "zz"), List.of(), selected).verdict(), hidden, sql);
    }

    private static Served serve(String sql, String path, List<Integer> types, TableSelection selected) {
        try {
            return check.serve(new CheckRequest(selected, selected.isSet() ? ROLE : null, path, true, sql, types),
                    SqlLexer.split(sql, true).getFirst()).toCompletableFuture().join();
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    /** The column names and types, then every row (columns joined by '|'), run as {@code role} on {@code path}. */
    private static List<String> run(String sql, String path, String role, Object... parameters) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET ROLE " + role);
            s.execute("SET search_path = " + path);
            // pgjdbc's placeholder for the $n a Parse message carries.
            try (PreparedStatement ps = c.prepareStatement(sql.replaceAll("\\$\\d+", "?"))) {
                for (int i = 0; i < parameters.length; i++) {
                    ps.setObject(i + 1, parameters[i]);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    ResultSetMetaData meta = rs.getMetaData();
                    List<String> names = new ArrayList<>();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        names.add(meta.getColumnLabel(i) + ":" + meta.getColumnTypeName(i));
                    }
                    out.add(String.join("|", names));
                    while (rs.next()) {
                        List<String> row = new ArrayList<>();
                        for (int i = 1; i <= meta.getColumnCount(); i++) {
                            row.add(String.valueOf(rs.getString(i)));
                        }
                        out.add(String.join("|", row));
                    }
                }
            }
        }
        return out;
    }
}
