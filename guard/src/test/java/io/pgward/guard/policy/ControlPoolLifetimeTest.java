package io.pgward.guard.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The guard's control connections are sessions on their database, which PostgreSQL counts against CREATE DATABASE
 * ... TEMPLATE and DROP DATABASE: none stays where no statement needs it. Each test logs in as a role of its own, so
 * that the server's sessions of that role are the pipeline's.
 */
@PostgresTest
class ControlPoolLifetimeTest {

    private static final String SEARCH_PATH = "\"$user\", public";
    private static final String ROLE = "pgward_control_lifetime";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TestDatabase database;
    private LoginPolicy login;

    ControlPoolLifetimeTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void role() throws Exception {
        owner("DO $$ BEGIN CREATE ROLE " + ROLE + " LOGIN PASSWORD 'lifetime'; "
                + "EXCEPTION WHEN duplicate_object THEN NULL; END $$");
        owner("GRANT CONNECT, TEMP ON DATABASE \"" + database.name() + "\" TO " + ROLE);
        login = new LoginPolicy("lifetime", ROLE, "lifetime", List.of(), "logins.lifetime.tables",
                Duration.ofSeconds(5));
    }

    @Test
    void controlConnectionsToATemplateDatabaseCloseOnceItsCheckIsDone() throws Exception {
        try (GuardPipeline pipeline = TestPipelines.withCatalog(database, Duration.ofMinutes(10))) {
            // Allowed, or refused for want of TEMP there: either way the check logged in to template1.
            Verdict first = prove(pipeline, "template1", "SELECT count(*) FROM pg_catalog.pg_class");
            assertEquals(0, sessionsWhen("template1", n -> n == 0), "control connections left on template1");
            assertEquals(Set.of(), pipeline.polledDatabases(), "template1's schema is no longer polled");
            assertEquals(0, pipeline.controlPoolsOpen());

            assertEquals(first, prove(pipeline, "template1", "SELECT count(*) FROM pg_catalog.pg_class"),
                    "the next statement is checked on new pools");
            assertEquals(0, sessionsWhen("template1", n -> n == 0));
        }
    }

    @Test
    void aQuietRoleLosesItsControlConnectionsAndItsNextStatementStillWorks() throws Exception {
        Duration idle = Duration.ofMillis(500);
        try (GuardPipeline pipeline = TestPipelines.withCatalog(database, idle)) {
            long started = System.nanoTime();
            assertEquals(Verdict.ALLOW, prove(pipeline, database.name(), "SELECT 1 AS quiet"));
            assertTrue(sessions(database.name()) > 0, "the check's and the schema poll's connections");

            assertEquals(0, sessionsWhen(database.name(), n -> n == 0), "control connections left after idling");
            assertTrue(System.nanoTime() - started >= idle.toNanos(), "not before the idle timeout");
            assertEquals(0, pipeline.controlPoolsOpen());
            assertEquals(Set.of(), pipeline.polledDatabases(), "no schema poll for a database nobody works on");

            assertEquals(Verdict.ALLOW, prove(pipeline, database.name(), "SELECT 2 AS quiet"));
            assertEquals(Set.of(database.name()), pipeline.polledDatabases());
        }
    }

    @Test
    void closingTheControlConnectionsToADatabaseLeavesNoneThere() throws Exception {
        try (GuardPipeline pipeline = TestPipelines.withCatalog(database, Duration.ofMinutes(10))) {
            assertEquals(Verdict.ALLOW, prove(pipeline, database.name(), "SELECT 1 AS freed"));
            assertTrue(sessions(database.name()) > 0);

            pipeline.closeControlConnectionsTo(Set.of(database.name())).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(0, sessionsWhen(database.name(), n -> n == 0), "control connections left");
            assertEquals(0, pipeline.controlPoolsOpen());

            assertEquals(Verdict.ALLOW, prove(pipeline, database.name(), "SELECT 2 AS freed"));
        }
    }

    private Verdict prove(GuardPipeline pipeline, String databaseName, String sql) throws Exception {
        return pipeline.prove(login, databaseName, SqlLexer.split(sql, true), SEARCH_PATH, true, List.of(), true)
                .toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /**
     * The role's sessions on {@code databaseName} once {@code done} holds for their number, or after {@link #WAIT}:
     * a closed connection's server process leaves pg_stat_activity a moment after its socket closes.
     */
    private long sessionsWhen(String databaseName, LongPredicate done) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long now = sessions(databaseName);
        while (!done.test(now) && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
            now = sessions(databaseName);
        }
        return now;
    }

    private long sessions(String databaseName) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE usename = '"
                     + ROLE + "' AND datname = '" + databaseName + "' AND application_name = 'pgward catalog check'")) {
            row.next();
            return row.getLong(1);
        }
    }

    private void owner(String sql) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
