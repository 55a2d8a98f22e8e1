package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.gate.StatementGate;
import io.pgward.wire.protocol.SqlState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test gate refuses every statement that mentions {@code refuse_me}; clients must see exactly what
 * PostgreSQL itself does when a statement fails, in both protocols, in transactions, batches and pipelines.
 */
@PostgresTest
class RefusalSemanticsIT {

    static final String MESSAGE = "pgward refused this query: test gate";
    static final StatementGate TEST_GATE = request -> CompletableFuture.completedFuture(
            request.sql().contains("refuse_me")
                    ? new Verdict.Refuse(SqlState.INSUFFICIENT_PRIVILEGE, MESSAGE)
                    : Verdict.ALLOW);

    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        database = db;
        proxy = ProxyFixture.start(db, login -> TEST_GATE, null, PgwardConfig.TlsMode.DISABLE, 10);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id int PRIMARY KEY, label text CHECK (label <> 'bad'))");
        }
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @BeforeEach
    void empty() throws SQLException {
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            s.execute("TRUNCATE items");
        }
    }

    @Test
    void refusesInTheSimpleAndTheExtendedProtocolAndCarriesOn() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connectInMode("app", mode); Statement s = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT 'refuse_me'"));
                assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState(), mode);
                assertEquals("ERROR: " + MESSAGE, e.getMessage(), mode);
                try (ResultSet rs = s.executeQuery("SELECT 41 + 1")) {
                    rs.next();
                    assertEquals(42, rs.getInt(1), mode);
                }
            }
        }
    }

    @Test
    void aRefusalInsideATransactionAbortsItLikeAnyError() throws SQLException {
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO items VALUES (1, 'kept?')");
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, assertThrows(SQLException.class,
                    () -> s.execute("SELECT 'refuse_me'")).getSQLState());
            SQLException aborted = assertThrows(SQLException.class, () -> s.execute("SELECT 1"));
            assertEquals(SqlState.IN_FAILED_SQL_TRANSACTION, aborted.getSQLState());
            c.commit();
            c.setAutoCommit(true);
        }
        assertEquals(0, count(), "the transaction was rolled back");
    }

    @Test
    void commitOfATransactionAbortedByARefusalReportsRollback() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.query("BEGIN");
            assertEquals('T', status(client.readUntilReady()));
            client.query("INSERT INTO items VALUES (1, 'x')");
            client.readUntilReady();
            client.query("SELECT 'refuse_me'");
            List<RawClient.Message> refused = client.readUntilReady();
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, refused.get(0).fields().get('C'));
            assertEquals('E', status(refused));
            client.query("SELECT 'refuse_me'");
            List<RawClient.Message> again = client.readUntilReady();
            assertEquals(SqlState.IN_FAILED_SQL_TRANSACTION, again.get(0).fields().get('C'),
                    "an aborted transaction ignores everything");
            client.query("COMMIT");
            List<RawClient.Message> commit = client.readUntilReady();
            assertEquals("ROLLBACK\0", commit.get(0).text());
            assertEquals('I', status(commit));
        }
        assertEquals(0, count());
    }

    private static char status(List<RawClient.Message> messages) {
        return (char) messages.get(messages.size() - 1).body()[0];
    }

    @Test
    void rollbackToSavepointRecoversAfterARefusal() throws SQLException {
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO items VALUES (1, 'kept')");
            s.execute("SAVEPOINT before_refusal");
            assertThrows(SQLException.class, () -> s.execute("SELECT 'refuse_me'"));
            s.execute("ROLLBACK TO SAVEPOINT before_refusal");
            s.execute("INSERT INTO items VALUES (2, 'also kept')");
            c.commit();
        }
        assertEquals(2, count());
    }

    @Test
    void aBatchWithARefusedStatementInTheMiddleFailsAsAWholeLikeOnPostgres() throws SQLException {
        // On PostgreSQL itself, a batch whose middle statement fails is rolled back as one implicit transaction.
        int[] direct = batch(database.connect(), "INSERT INTO items VALUES (2, 'bad')");
        long directRows = count();
        empty();
        int[] proxied = batch(proxy.connect("app"), "INSERT INTO items VALUES (2, 'refuse_me')");
        assertEquals(directRows, count());
        assertEquals(0, count());
        assertEquals(direct.length, proxied.length);
    }

    private static int[] batch(Connection connection, String middle) throws SQLException {
        try (connection; Statement s = connection.createStatement()) {
            s.addBatch("INSERT INTO items VALUES (1, 'first')");
            s.addBatch(middle);
            s.addBatch("INSERT INTO items VALUES (3, 'third')");
            BatchUpdateException e = assertThrows(BatchUpdateException.class, s::executeBatch);
            return e.getUpdateCounts();
        }
    }

    @Test
    void aRefusedStatementNameCanNeverBeBound() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.parse("s1", "SELECT 'refuse_me'");
            client.bind("", "s1");
            client.execute("");
            client.sync();
            List<RawClient.Message> first = client.readUntilReady();
            assertEquals(List.of('E', 'Z'), first.stream().map(RawClient.Message::type).toList(),
                    "error at once, the rest skipped until Sync");
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, first.get(0).fields().get('C'));

            client.bind("", "s1");
            client.execute("");
            client.sync();
            List<RawClient.Message> second = client.readUntilReady();
            assertEquals('E', second.get(0).type());
            assertEquals(SqlState.INVALID_SQL_STATEMENT_NAME, second.get(0).fields().get('C'));
            assertEquals("prepared statement \"s1\" does not exist", second.get(0).fields().get('M'));
        }
    }

    @Test
    void pipelinedBatchesStayInOrder() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.parse("", "SELECT 1");
            client.bind("", "");
            client.execute("");
            client.send('S', new byte[0]);
            client.parse("", "SELECT 'refuse_me'");
            client.bind("", "");
            client.execute("");
            client.send('S', new byte[0]);
            client.parse("", "SELECT 3");
            client.bind("", "");
            client.execute("");
            client.sync();
            List<Character> types = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                client.readUntilReady().forEach(m -> types.add(m.type()));
            }
            assertEquals(List.of('1', '2', 'D', 'C', 'Z', 'E', 'Z', '1', '2', 'D', 'C', 'Z'), types);
        }
    }

    @Test
    void theRefusedTextNeverReachesTheServer() throws SQLException {
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement()) {
            assertThrows(SQLException.class, () -> s.execute("INSERT INTO items VALUES (9, 'refuse_me')"));
        }
        assertEquals(0, count());
        try (Connection c = database.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%refuse_me%' "
                     + "AND pid <> pg_backend_pid()")) {
            rs.next();
            assertEquals(0, rs.getInt(1));
        }
    }

    @Test
    void postgresJsPipeliningGetsTheRefusalInPlace() throws Exception {
        ClientScript postgresJs = ClientScript.node("postgres.js", "postgresjs-scenarios.mjs", "refusedPipeline", "error");
        com.fasterxml.jackson.databind.JsonNode output = postgresJs.output("refusedPipeline",
                new Target("pgward-test-gate", "127.0.0.1", proxy.port(), database.name(), "app", ProxyFixture.PASSWORD));
        assertTrue(output.get("oneConnection").asBoolean(), output.toString());
        com.fasterxml.jackson.databind.JsonNode results = output.get("results");
        assertEquals(9, results.size());
        for (int i = 0; i < 9; i++) {
            if (i == 4) {
                assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, results.get(i).get("error").get("code").asText(),
                        results.toString());
                assertEquals(MESSAGE, results.get(i).get("error").get("message").asText());
            } else {
                assertEquals(i, results.get(i).get("n").asInt(), results.toString());
            }
        }
    }

    @Test
    void everyDecisionIsAuditedWithoutBindValues(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("audit.jsonl");
        try (ProxyFixture audited = auditedTo(file); Connection c = audited.connect("app")) {
            try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT ?::text")) {
                ps.setString(1, "bind-value-never-logged");
                ps.executeQuery().close();
            }
            assertThrows(SQLException.class, () -> c.createStatement().execute("SELECT 'refuse_me'"));
        }
        List<String> lines = Files.readAllLines(file);
        List<JsonNode> entries = auditEntries(lines);
        assertTrue(entries.stream().anyMatch(e -> e.get("verdict").asText().equals("allow")
                && e.get("statement").asText().equals("SELECT $1::text") && e.get("login").asText().equals("app")),
                lines.toString());
        assertTrue(entries.stream().anyMatch(e -> e.get("verdict").asText().equals("refuse")
                && e.get("rule").asText().equals("gate") && e.get("statement").asText().equals("SELECT 'refuse_me'")),
                lines.toString());
        assertFalse(lines.toString().contains("bind-value-never-logged"));
    }

    @Test
    void theAuditShowsBytesThatAreNotUtf8AsTheyWereSent(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("audit.jsonl");
        try (ProxyFixture audited = auditedTo(file);
             RawClient client = RawClient.loggedIn(audited.port(), "trusted", database.name())) {
            // 0x81 is a lead byte in SJIS and no character at all in UTF-8; 0xc3 0x81 is a valid UTF-8 character.
            byte[] sql = {'S', 'E', 'L', 'E', 'C', 'T', ' ', '\'', (byte) 0x81, (byte) 0xc3, (byte) 0x81, '\''};
            client.raw(java.nio.ByteBuffer.allocate(6 + sql.length).put((byte) 'Q').putInt(5 + sql.length).put(sql)
                    .put((byte) 0).array());
            assertEquals(SqlState.CHARACTER_NOT_IN_REPERTOIRE, client.readUntilReady().get(0).fields().get('C'));
        }
        List<String> lines = Files.readAllLines(file);
        assertTrue(auditEntries(lines).stream().anyMatch(e -> e.get("statement").asText()
                .equals("SELECT '\\x81\u00c1'\n-- not valid UTF-8: the bytes that are not are shown as \\xNN")),
                lines.toString());
    }

    private static ProxyFixture auditedTo(Path file) {
        return ProxyFixture.start(database, login -> TEST_GATE, null, PgwardConfig.TlsMode.DISABLE, 2,
                config -> config.withAudit(new PgwardConfig.Audit(PgwardConfig.AuditTarget.FILE, file)));
    }

    private static List<JsonNode> auditEntries(List<String> lines) throws java.io.IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> entries = new java.util.ArrayList<>();
        for (String line : lines) {
            entries.add(json.readTree(line));
        }
        return entries;
    }

    @Test
    void aFailingGateRefuses() throws Exception {
        StatementGate broken = request -> CompletableFuture.failedFuture(new IllegalStateException("boom"));
        try (ProxyFixture failing = ProxyFixture.start(database, login -> broken, null,
                PgwardConfig.TlsMode.DISABLE, 2);
             RawClient client = RawClient.loggedIn(failing.port(), "trusted", database.name())) {
            client.query("SELECT 1");
            RawClient.Message error = client.readUntilReady().get(0);
            assertEquals("XX000", error.fields().get('C'));
            assertEquals("pgward refused this query: the guard could not decide (boom)", error.fields().get('M'));
        }
    }

    @Test
    void aSlowGateHoldsLaterMessagesInOrder() throws Exception {
        StatementGate slow = request -> CompletableFuture.supplyAsync(() -> {
            try {
                Thread.sleep(request.sql().contains("slow") ? 200 : 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Verdict.ALLOW;
        });
        try (ProxyFixture delayed = ProxyFixture.start(database, login -> slow, null,
                PgwardConfig.TlsMode.DISABLE, 2);
             Connection c = delayed.connect("app"); Statement s = c.createStatement()) {
            s.addBatch("INSERT INTO items VALUES (1, 'slow')");
            s.addBatch("INSERT INTO items VALUES (2, 'fast')");
            s.executeBatch();
            try (ResultSet rs = s.executeQuery("SELECT string_agg(label, ',' ORDER BY id) FROM items")) {
                rs.next();
                assertEquals("slow,fast", rs.getString(1));
            }
        }
        assertFalse(count() == 0);
    }

    private static long count() throws SQLException {
        try (Connection c = database.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM items")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
