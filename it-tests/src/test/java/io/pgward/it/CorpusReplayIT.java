package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * Replays the red-team corpus through pgward, over the wire, as the read-only login {@code analyst} with no
 * table selection, in the simple and the extended protocol. Every refuse case of the categories the
 * read-only guard owns must be refused, every allow case must run, and the fixture must be byte-for-byte
 * unchanged afterwards. Categories about the table selection (relation-direct, relation-indirect,
 * name-resolution, catalog-metadata, non-builtin-objects, dos-limits) belong to the catalog check and are
 * reported, not asserted, here.
 */
@PostgresTest
class CorpusReplayIT {

    static final Set<String> READ_ONLY_CATEGORIES = Set.of("dml", "dml-in-cte", "ddl", "multi-statement",
            "lexer-differential", "transaction-escape", "session-state", "select-into-locking", "copy",
            "prepare-execute-cursor", "listen-notify-lock", "procedural", "maintenance", "explain-analyze",
            "file-and-program", "side-effect-function", "sql-string-function");

    private static TestDatabase database;
    private static ProxyFixture proxy;
    private static Map<String, String> before;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        database = db;
        try (Connection owner = db.connect(); Statement s = owner.createStatement()) {
            for (String sql : GuardCorpus.fixture()) {
                s.execute(sql);
            }
            before = FixtureState.capture(owner);
        }
        proxy = ProxyFixture.start(db);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    enum Outcome { REFUSED, RAN, FAILED }

    record Result(Outcome outcome, String detail) {
    }

    @Test
    void theReadOnlyLoginGetsEveryVerdictOfTheCorpusAndNothingChanges() throws Exception {
        List<String> wrong = new ArrayList<>();
        Map<String, int[]> unasserted = new TreeMap<>();
        for (String mode : List.of("simple", "extended")) {
            for (GuardCorpus.Case c : GuardCorpus.cases()) {
                boolean asserted = READ_ONLY_CATEGORIES.contains(c.category()) || !c.refuse();
                Result result = run(c, mode);
                if (!asserted) {
                    unasserted.computeIfAbsent(c.category(), k -> new int[2])[result.outcome() == Outcome.REFUSED ? 0 : 1]++;
                } else if (c.refuse() && result.outcome() != Outcome.REFUSED) {
                    wrong.add(mode + " " + c.id() + " should be refused but " + result + ": " + c.sql());
                } else if (!c.refuse() && result.outcome() != Outcome.RAN) {
                    wrong.add(mode + " " + c.id() + " should run but " + result + ": " + c.sql());
                }
            }
        }
        StringBuilder report = new StringBuilder("catalog-check categories (refused/passed, simple+extended): ");
        unasserted.forEach((k, v) -> report.append(k).append(' ').append(v[0]).append('/').append(v[1]).append("; "));
        System.out.println(report);
        assertTrue(wrong.isEmpty(), wrong.size() + " cases got the wrong verdict:\n" + String.join("\n", wrong));
        try (Connection owner = database.connect()) {
            assertEquals(before, FixtureState.capture(owner), "the fixture is unchanged");
        }
    }

    private static Result run(GuardCorpus.Case c, String mode) {
        Properties props = new Properties();
        props.setProperty("preferQueryMode", mode);
        try (Connection connection = proxy.connect("analyst", props)) {
            // Allow cases ran inside a transaction when the corpus was made (DECLARE needs one).
            connection.setAutoCommit(c.refuse());
            try {
                execute(connection, c.sql());
                return new Result(Outcome.RAN, "");
            } finally {
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
            }
        } catch (SQLException e) {
            boolean refused = "42501".equals(e.getSQLState()) && e.getMessage().startsWith("ERROR: pgward refused");
            return new Result(refused ? Outcome.REFUSED : Outcome.FAILED, e.getSQLState() + " " + e.getMessage());
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        if (sql.regionMatches(true, 0, "COPY", 0, 4) && sql.toUpperCase().contains("TO STDOUT")) {
            try {
                connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql, new StringWriter());
            } catch (java.io.IOException e) {
                throw new SQLException(e);
            }
            return;
        }
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }
}
