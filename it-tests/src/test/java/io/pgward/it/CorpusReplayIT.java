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
 * Replays the red-team corpus through pgward, over the wire, in the simple and the extended protocol ($n bound
 * as NULL), and checks that the fixture is byte-for-byte unchanged afterwards.
 *
 * <ul>
 *   <li>As {@code analyst}, a read-only login with the corpus's selection ({@value #SELECTION}): every case gets
 *       its verdict. A refuse case must not run; in the categories the read-only guard owns it must be pgward's
 *       own refusal; in dos-limits the statement timeout (L4) may be what stops it.</li>
 *   <li>As {@code reader}, a read-only login with no selection: every refuse case of the read-only categories is
 *       refused and every allow case runs (the categories about the selection do not apply).</li>
 * </ul>
 */
@PostgresTest
class CorpusReplayIT {

    static final Set<String> READ_ONLY_CATEGORIES = Set.of("dml", "dml-in-cte", "ddl", "multi-statement",
            "lexer-differential", "transaction-escape", "session-state", "select-into-locking", "copy",
            "prepare-execute-cursor", "listen-notify-lock", "procedural", "maintenance", "explain-analyze",
            "file-and-program", "side-effect-function", "sql-string-function");

    /**
     * Refuse cases that pgward deliberately allows, following the allow-list against the corpus. Each is
     * harmless here because read-only and the statement timeout are startup parameters of the backend session,
     * which these statements cannot undo: ROLLBACK ends only the client's own transaction (and is the only way
     * out of one aborted by a refusal), DISCARD ALL resets to the startup values, and search_path decides only
     * name resolution, which the catalog check resolves against the session's real search_path.
     */
    static final Set<String> ALLOWED_BY_DESIGN = Set.of("tx-13", "session-05", "session-14");

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
        java.time.Duration timeout = java.time.Duration.ofSeconds(3);
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null,
                io.pgward.wire.config.PgwardConfig.TlsMode.DISABLE, 4,
                config -> ProxyFixture.policy("analyst", p -> p.withStatementTimeout(timeout)
                        .withTables(List.of(SELECTION.split(", ")))).apply(
                        ProxyFixture.statementTimeout("reader", timeout).apply(config)));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    enum Outcome { REFUSED, RAN, FAILED }

    record Result(Outcome outcome, String detail) {
    }

    static final String SELECTION = "public.orders, public.customers, public.v_sales, public.mv_region";

    @Test
    void theLoginWithTheSelectionGetsEveryVerdictOfTheCorpus() throws Exception {
        replay("analyst", c -> true);
    }

    @Test
    void aLoginWithoutSelectionGetsTheReadOnlyVerdicts() throws Exception {
        replay("reader", c -> !c.refuse() || READ_ONLY_CATEGORIES.contains(c.category()));
    }

    private void replay(String login, java.util.function.Predicate<GuardCorpus.Case> applies) throws Exception {
        List<String> wrong = new ArrayList<>();
        Map<String, int[]> tally = new TreeMap<>();
        for (String mode : List.of("simple", "extended")) {
            for (GuardCorpus.Case c : GuardCorpus.cases()) {
                if (!applies.test(c) || ALLOWED_BY_DESIGN.contains(c.id())) {
                    continue;
                }
                Result result = run(login, c, mode);
                tally.computeIfAbsent(c.category(), k -> new int[3])[result.outcome().ordinal()]++;
                String verdict = verdict(c, result);
                if (verdict != null) {
                    wrong.add(mode + " " + c.id() + " " + verdict + ", but " + result + ": " + c.sql());
                }
            }
        }
        StringBuilder report = new StringBuilder(login + " (refused/ran/failed, simple+extended): ");
        tally.forEach((k, v) -> report.append(k).append(' ').append(v[0]).append('/').append(v[1]).append('/')
                .append(v[2]).append("; "));
        report.append("allowed by design: ").append(ALLOWED_BY_DESIGN);
        System.out.println(report);
        assertTrue(wrong.isEmpty(), wrong.size() + " cases got the wrong verdict:\n" + String.join("\n", wrong));
        try (Connection owner = database.connect()) {
            assertEquals(before, FixtureState.capture(owner), "the fixture is unchanged");
        }
    }

    /** What is wrong with the result, or null when it is the corpus's verdict. */
    private static String verdict(GuardCorpus.Case c, Result result) {
        if (!c.refuse()) {
            return result.outcome() == Outcome.RAN ? null : "should run";
        }
        if (READ_ONLY_CATEGORIES.contains(c.category())) {
            return result.outcome() == Outcome.REFUSED ? null : "should be refused by pgward";
        }
        // The catalog categories: refused by the catalog check, or failed as PostgreSQL's own analysis failed
        // (a name that resolves to nothing), or (dos-limits) stopped by the statement timeout; never run.
        return result.outcome() != Outcome.RAN ? null : "should not run";
    }

    @Test
    void theCasesAllowedByDesignLeaveTheSessionReadOnly() throws Exception {
        for (GuardCorpus.Case c : GuardCorpus.cases()) {
            if (!ALLOWED_BY_DESIGN.contains(c.id())) {
                continue;
            }
            try (Connection connection = proxy.connect("analyst"); Statement s = connection.createStatement()) {
                s.execute(c.sql());
                assertEquals("on", show(s, "default_transaction_read_only"), c.id());
                assertEquals("3s", show(s, "statement_timeout"), c.id());
            }
        }
    }

    private static String show(Statement s, String setting) throws SQLException {
        try (java.sql.ResultSet rs = s.executeQuery("SELECT current_setting('" + setting + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Result run(String login, GuardCorpus.Case c, String mode) {
        Properties props = new Properties();
        props.setProperty("preferQueryMode", mode);
        try (Connection connection = proxy.connect(login, props)) {
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
            boolean refused = e.getMessage().startsWith("ERROR: pgward refused")
                    || e.getMessage().startsWith("ERROR: pgward could not check")
                    || e.getMessage().startsWith("ERROR: None of the selected");
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
        java.util.regex.Matcher parameters = PARAMETER.matcher(sql);
        if (parameters.find()) {
            // pgjdbc numbers its parameters with ?; the cases' $n are bound as NULL, as an ORM might.
            try (java.sql.PreparedStatement ps = connection.prepareStatement(PARAMETER.matcher(sql).replaceAll("?"))) {
                int count = (int) PARAMETER.matcher(sql).results().count();
                for (int i = 1; i <= count; i++) {
                    ps.setNull(i, java.sql.Types.OTHER);
                }
                ps.execute();
            }
            return;
        }
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    private static final java.util.regex.Pattern PARAMETER = java.util.regex.Pattern.compile("\\$\\d+");
}
