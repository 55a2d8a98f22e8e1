package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.zaxxer.hikari.HikariDataSource;
import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A check after one that judged every domain CHECK expression harmless sends its opening with the view, and
 * PostgreSQL fails the round trip unless the expressions are still those: no statement is analysed under an
 * expression pgward has not judged.
 */
@PostgresTest
class KnownDomainChecksTest {

    private static final String PATH = "\"$user\", public";
    private static TestDatabase db;
    private static HikariDataSource pool;

    @BeforeAll
    static void start(TestDatabase database) throws Exception {
        db = database;
        owner("CREATE SEQUENCE public.known_calls",
                "CREATE FUNCTION public.counted(text) RETURNS boolean VOLATILE LANGUAGE sql "
                        + "AS 'SELECT pg_catalog.nextval(''public.known_calls'') > 0'",
                "CREATE DOMAIN public.tag AS text CONSTRAINT tag_short CHECK (length(VALUE) < 20)",
                "CREATE SCHEMA \"we'ird\\\"",
                "CREATE TABLE \"we'ird\\\".things(id int)");
        pool = CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 1);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    private static void owner(String... statements) throws SQLException {
        AsOwner.run(db, statements);
    }

    private static long calls() throws SQLException {
        return AsOwner.counted(db, "public.known_calls");
    }

    private static Verdict check(Connection connection, String path, String sql, SharedRows.Generation rows)
            throws Exception {
        return CheckTransaction.run(connection, CheckRequest.of(TableSelection.NONE, null, path, sql),
                StatementShape.of(sql, true), Duration.ofSeconds(5), rows);
    }

    @Test
    void aCheckAfterOneThatJudgedThemTakesTwoRoundTrips() throws Exception {
        SharedRows.Generation rows = new SharedRows.Generation();
        try (Connection connection = pool.getConnection()) {
            AtomicInteger executions = new AtomicInteger();
            Connection counted = SharedRowsTest.counting(connection, executions);
            assertEquals(Verdict.ALLOW, check(counted, PATH, "SELECT 'a'::public.tag AS t", rows));
            assertNotNull(rows.harmlessDomainChecks, "information_schema's and public.tag's are harmless");
            executions.set(0);
            assertEquals(Verdict.ALLOW, check(counted, PATH, "SELECT 'b'::public.tag AS u", rows));
            // The opening, the view and the reads of it; ROLLBACK.
            assertEquals(2, executions.get(), "round trips");
        }
    }

    @Test
    void anExpressionChangedSinceIsJudgedBeforePostgresAnalysesTheStatement() throws Exception {
        SharedRows.Generation rows = new SharedRows.Generation();
        try (Connection connection = pool.getConnection()) {
            assertEquals(Verdict.ALLOW, check(connection, PATH, "SELECT 'a'::public.tag AS t", rows));
            assertNotNull(rows.harmlessDomainChecks);
            owner("ALTER DOMAIN public.tag ADD CONSTRAINT tag_counted CHECK (public.counted(VALUE))");
            try {
                long before = calls();
                // Parse analysis of an array literal of the domain runs its CHECKs (array_in calls domain_in).
                Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class,
                        check(connection, PATH, "SELECT '{a}'::public.tag[] AS t", rows));
                assertEquals(CatalogRefusals.RISKY_DOMAIN, r.rule(), r.toString());
                assertEquals(before, calls(), "the new CHECK ran while checking");
                assertNull(rows.harmlessDomainChecks, "a risky expression is read every time");
            } finally {
                owner("ALTER DOMAIN public.tag DROP CONSTRAINT tag_counted");
            }
        }
    }

    /** The round trips of the second of two never-seen shapes on {@code path}, both allowed. */
    private static int secondCheckRoundTrips(Connection connection, String path, SharedRows.Generation rows)
            throws Exception {
        AtomicInteger executions = new AtomicInteger();
        Connection counted = SharedRowsTest.counting(connection, executions);
        assertEquals(Verdict.ALLOW, check(counted, path, "SELECT id AS first FROM things", rows));
        executions.set(0);
        assertEquals(Verdict.ALLOW, check(counted, path, "SELECT id AS second FROM things", rows));
        return executions.get();
    }

    @Test
    void settingsWithQuotesAndBackslashesReachPostgresAsTheyAre() throws Exception {
        String path = "\"we'ird\\\", public";
        SharedRows.Generation rows = new SharedRows.Generation();
        try (Connection connection = pool.getConnection()) {
            assertEquals(2, secondCheckRoundTrips(connection, path, rows), "the opening went with the view");
            Verdict.Refuse absent = assertInstanceOf(Verdict.Refuse.class,
                    check(connection, PATH, "SELECT id AS m FROM things", rows));
            assertEquals("42P01", absent.sqlState(), "another path, another answer: " + absent);
        }
        // A server that reads '...' with backslash escapes reads E'...' the same.
        owner("ALTER DATABASE \"" + db.name() + "\" SET standard_conforming_strings = off");
        try (HikariDataSource escaping = CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 1);
             Connection connection = escaping.getConnection()) {
            assertEquals(2, secondCheckRoundTrips(connection, path, new SharedRows.Generation()),
                    "with standard_conforming_strings off");
        } finally {
            owner("ALTER DATABASE \"" + db.name() + "\" RESET standard_conforming_strings");
        }
    }

    /**
     * Every check reads the domain CHECK expressions or their digest, so they must not cost a scan of pg_constraint,
     * whose rows are mostly tables' constraints: with thousands of those, PostgreSQL goes through the index on
     * contypid when the condition is one the index can serve.
     */
    @Test
    void domainChecksAreNotFoundByScanningEveryConstraint() throws Exception {
        owner("CREATE TABLE public.many_checks(a int)",
                "DO $$ BEGIN FOR i IN 1..3000 LOOP "
                        + "EXECUTE format('ALTER TABLE public.many_checks ADD CHECK (a <> %s)', i); END LOOP; END $$",
                "ANALYZE pg_catalog.pg_constraint");
        try (Connection connection = db.connect(); Statement statement = connection.createStatement()) {
            statement.execute("PREPARE domain_checks AS " + CatalogReader.DOMAIN_CHECKS);
            statement.execute("PREPARE domain_checks_unchanged(text, text, text) AS "
                    + CatalogReader.DOMAIN_CHECKS_UNCHANGED);
            for (String read : new String[] {"domain_checks", "domain_checks_unchanged('', 'public', 'on')"}) {
                String plan = plan(statement, "EXPLAIN (COSTS OFF) EXECUTE " + read);
                assertFalse(plan.contains("Seq Scan on pg_constraint"), plan);
            }
        } finally {
            owner("DROP TABLE public.many_checks");
        }
    }

    private static String plan(Statement statement, String explain) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rows = statement.executeQuery(explain)) {
            while (rows.next()) {
                plan.append(rows.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
