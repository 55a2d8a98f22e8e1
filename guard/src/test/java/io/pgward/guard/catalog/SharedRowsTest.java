package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The catalog rows that checks share ({@link SharedRows}): what is kept, that a check reads them from the cache
 * rather than the catalog, and that a schema change drops them.
 */
@PostgresTest
class SharedRowsTest {

    private static final String PATH = "\"$user\", public";
    private static TestDatabase db;
    private static long lower;
    private static long userFunction;
    private static long notes;
    private static String listerTree;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE public.notes(id int, body text)");
            s.execute("CREATE VIEW public.plain AS SELECT n.id FROM public.notes n");
            s.execute("CREATE VIEW public.lister AS SELECT pg_catalog.pg_ls_dir('.') AS id");
            listerTree = text(s, "SELECT ev_action::text FROM pg_rewrite WHERE ev_class = 'public.lister'::regclass");
            s.execute("CREATE FUNCTION public.shout(t text) RETURNS text IMMUTABLE LANGUAGE sql "
                    + "RETURN pg_catalog.upper(t)");
            lower = oid(s, "SELECT 'pg_catalog.lower(text)'::regprocedure::oid");
            userFunction = oid(s, "SELECT 'public.shout(text)'::regprocedure::oid");
            notes = oid(s, "SELECT 'public.notes'::regclass::oid");
        }
    }

    private static long oid(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String text(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static TableSelection selection(String name) throws SQLException {
        try (Connection c = db.connect()) {
            return GuardFixture.selection(c, java.util.List.of(name));
        }
    }

    private static CatalogCheck newCheck() {
        return CatalogChecks.on(db, 100);
    }

    private static CheckRequest request(String sql) {
        return CheckRequest.of(TableSelection.NONE, null, PATH, sql);
    }

    @Test
    void rowsOfBuiltInAndLaterObjectsAreKept() throws Exception {
        try (CatalogCheck check = newCheck()) {
            // shout is owned by a superuser, so the user-function rule refuses it, after reading every row.
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class,
                    check.checkNow(request("SELECT lower(body), shout(body) FROM public.notes WHERE id = 1")));
            assertEquals(CatalogRefusals.FUNCTION, r.rule());
            SharedRows.Generation rows = check.sharedRows();
            assertTrue(rows.functions.containsKey(lower), "lower(text) is kept");
            assertTrue(rows.functions.containsKey(userFunction), "a function created after initdb is kept");
            assertTrue(rows.relations.containsKey(notes), "public.notes is kept");
            assertTrue(rows.rowsAround.contains(notes), "the rows around public.notes were read");
            assertFalse(rows.operators.isEmpty(), "the = of id = 1 is kept");
        }
    }

    @Test
    void aCheckReadsSharedRowsOfLaterObjectsUntilTheSchemaChanges() throws Exception {
        TableSelection onlyPgAm = selection("pg_catalog.pg_am");
        try (CatalogCheck check = newCheck()) {
            assertEquals(Verdict.ALLOW, check.checkNow(request("SELECT body FROM public.notes WHERE id = 1")));
            // A row that differs from the catalog's shows which one the next check relied on: the refusal names the
            // relation as its row does.
            check.sharedRows().relations.put(notes, new CatalogReader.Relation(notes, "public.renamed", 'r', false));
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(onlyPgAm, null,
                    PATH, "SELECT body FROM public.notes WHERE id = 2")));
            assertTrue(r.message().contains("public.renamed"), r.message());
            check.invalidate();
            assertEquals(0, check.sharedRows().size());
            r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(onlyPgAm, null, PATH,
                    "SELECT body FROM public.notes WHERE id = 3")));
            assertTrue(r.message().contains("public.notes"), r.message());
        }
    }

    @Test
    void aViewsDefinitionIsReadAsATreeOncePerGeneration() throws Exception {
        TableSelection plainOnly = selection("public.plain");
        try (CatalogCheck check = newCheck()) {
            assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(plainOnly, null, PATH,
                    "SELECT id FROM public.plain")));
            SharedRows.Generation rows = check.sharedRows();
            assertEquals(1, rows.viewTrees.size(), "public.plain's tree is kept");
            CatalogReader.Definition plain = rows.viewTrees.keySet().iterator().next();
            // Another view's tree under plain's definition shows that the next check walked the tree kept.
            rows.viewTrees.put(plain, NodeTreeParser.parse(listerTree));
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, check.checkNow(CheckRequest.of(plainOnly, null,
                    PATH, "SELECT id AS other FROM public.plain")));
            assertTrue(r.message().contains("pg_ls_dir"), r.message());
            check.invalidate();
            assertEquals(Verdict.ALLOW, check.checkNow(CheckRequest.of(plainOnly, null, PATH,
                    "SELECT id AS third FROM public.plain")));
        }
    }

    @Test
    void aCheckReadsTheSharedRowsUntilTheSchemaChanges() throws Exception {
        try (CatalogCheck check = newCheck()) {
            assertEquals(Verdict.ALLOW, check.checkNow(request("SELECT lower('a')")));
            // A row that differs from the catalog's shows which one the next check relied on.
            check.sharedRows().functions.put(lower, new CatalogReader.Function(lower, "public", "lower",
                    "public.lower", 'f', 'v', false, false, "c", false, "lower", null));
            Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class,
                    check.checkNow(request("SELECT lower('b')")));
            assertEquals(CatalogRefusals.FUNCTION, r.rule());
            check.invalidate();
            assertEquals(0, check.sharedRows().size());
            assertEquals(Verdict.ALLOW, check.checkNow(request("SELECT lower('c')")));
            assertTrue(check.sharedRows().functions.containsKey(lower));
        }
    }

    @Test
    void aStatementWhoseSharedRowsAreKnownTakesTwoRoundTrips() throws Exception {
        SharedRows.Generation rows = new SharedRows.Generation();
        try (var pool = CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 1);
             Connection connection = pool.getConnection()) {
            AtomicInteger executions = new AtomicInteger();
            Connection counted = counting(connection, executions);
            assertEquals(Verdict.ALLOW, CheckTransaction.run(counted,
                    request("SELECT * FROM public.notes WHERE id = 1"), shape("SELECT * FROM public.notes WHERE id = 1"),
                    Duration.ofSeconds(5), rows));
            int first = executions.getAndSet(0);
            assertEquals(Verdict.ALLOW, CheckTransaction.run(counted,
                    request("SELECT * FROM public.notes WHERE id = 2"), shape("SELECT * FROM public.notes WHERE id = 2"),
                    Duration.ofSeconds(5), rows));
            // CREATE TEMPORARY VIEW, after BEGIN with the settings and the statement that fails unless the domain
            // CHECK expressions are those the first check judged (KnownDomainChecksTest), and with the reads of its
            // tree and of the rows it depends on; ROLLBACK. The first check also read the domain CHECKs and the
            // built-in operators, functions and types.
            assertEquals(2, executions.get(), "round trips of the second check");
            assertTrue(first > executions.get(), "the first check read built-in rows: " + first + " round trips");
        }
    }

    private static StatementShape shape(String sql) throws Exception {
        return StatementShape.of(sql, true);
    }

    /** A connection whose statements count their executions: with pgjdbc, one execution is one round trip. */
    static Connection counting(Connection connection, AtomicInteger executions) {
        return (Connection) Proxy.newProxyInstance(SharedRowsTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    Object result = invoke(connection, method, args);
                    if (result instanceof Statement statement) {
                        Class<?> type = statement instanceof java.sql.PreparedStatement
                                ? java.sql.PreparedStatement.class : Statement.class;
                        return Proxy.newProxyInstance(SharedRowsTest.class.getClassLoader(), new Class<?>[] {type},
                                (p, m, a) -> {
                                    if (m.getName().startsWith("execute")) {
                                        executions.incrementAndGet();
                                    }
                                    return invoke(statement, m, a);
                                });
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
