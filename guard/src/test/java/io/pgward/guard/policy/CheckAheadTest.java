package io.pgward.guard.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.guard.catalog.CatalogCheck;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * L3 started beside L1 and L2 for a text of one query ({@link GuardPipeline#checkAhead}): the decision that follows
 * takes that check's verdict instead of making a round trip of its own, and a text of anything else is left alone.
 */
@PostgresTest
class CheckAheadTest {

    private static final String SEARCH_PATH = "\"$user\", public";

    private final TestDatabase database;
    private GuardPipeline pipeline;
    private LoginPolicy login;
    private CatalogCheck check;

    CheckAheadTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void start() throws Exception {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS ahead_shown(id int); "
                    + "CREATE TABLE IF NOT EXISTS ahead_hidden(id int)");
        }
        pipeline = TestPipelines.withCatalog(database);
        login = new LoginPolicy("analyst", database.user(), database.password(), List.of("public.ahead_shown"),
                "logins.analyst.tables", Duration.ofSeconds(5));
        check = pipeline.forLogin(login, database.name()).join().check();
    }

    @AfterEach
    void stop() {
        pipeline.close();
    }

    private CompletableFuture<Verdict> ahead(String sql) {
        return pipeline.checkAhead(login, database.name(), sql, true, SEARCH_PATH, List.of(), true)
                .toCompletableFuture();
    }

    private Verdict decided(String sql) throws Exception {
        return pipeline.proveOrRewrite(login, database.name(), sql, SqlLexer.split(sql, true), SEARCH_PATH, true,
                List.of(), true).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void theDecisionAfterACheckAheadMakesNoRoundTripOfItsOwn() throws Exception {
        String sql = "SELECT id AS ahead_1 FROM ahead_shown WHERE id = 7";
        long before = check.catalogRoundTrips();
        assertEquals(Verdict.ALLOW, ahead(sql).get(30, TimeUnit.SECONDS));
        assertEquals(before + 1, check.catalogRoundTrips());
        assertEquals(Verdict.ALLOW, decided(sql));
        assertEquals(before + 1, check.catalogRoundTrips(), "the verdict checked ahead was taken");
    }

    @Test
    void aDecisionWhileTheCheckAheadRunsTakesIt() throws Exception {
        String sql = "SELECT id AS ahead_5 FROM ahead_shown";
        long before = check.catalogRoundTrips();
        CompletableFuture<Verdict> ahead;
        CompletableFuture<Verdict> decided;
        try (Connection locker = database.connect(); Statement statement = locker.createStatement()) {
            // The check's analysis waits for this lock, so the check ahead is still running when the decision asks.
            locker.setAutoCommit(false);
            statement.execute("LOCK TABLE ahead_shown IN ACCESS EXCLUSIVE MODE");
            ahead = ahead(sql);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (pipeline.checksAheadKept() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(1, pipeline.checksAheadKept());
            decided = pipeline.proveOrRewrite(login, database.name(), sql, SqlLexer.split(sql, true), SEARCH_PATH,
                    true, List.of(), true).toCompletableFuture();
            assertEquals(0, pipeline.checksAheadKept(), "the decision took the running check");
            assertFalse(decided.isDone());
            locker.commit();
        }
        assertEquals(Verdict.ALLOW, decided.get(30, TimeUnit.SECONDS));
        assertEquals(Verdict.ALLOW, ahead.get(30, TimeUnit.SECONDS));
        assertEquals(before + 1, check.catalogRoundTrips());
    }

    @Test
    void aDecisionWhileTheCheckAheadRunsJoinsIt() throws Exception {
        String sql = "SELECT id AS ahead_2 FROM ahead_hidden";
        long before = check.catalogRoundTrips();
        CompletableFuture<Verdict> ahead = ahead(sql);
        Verdict.Refuse refused = assertInstanceOf(Verdict.Refuse.class, decided(sql));
        assertEquals(refused.message(), assertInstanceOf(Verdict.Refuse.class, ahead.get(30, TimeUnit.SECONDS))
                .message());
        assertEquals(before + 1, check.catalogRoundTrips(), "one check for both, whichever asked first");
    }

    @Test
    void onlyATextOfOneQueryIsCheckedAhead() throws Exception {
        long before = check.catalogRoundTrips();
        for (String sql : List.of("SELECT 1 AS ahead_3; SELECT 2 AS ahead_4", "EXPLAIN SELECT id FROM ahead_shown",
                "DELETE FROM ahead_shown", "SET search_path = public", "SELECT 'unterminated")) {
            assertEquals(Verdict.ALLOW, ahead(sql).get(30, TimeUnit.SECONDS), sql);
            assertEquals(0, pipeline.checksAheadKept(), sql);
        }
        assertEquals(before, check.catalogRoundTrips());
    }

    @Test
    void aTextPostgreSQLsScannerWouldReadOverAndOverNeverReachesIt() throws Exception {
        // Its scanner does not check for interrupts: /* nested 60,000 deep then closed held a CPU for a minute.
        String sql = "SELECT id AS ahead_7 FROM ahead_shown " + "/*".repeat(1_000) + "*/".repeat(1_000);
        long before = check.catalogRoundTrips();
        assertEquals(Verdict.ALLOW, ahead(sql).get(30, TimeUnit.SECONDS));
        assertEquals(0, pipeline.checksAheadKept());
        Verdict.Refuse refused = assertInstanceOf(Verdict.Refuse.class,
                pipeline.classify(sql, true, login, Set.of()).verdict());
        assertEquals(SqlStates.STATEMENT_TOO_COMPLEX, refused.sqlState());
        assertSame(refused, pipeline.grammarFirst(login, database.name(), sql, true, refused).toCompletableFuture()
                .get(30, TimeUnit.SECONDS), "PostgreSQL's grammar is not asked about it");
        assertEquals(before, check.catalogRoundTrips());
    }

    @Test
    void aStoppedPipelineChecksNothingAheadAndDoesNotThrow() throws Exception {
        GuardPipeline stopped = TestPipelines.withCatalog(database);
        stopped.close();
        assertEquals(Verdict.ALLOW, stopped.checkAhead(login, database.name(), "SELECT 1 AS ahead_6", true,
                SEARCH_PATH, List.of(), true).toCompletableFuture().get(30, TimeUnit.SECONDS));
    }
}
