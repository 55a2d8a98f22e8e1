package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.it.GuardCorpus.Expect;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * Replays the red-team corpus through pgward, over the wire, in the simple and the extended protocol ($n bound
 * as NULL), against two databases: the corpus fixture, and the fixture with fixture-domain.sql applied (a domain
 * whose CHECK calls a function that reads hr.salaries, used by no relation). Each database must be byte-for-byte
 * unchanged afterwards.
 *
 * <ul>
 *   <li>As {@code analyst}, a read-only login with the corpus's selection ({@value #SELECTION}): every case gets
 *       its verdict. {@code allow}: it runs. {@code refuse}: it does not run; in the categories the read-only
 *       guard owns it is pgward's own refusal; elsewhere PostgreSQL's analysis may fail first (a name that does
 *       not exist) and in dos-limits the statement timeout (L4) may stop it. {@code block}: anything but a
 *       successful run. {@code no-leak}: if it runs, none of the case's forbidden words is in a column name or a
 *       value of its result.</li>
 *   <li>As {@code reader}, a read-only login with no selection: every refuse case of the read-only categories is
 *       refused and every allow case runs. The other refuse cases, and every block and no-leak case, are about
 *       the table selection (a login without one may read hr.salaries and the catalogs); for reader they are
 *       still replayed, so the fixture check covers them, but their verdict is not asserted.</li>
 *   <li>With the domain, every case gets the same outcome as without it, except the cases that name the
 *       domain; those are held to the corpus verdict like every other.</li>
 * </ul>
 */
@PostgresTest
class CorpusReplayIT {

    static final Set<String> READ_ONLY_CATEGORIES = Set.of("dml", "dml-in-cte", "ddl", "multi-statement",
            "lexer-differential", "transaction-escape", "session-state", "select-into-locking", "copy",
            "prepare-execute-cursor", "listen-notify-lock", "procedural", "maintenance", "explain-analyze",
            "file-and-program", "side-effect-function", "sql-string-function");

    /**
     * Allow cases that touch the session pgward pins: ROLLBACK ends only the client's own transaction (and is the
     * only way out of one aborted by a refusal), DISCARD ALL resets to the startup values, and search_path decides
     * only name resolution, which the catalog check resolves against the session's real search_path. None of them
     * may undo read-only mode or the statement timeout, which are startup parameters of the backend session.
     */
    static final Set<String> TOUCH_THE_PINNED_SESSION = Set.of("tx-13", "session-05", "session-14");

    static final String SELECTION = "public.orders, public.customers, public.v_sales, public.mv_region";

    private static TestDatabase database;
    private static String domainDatabase;
    private static ProxyFixture proxy;
    private static final Map<String, Map<String, String>> before = new LinkedHashMap<>();
    /** Outcomes per (login, database), then per "mode id": each replay runs once and is shared by the tests. */
    private static final Map<String, Map<String, Result>> replays = new ConcurrentHashMap<>();

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        database = db;
        domainDatabase = db.name() + "_domain";
        try (Connection owner = db.connect(); Statement s = owner.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + domainDatabase);
            s.execute("CREATE DATABASE " + domainDatabase + " TEMPLATE template1");
            for (String sql : GuardCorpus.fixture()) {
                s.execute(sql);
            }
            before.put(db.name(), FixtureState.capture(owner));
        }
        try (Connection owner = connectOwner(domainDatabase); Statement s = owner.createStatement()) {
            for (String sql : GuardCorpus.fixture()) {
                s.execute(sql);
            }
            for (String sql : GuardCorpus.domainFixture()) {
                s.execute(sql);
            }
            before.put(domainDatabase, FixtureState.capture(owner));
        }
        java.time.Duration timeout = java.time.Duration.ofSeconds(3);
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null,
                io.pgward.wire.config.PgwardConfig.TlsMode.DISABLE, 4,
                config -> ProxyFixture.policy("analyst", p -> p.withStatementTimeout(timeout)
                        .withTables(List.of(SELECTION.split(", ")))).apply(
                        ProxyFixture.statementTimeout("reader", timeout).apply(config)));
    }

    @AfterAll
    static void stop() throws SQLException {
        if (proxy != null) {
            proxy.close();
        }
        try (Connection owner = database.connect(); Statement s = owner.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + domainDatabase + " WITH (FORCE)");
        }
    }

    private static Connection connectOwner(String name) throws SQLException {
        return java.sql.DriverManager.getConnection("jdbc:postgresql://" + database.host() + ":" + database.port()
                + "/" + name, database.user(), database.password());
    }

    enum Outcome { REFUSED, RAN, FAILED }

    /** @param output for a statement that ran, its column names and values, for the no-leak check */
    record Result(Outcome outcome, String detail, String output) {
        @Override
        public String toString() {
            return outcome + " " + detail;
        }
    }

    @Test
    void theLoginWithTheSelectionGetsEveryVerdictOfTheCorpus() throws Exception {
        assertVerdicts("analyst", database.name(), c -> true);
    }

    @Test
    void aLoginWithoutSelectionGetsTheReadOnlyVerdicts() throws Exception {
        assertVerdicts("reader", database.name(), CorpusReplayIT::appliesWithoutSelection);
    }

    @Test
    void aRiskyDomainNoRelationUsesChangesOnlyTheVerdictsOfCasesThatNameIt() throws Exception {
        assertVerdicts("analyst", domainDatabase, c -> true);
        assertSameOutcomes("analyst");
        assertVerdicts("reader", domainDatabase, CorpusReplayIT::appliesWithoutSelection);
        assertSameOutcomes("reader");
    }

    /**
     * After both logins' replays have filled pgward's verdict caches, every case again with other values of its
     * constants ({@code LiteralVariants}: the values the shape cache leaves out of its key), in both protocols: the
     * variants are answered from the shared verdicts wherever those apply, and must still get the corpus verdicts.
     */
    @Test
    void theCasesWithOtherValuesOfTheirConstantsGetTheSameVerdictsFromTheSameCaches() throws Exception {
        List<String> wrong = new ArrayList<>();
        int variants = 0;
        for (String login : List.of("analyst", "reader")) {
            replay(login, database.name());
            java.util.function.Predicate<GuardCorpus.Case> applies = login.equals("analyst") ? c -> true
                    : CorpusReplayIT::appliesWithoutSelection;
            for (String mode : MODES) {
                for (GuardCorpus.Case c : GuardCorpus.cases()) {
                    String sql = io.pgward.guard.catalog.LiteralVariants.of(c.sql());
                    if (sql == null) {
                        continue;
                    }
                    variants++;
                    GuardCorpus.Case variant = new GuardCorpus.Case(c.id(), sql, c.expect(), c.category(), c.why(),
                            c.forbidden());
                    Result result = run(login, database.name(), variant, mode);
                    String verdict = applies.test(c) ? verdict(variant, result) : null;
                    if (verdict != null) {
                        wrong.add(login + " " + mode + " " + c.id() + " " + verdict + ", but " + result + ": " + sql);
                    }
                }
            }
        }
        System.out.println("literal variants replayed: " + variants);
        assertTrue(variants > 0, "the corpus has cases with constants");
        assertTrue(wrong.isEmpty(), wrong.size() + " variants got the wrong verdict:\n" + String.join("\n", wrong));
        try (Connection owner = connectOwner(database.name())) {
            assertEquals(before.get(database.name()), FixtureState.capture(owner), "the fixture is unchanged");
        }
    }

    private static boolean appliesWithoutSelection(GuardCorpus.Case c) {
        return c.expect() == Expect.ALLOW
                || c.expect() == Expect.REFUSE && READ_ONLY_CATEGORIES.contains(c.category());
    }

    private void assertVerdicts(String login, String db, java.util.function.Predicate<GuardCorpus.Case> applies)
            throws Exception {
        Map<String, Result> results = replay(login, db);
        List<String> wrong = new ArrayList<>();
        Map<String, int[]> tally = new TreeMap<>();
        for (String mode : MODES) {
            for (GuardCorpus.Case c : GuardCorpus.cases()) {
                Result result = results.get(mode + " " + c.id());
                tally.computeIfAbsent(c.category(), k -> new int[3])[result.outcome().ordinal()]++;
                String verdict = applies.test(c) ? verdict(c, result) : null;
                if (verdict != null) {
                    wrong.add(mode + " " + c.id() + " " + verdict + ", but " + result + ": " + c.sql());
                }
            }
        }
        StringBuilder report = new StringBuilder(login + " on " + db + " (refused/ran/failed, simple+extended): ");
        tally.forEach((k, v) -> report.append(k).append(' ').append(v[0]).append('/').append(v[1]).append('/')
                .append(v[2]).append("; "));
        System.out.println(report);
        assertTrue(wrong.isEmpty(), wrong.size() + " cases got the wrong verdict:\n" + String.join("\n", wrong));
        try (Connection owner = connectOwner(db)) {
            assertEquals(before.get(db), FixtureState.capture(owner), "the fixture is unchanged");
        }
    }

    /** The domain changes nothing for a case that does not name it. */
    private void assertSameOutcomes(String login) throws Exception {
        Map<String, Result> plain = replay(login, database.name());
        Map<String, Result> withDomain = replay(login, domainDatabase);
        List<String> changed = new ArrayList<>();
        for (String mode : MODES) {
            for (GuardCorpus.Case c : GuardCorpus.cases()) {
                Result a = plain.get(mode + " " + c.id());
                Result b = withDomain.get(mode + " " + c.id());
                if (!c.namesTheDomain() && a.outcome() != b.outcome()) {
                    changed.add(mode + " " + c.id() + ": " + a + " without the domain, " + b + " with it: " + c.sql());
                }
            }
        }
        assertTrue(changed.isEmpty(), changed.size() + " cases changed outcome because of a domain they do not "
                + "name:\n" + String.join("\n", changed));
    }

    private static final List<String> MODES = List.of("simple", "extended");

    private static Map<String, Result> replay(String login, String db) throws Exception {
        String key = login + " " + db;
        Map<String, Result> done = replays.get(key);
        if (done != null) {
            return done;
        }
        Map<String, Result> results = new LinkedHashMap<>();
        for (String mode : MODES) {
            for (GuardCorpus.Case c : GuardCorpus.cases()) {
                results.put(mode + " " + c.id(), run(login, db, c, mode));
            }
        }
        replays.put(key, results);
        return results;
    }

    /** A statement the server's release does not have: MERGE is new in PostgreSQL 15. */
    private static boolean notSqlOnThisServer(GuardCorpus.Case c) {
        return database.serverMajor() < 15 && c.sql().regionMatches(true, 0, "MERGE", 0, 5);
    }

    /** What is wrong with the result, or null when it is the corpus's verdict. */
    static String verdict(GuardCorpus.Case c, Result result) {
        return switch (c.expect()) {
            case ALLOW -> result.outcome() == Outcome.RAN ? null : "should run";
            case REFUSE -> {
                if (READ_ONLY_CATEGORIES.contains(c.category())) {
                    if (result.outcome() == Outcome.FAILED && result.detail().startsWith("42601 ")
                            && notSqlOnThisServer(c)) {
                        // pgward refuses it, and answers with this server's own error, as it does for any text
                        // PostgreSQL's grammar rejects (ServerGrammar): nothing of it can run.
                        yield null;
                    }
                    yield result.outcome() == Outcome.REFUSED ? null : "should be refused by pgward";
                }
                // Refused by the catalog check, or failed as PostgreSQL's own analysis failed (a name that
                // resolves to nothing), or (dos-limits) stopped by the statement timeout; never run.
                yield result.outcome() != Outcome.RAN ? null : "should not run";
            }
            case BLOCK -> result.outcome() != Outcome.RAN ? null : "should not run";
            case NO_LEAK -> {
                if (result.outcome() != Outcome.RAN) {
                    yield null;
                }
                String output = result.output().toLowerCase(Locale.ROOT);
                List<String> leaked = c.forbidden().stream()
                        .filter(w -> output.contains(w.toLowerCase(Locale.ROOT))).toList();
                yield leaked.isEmpty() ? null : "should not show " + leaked;
            }
        };
    }

    @Test
    void theCasesThatTouchThePinnedSessionLeaveItReadOnly() throws Exception {
        int seen = 0;
        for (GuardCorpus.Case c : GuardCorpus.cases()) {
            if (!TOUCH_THE_PINNED_SESSION.contains(c.id())) {
                continue;
            }
            seen++;
            assertEquals(Expect.ALLOW, c.expect(), c.id());
            try (Connection connection = proxy.connect("analyst"); Statement s = connection.createStatement()) {
                s.execute(c.sql());
                assertEquals("on", show(s, "default_transaction_read_only"), c.id());
                assertEquals("on", show(s, "transaction_read_only"), c.id());
                assertEquals("3s", show(s, "statement_timeout"), c.id());
            }
        }
        assertEquals(TOUCH_THE_PINNED_SESSION.size(), seen, "every such case is still in the corpus");
    }

    private static String show(Statement s, String setting) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT current_setting('" + setting + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Result run(String login, String db, GuardCorpus.Case c, String mode) {
        Properties props = new Properties();
        props.setProperty("preferQueryMode", mode);
        try (Connection connection = proxy.connectTo(db, login, props)) {
            // Allow cases ran inside a transaction when the corpus was made (DECLARE needs one), except DISCARD
            // ALL, which PostgreSQL runs only outside one.
            connection.setAutoCommit(c.refuse() || DISCARD_ALL.matcher(c.sql()).lookingAt());
            try {
                return new Result(Outcome.RAN, "", execute(connection, c.sql()));
            } finally {
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
            }
        } catch (SQLException e) {
            // Every refusal pgward words itself begins alike (Verdict.Refuse.PREFIX).
            boolean refused = e.getMessage().startsWith("ERROR: pgward refused this query: ");
            return new Result(refused ? Outcome.REFUSED : Outcome.FAILED, e.getSQLState() + " " + e.getMessage(),
                    "");
        }
    }

    /** Runs the case; returns every column name and value of every result it produced. */
    private static String execute(Connection connection, String sql) throws SQLException {
        if (sql.regionMatches(true, 0, "COPY", 0, 4) && sql.toUpperCase().contains("TO STDOUT")) {
            StringWriter out = new StringWriter();
            try {
                connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql, out);
            } catch (java.io.IOException e) {
                throw new SQLException(e);
            }
            return out.toString();
        }
        java.util.regex.Matcher parameters = PARAMETER.matcher(sql);
        if (parameters.find()) {
            // pgjdbc numbers its parameters with ?; the cases' $n are bound as NULL, as an ORM might.
            try (java.sql.PreparedStatement ps = connection.prepareStatement(PARAMETER.matcher(sql).replaceAll("?"))) {
                int count = (int) PARAMETER.matcher(sql).results().count();
                for (int i = 1; i <= count; i++) {
                    ps.setNull(i, java.sql.Types.OTHER);
                }
                return output(ps, ps.execute());
            }
        }
        try (Statement s = connection.createStatement()) {
            return output(s, s.execute(sql));
        }
    }

    private static String output(Statement s, boolean resultSet) throws SQLException {
        StringBuilder out = new StringBuilder();
        boolean rows = resultSet;
        while (true) {
            if (rows) {
                try (ResultSet rs = s.getResultSet()) {
                    ResultSetMetaData meta = rs.getMetaData();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        out.append(meta.getColumnLabel(i)).append('\t');
                    }
                    out.append('\n');
                    while (rs.next()) {
                        for (int i = 1; i <= meta.getColumnCount(); i++) {
                            out.append(rs.getString(i)).append('\t');
                        }
                        out.append('\n');
                    }
                }
            } else if (s.getUpdateCount() == -1) {
                return out.toString();
            }
            rows = s.getMoreResults();
        }
    }

    private static final java.util.regex.Pattern DISCARD_ALL = java.util.regex.Pattern.compile(
            "\\s*discard\\s+all\\b", java.util.regex.Pattern.CASE_INSENSITIVE);
    private static final java.util.regex.Pattern PARAMETER = java.util.regex.Pattern.compile("\\$\\d+");
}
