package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.arango.AqlLimits;
import io.pgward.arango.ArangoAuth;
import io.pgward.arango.ArangoConfig;
import io.pgward.arango.FakeArango;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.arango.ArangoServing;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * An ArangoDB database served by pgward as {@code shopdocs}, next to the PostgreSQL database, reached by psql,
 * pgjdbc and node-postgres: AQL in, rows out; the read-only gate, raw writes, ArangoDB's errors, the row cap,
 * cancel and the audit log. ArangoDB is the in-process {@link FakeArango}, scripted per statement text.
 */
@PostgresTest
class ArangoThroughProxyIT {

    static final String SHOPDOCS = "shopdocs";
    static final String USERS = "FOR u IN users RETURN u";
    static final String VALUES = "FOR x IN [1, 'two', [3], {four: 4}, null] RETURN x";
    static final String BY_AGE = "FOR u IN users FILTER u.age >= @p1 RETURN u.name";
    static final String BY_NAME = "FOR u IN users FILTER u.name == @p1 RETURN u.name";
    static final String REMOVE = "FOR u IN users REMOVE u IN users";
    static final String TYPO = "FOR u IN users RETRN u";
    static final String TOO_MANY = "FOR i IN 1..6 RETURN i";
    static final String SLOW = "FOR d IN slow RETURN d";
    static final String SECRETS = "FOR s IN secrets RETURN s";
    static final String SYNTAX_ERROR = "syntax error, unexpected identifier near 'RETRN u' at position 1:16";

    /** ArangoDB 3.12's plan of REMOVE on a single server. */
    static final String REMOVE_PLAN = """
            {"nodes":[
              {"type":"SingletonNode","dependencies":[],"id":1,"estimatedCost":1,"estimatedNrItems":1},
              {"type":"EnumerateCollectionNode","dependencies":[1],"id":2,"estimatedCost":5,"estimatedNrItems":3,
               "random":false,"outVariable":{"id":0,"name":"u"},"producesResult":true,"database":"shop",
               "collection":"users","satellite":false},
              {"type":"RemoveNode","dependencies":[2],"id":3,"estimatedCost":8,"estimatedNrItems":3,
               "database":"shop","collection":"users","satellite":false,"countStats":true,
               "producesResults":false,"inVariable":{"id":0,"name":"u"}}],
             "rules":["remove-data-modification-out-variables"],
             "collections":[{"name":"users","type":"write"}],
             "variables":[{"id":0,"name":"u"}],"estimatedCost":8,"estimatedNrItems":3,"isModificationQuery":true}""";

    /** ArangoDB 3.12's plan of a full read of one collection. */
    static final String READ_PLAN = """
            {"nodes":[
              {"type":"SingletonNode","typeID":1,"dependencies":[],"id":1,"estimatedCost":1,"estimatedNrItems":1},
              {"type":"EnumerateCollectionNode","typeID":6,"dependencies":[1],"id":2,"estimatedCost":5,
               "estimatedNrItems":3,"random":false,"outVariable":{"id":0,"name":"u"},"producesResult":true,
               "database":"shop","collection":"%s","satellite":false},
              {"type":"ReturnNode","typeID":18,"dependencies":[2],"id":3,"estimatedCost":8,"estimatedNrItems":3,
               "inVariable":{"id":0,"name":"u"},"count":true}],
             "rules":[],"collections":[{"name":"%s","type":"read"}],"variables":[{"id":0,"name":"u"}],
             "estimatedCost":8,"estimatedNrItems":3,"isModificationQuery":false}""";

    private static FakeArango arango;
    private static ArangoServing serving;
    private static ProxyFixture proxy;
    private static Path auditFile;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db, @TempDir Path dir) {
        database = db;
        auditFile = dir.resolve("audit.jsonl");
        arango = FakeArango.start().requireBasic("pgward_reader", "arango pass");
        arango.rows(USERS, """
                [{"name":"Ada","age":36,"tags":["math","engines"]},
                 {"name":"Grace","address":{"city":"Arlington"},"age":null,"active":true}]""");
        arango.rows(VALUES, "[1, \"two\", [3], {\"four\": 4}, null]");
        arango.rows(BY_AGE, "[\"Ada\"]");
        arango.rows(BY_NAME, "[\"Ada\"]");
        arango.plan(REMOVE, REMOVE_PLAN).writes(REMOVE, 2);
        arango.explainError(TYPO, 400, 1501, SYNTAX_ERROR).cursorError(TYPO, 400, 1501, SYNTAX_ERROR);
        arango.rows(TOO_MANY, "[1, 2, 3, 4, 5, 6]");
        arango.rows(SLOW, "[1]").delay(SLOW, Duration.ofSeconds(20));
        arango.warnings(VALUES, "[{\"code\": 1562, \"message\": \"division by zero\"}]");
        // The fake fails closed: every statement that is to read has its plan scripted.
        for (String read : List.of(USERS, VALUES, BY_AGE, BY_NAME, TOO_MANY, SLOW, "RETURN 1")) {
            arango.reads(read);
        }
        arango.plan(USERS, READ_PLAN.formatted("users", "users"))
                .plan(SECRETS, READ_PLAN.formatted("secrets", "secrets")).rows(SECRETS, "[{\"pin\":1234}]");

        ArangoConfig config = ArangoConfig.of(SHOPDOCS, arango.endpoint(), "shop",
                new ArangoAuth.UserPassword("pgward_reader", "arango pass"))
                .withLimits(AqlLimits.DEFAULTS.withMaxRows(5));
        serving = ArangoServing.start(List.of(config), List.of());
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                c -> ProxyFixture.policy("reader", p -> p.withTables(List.of("public.orders", SHOPDOCS + ".users"))
                        .withRowCap(1)).apply(c.withAudit(new PgwardConfig.Audit(PgwardConfig.AuditTarget.FILE,
                                auditFile)).withArango(List.of(config))),
                serving.localDatabases());
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (serving != null) {
            serving.close();
        }
        arango.close();
    }

    // ---------------------------------------------------------------- psql

    @Test
    void psqlRunsAqlAndPrintsObjectColumnsNestedJsonAndNulls() throws Exception {
        RealClients.Result result = psql("analyst", "-A", "-P", "null=(null)", "-c", USERS);
        assertEquals(0, result.exit(), result.err());
        assertEquals("""
                name|age|tags|address|active
                Ada|36|["math","engines"]|(null)|(null)
                Grace|(null)|(null)|{"city":"Arlington"}|true
                (2 rows)""", result.out().strip());
    }

    @Test
    void psqlRunsAScriptOfSeveralStatementsWithNoticesForWarnings(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("shop.aql"), USERS + ";\n" + VALUES + ";\nRETURN 1;\n");
        RealClients.Result result = psql("analyst", "-A", "-t", "-P", "null=(null)", "-v", "ON_ERROR_STOP=1",
                "-f", script.toString());
        assertEquals(0, result.exit(), result.err());
        assertEquals("""
                Ada|36|["math","engines"]|(null)|(null)
                Grace|(null)|(null)|{"city":"Arlington"}|true
                1
                two
                [3]
                {"four":4}
                (null)
                1""", result.out().strip());
        assertTrue(result.err().contains("NOTICE:  1562: division by zero"), result.err());
    }

    @Test
    void psqlShowsTheRefusalOfAReadOnlyLoginsWrite() throws Exception {
        RealClients.Result result = psql("analyst", "-c", REMOVE);
        assertEquals(1, result.exit());
        assertTrue(result.err().contains("ERROR:  AQL refused: this login may only read, and the plan contains "
                + "RemoveNode on collection users"), result.err());
        assertAudited("\"login\":\"analyst\",\"database\":\"shopdocs\",\"verdict\":\"refuse\","
                + "\"rule\":\"arango-plan\",\"statement\":\"" + REMOVE + "\"");
    }

    @Test
    void psqlShowsArangoDbsSyntaxError() throws Exception {
        RealClients.Result result = psql("analyst", "-c", TYPO);
        assertEquals(1, result.exit());
        assertTrue(result.err().contains("ERROR:  ArangoDB error 1501: " + SYNTAX_ERROR), result.err());
        assertTrue(result.err().contains("DETAIL:  ArangoDB error 1501"), result.err());
    }

    @Test
    void psqlReachesThePostgresDatabaseNextToIt() throws Exception {
        RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(),
                proxy.uri("analyst"), "-At", "-c", "SELECT current_database()"));
        assertEquals(0, result.exit(), result.err());
        assertEquals(database.name(), result.out().strip());
    }

    // ---------------------------------------------------------------- pgjdbc

    @Test
    void pgjdbcStatementReadsRowsInEveryQueryMode() throws SQLException {
        for (String mode : List.of("extended", "simple", "extendedForPrepared")) {
            Properties props = new Properties();
            props.setProperty("preferQueryMode", mode);
            try (Connection c = connect("analyst", props); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery(USERS)) {
                    ResultSetMetaData meta = rs.getMetaData();
                    assertEquals(5, meta.getColumnCount(), mode);
                    assertEquals("name", meta.getColumnName(1));
                    assertEquals("active", meta.getColumnName(5));
                    assertEquals("text", meta.getColumnTypeName(3));
                    assertTrue(rs.next());
                    assertEquals("Ada", rs.getString("name"));
                    assertEquals(36, rs.getInt("age"));
                    assertEquals("[\"math\",\"engines\"]", rs.getString("tags"));
                    assertNull(rs.getString("address"));
                    assertTrue(rs.next());
                    assertNull(rs.getString("age"));
                    assertEquals("{\"city\":\"Arlington\"}", rs.getString("address"));
                    assertTrue(rs.getBoolean("active"));
                    assertFalse(rs.next());
                }
                try (ResultSet rs = s.executeQuery(VALUES)) {
                    assertEquals("value", rs.getMetaData().getColumnName(1));
                    List<String> values = new java.util.ArrayList<>();
                    while (rs.next()) {
                        values.add(rs.getString(1));
                    }
                    assertEquals(java.util.Arrays.asList("1", "two", "[3]", "{\"four\":4}", null), values, mode);
                    assertEquals("1562: division by zero", s.getWarnings().getMessage());
                }
            }
        }
    }

    @Test
    void pgjdbcPreparedStatementBindsParametersAsAqlBindVariables() throws SQLException {
        for (String threshold : List.of("5", "1")) {
            Properties props = new Properties();
            props.setProperty("prepareThreshold", threshold);
            try (Connection c = connect("analyst", props);
                 PreparedStatement ps = c.prepareStatement("FOR u IN users FILTER u.age >= ? RETURN u.name")) {
                for (int run = 0; run < 3; run++) {
                    ps.setInt(1, 30 + run);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertEquals("value", rs.getMetaData().getColumnName(1));
                        assertTrue(rs.next());
                        assertEquals("Ada", rs.getString(1));
                        assertFalse(rs.next());
                    }
                }
            }
        }
        JsonNode sent = arango.cursorRequests(BY_AGE).getLast().body();
        assertEquals(32, sent.path("bindVars").path("p1").asInt());
        assertTrue(sent.path("bindVars").path("p1").isIntegralNumber(), "an int parameter is an AQL number");
        assertTrue(arango.explains(BY_AGE).getLast().body().path("bindVars").has("p1"),
                "the gate explains the statement with its bind variables");
    }

    @Test
    void pgjdbcReadsRowsOfAStatementItDescribedBeforeBinding() throws SQLException {
        // Parameters of unknown type make pgjdbc describe the statement (Describe S) instead of the portal, and
        // take the columns from that description.
        Properties props = new Properties();
        props.setProperty("prepareThreshold", "1");
        props.setProperty("stringtype", "unspecified");
        try (Connection c = connect("analyst", props);
             PreparedStatement ps = c.prepareStatement("FOR u IN users FILTER u.name == ? RETURN u.name")) {
            for (int run = 0; run < 3; run++) {
                ps.setString(1, "Ada");
                try (ResultSet rs = ps.executeQuery()) {
                    assertEquals("value", rs.getMetaData().getColumnName(1), "run " + run);
                    assertTrue(rs.next());
                    assertEquals("Ada", rs.getString(1));
                    assertFalse(rs.next());
                }
            }
        }
    }

    @Test
    void pgjdbcGetsTheRefusalAsInsufficientPrivilege() throws SQLException {
        int cursorsBefore = arango.cursorRequests(REMOVE).size();
        try (Connection c = connect("analyst", new Properties()); Statement s = c.createStatement()) {
            PSQLException e = assertThrows(PSQLException.class, () -> s.execute(REMOVE));
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState());
            assertEquals("AQL refused: this login may only read, and the plan contains RemoveNode on collection "
                    + "users", e.getServerErrorMessage().getMessage());
            assertEquals(cursorsBefore, arango.cursorRequests(REMOVE).size(), "the write never ran");
            try (ResultSet rs = s.executeQuery("RETURN 1")) {
                assertTrue(rs.next(), "the session carries on");
            }
        }
    }

    @Test
    void aReadWriteLoginsRawWriteReportsAffectedRows() throws Exception {
        int before = arango.cursorRequests(REMOVE).size();
        try (Connection c = connect("app", new Properties()); Statement s = c.createStatement()) {
            assertEquals(2, s.executeUpdate(REMOVE));
        }
        assertEquals(before + 1, arango.cursorRequests(REMOVE).size());
        RealClients.Result result = psql("app", "-c", REMOVE);
        assertEquals(0, result.exit(), result.err());
        assertEquals("DELETE 2", result.out().strip());
    }

    @Test
    void pgjdbcGetsSyntaxErrorsWithArangoDbsMessageAndNumber() throws SQLException {
        for (String login : List.of("analyst", "app")) {
            try (Connection c = connect(login, new Properties()); Statement s = c.createStatement()) {
                PSQLException e = assertThrows(PSQLException.class, () -> s.executeQuery(TYPO));
                assertEquals(SqlState.SYNTAX_ERROR, e.getSQLState(), login);
                assertEquals("ArangoDB error 1501: " + SYNTAX_ERROR, e.getServerErrorMessage().getMessage());
                assertEquals("ArangoDB error 1501", e.getServerErrorMessage().getDetail());
            }
        }
    }

    @Test
    void aResultPastTheRowCapFailsWith54000() throws SQLException {
        try (Connection c = connect("analyst", new Properties()); Statement s = c.createStatement()) {
            PSQLException e = assertThrows(PSQLException.class, () -> s.executeQuery(TOO_MANY));
            assertEquals(SqlState.PROGRAM_LIMIT_EXCEEDED, e.getSQLState());
            assertTrue(e.getMessage().contains("more than 5 rows"), e.getMessage());
        }
    }

    @Test
    void cancelStopsASlowStatementAndTheSessionStaysUsable() throws Exception {
        try (Connection c = connect("analyst", new Properties()); Statement s = c.createStatement()) {
            int before = arango.cursorRequests(SLOW).size();
            long started = System.nanoTime();
            CompletableFuture<SQLException> running = CompletableFuture.supplyAsync(() -> {
                try (ResultSet rs = s.executeQuery(SLOW)) {
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            await(() -> arango.cursorRequests(SLOW).size() > before);
            s.cancel();
            SQLException e = running.get(10, TimeUnit.SECONDS);
            assertEquals(SqlState.QUERY_CANCELED, e == null ? null : e.getSQLState());
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(15), "did not wait for ArangoDB");
            try (ResultSet rs = s.executeQuery(USERS)) {
                assertTrue(rs.next(), "the session carries on");
                assertEquals("Ada", rs.getString(1));
            }
        }
    }

    // ---------------------------------------------------------------- the login's policy

    @Test
    void aReadOnlyLoginWithTablesReadsOnlyItsSelectedCollections() throws Exception {
        RealClients.Result refused = psql("reader", "-c", SECRETS);
        assertTrue(refused.err().contains("ERROR:  AQL refused: secrets is not among the collections and views "
                + "login \"reader\" may read"), refused.err());
        assertEquals(List.of(), arango.cursorRequests(SECRETS), "nothing of it reached ArangoDB's cursor");

        try (Connection c = connect("reader", new Properties()); Statement s = c.createStatement()) {
            PSQLException e = assertThrows(PSQLException.class, () -> s.executeQuery(SECRETS));
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState());
            try (ResultSet rs = s.executeQuery("RETURN 1")) {
                assertTrue(rs.next(), "a statement that reads no collection runs");
            }
        }
        assertAudited("\"login\":\"reader\",\"database\":\"shopdocs\",\"verdict\":\"refuse\","
                + "\"rule\":\"arango-selection\",\"statement\":\"" + SECRETS + "\"");
    }

    @Test
    void aReadOnlyLoginsRowCapLowersTheDatabasesLimit() throws Exception {
        try (Connection c = connect("reader", new Properties()); Statement s = c.createStatement()) {
            PSQLException e = assertThrows(PSQLException.class, () -> s.executeQuery(USERS));
            assertEquals("54000", e.getSQLState());
            assertTrue(e.getMessage().contains("more than 1 rows"), e.getMessage());
        }
        try (Connection c = connect("analyst", new Properties()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(USERS)) {
            assertTrue(rs.next() && rs.next(), "a login without a cap of its own has the database's");
        }
    }

    // ---------------------------------------------------------------- node-postgres

    static final ClientScript NODE_POSTGRES = ClientScript.node("node-postgres", "arango-scenarios.mjs",
            "rows", "params", "refused");

    @Test
    void nodePostgresReadsRowsBindsParametersAndSeesTheRefusal() throws Exception {
        Target target = new Target("pgward-arango", "127.0.0.1", proxy.port(), SHOPDOCS, "analyst",
                ProxyFixture.PASSWORD);
        JsonNode rows = NODE_POSTGRES.output("rows", target);
        assertEquals("[{\"name\":\"name\",\"type\":25},{\"name\":\"age\",\"type\":25},{\"name\":\"tags\",\"type\":25},"
                + "{\"name\":\"address\",\"type\":25},{\"name\":\"active\",\"type\":25}]", rows.get("fields").toString());
        assertEquals("{\"name\":\"Grace\",\"age\":null,\"tags\":null,\"address\":\"{\\\"city\\\":\\\"Arlington\\\"}\","
                + "\"active\":\"true\"}", rows.get("rows").get(1).toString());
        assertEquals("SELECT", rows.get("command").asText());
        assertEquals(2, rows.get("rowCount").asInt());

        JsonNode params = NODE_POSTGRES.output("params", target);
        assertEquals("[{\"value\":\"Ada\"}]", params.get("rows").toString());
        assertEquals("Ada", arango.cursorRequests(BY_NAME).getLast().body().path("bindVars").path("p1").asText());

        JsonNode refused = NODE_POSTGRES.output("refused", target);
        assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, refused.get("error").get("code").asText());
        assertEquals("[{\"value\":\"1\"}]", refused.get("after").toString());
    }

    // ---------------------------------------------------------------- helpers

    private static RealClients.Result psql(String login, String... arguments) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(RealClients.require("psql").toString(),
                proxy.uri(login, SHOPDOCS)));
        command.addAll(List.of(arguments));
        return RealClients.run(command);
    }

    private static Connection connect(String login, Properties props) throws SQLException {
        return proxy.connectTo(SHOPDOCS, login, props);
    }

    private static void assertAudited(String fragment) throws Exception {
        await(() -> {
            try {
                return Files.exists(auditFile) && Files.readString(auditFile).contains(fragment);
            } catch (java.io.IOException e) {
                return false;
            }
        });
    }

    /** Waits for a condition that another thread makes true, failing after ten seconds. */
    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }
}
