package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.pgward.mcp.AgentDoor;
import io.pgward.mcp.McpHttp;
import io.pgward.mcp.McpSettings;
import io.pgward.mcp.TokenHash;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Seed 000's raw-SQL and insert tools for a read-write login with {@code allow_execute}, through pgward's MCP
 * server with the SDK's own client: params, row modes, the error contract, the row cap, sessions, the refused
 * commit of an aborted transaction, and the answers lane's insert rules.
 */
@PostgresTest
class McpExecuteIT {

    static final String APP_TOKEN = TokenHash.newToken();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern FENCED = Pattern.compile(
            "<(untrusted-data-[0-9a-f-]{36})>\\n(.*)\\n</\\1>", Pattern.DOTALL);

    private static ProxyFixture proxy;
    private static McpHttp mcp;
    private static McpSyncClient client;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        database = db;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE mcp_t (id int PRIMARY KEY, name text)");
            s.execute("CREATE TABLE items (code text PRIMARY KEY, label text, created_at timestamptz NOT NULL "
                    + "DEFAULT now(), n int NOT NULL DEFAULT 7, doubled int GENERATED ALWAYS AS (n * 2) STORED)");
            s.execute("CREATE FUNCTION items_code() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                    + "IF NEW.code IS NULL THEN NEW.code := 'k-' || NEW.label; END IF; RETURN NEW; END $$");
            s.execute("CREATE TRIGGER items_code BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION items_code()");
        }
        McpSettings settings = new McpSettings("127.0.0.1", 0, db.name(), 100, Map.of(
                "app", new McpSettings.AgentLogin("app", false, true, List.of(TokenHash.hash(APP_TOKEN)),
                        List.of(), 0))).withSessionIdle(java.time.Duration.ofSeconds(2));
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 8,
                config -> config.withMcp(settings));
        AgentDoor door = proxy.server().openAgentDoor(settings.logins().keySet(), db.name());
        mcp = McpHttp.start(settings, door, "test");
        client = McpIT.httpAt("http://127.0.0.1:" + mcp.port() + McpSettings.PATH, APP_TOKEN);
    }

    @AfterAll
    static void stop() {
        client.close();
        mcp.close();
        proxy.close();
    }

    static McpSchema.CallToolResult call(String tool, Map<String, Object> args) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args));
    }

    static JsonNode ok(String tool, Map<String, Object> args) throws IOException {
        McpSchema.CallToolResult result = call(tool, args);
        String text = McpIT.text(result);
        assertFalse(Boolean.TRUE.equals(result.isError()), text);
        Matcher m = FENCED.matcher(text);
        return JSON.readTree(m.find() ? m.group(2) : text);
    }

    static String error(String tool, Map<String, Object> args) {
        McpSchema.CallToolResult result = call(tool, args);
        assertTrue(result.isError(), () -> McpIT.text(result));
        return McpIT.text(result);
    }

    static long count(String sql) throws SQLException {
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void theReadWriteLoginWithAllowExecuteGetsTheRawSqlTools() {
        assertEquals(List.of("query", "execute", "begin", "commit", "rollback", "insert_rows"),
                client.listTools().tools().stream().map(McpSchema.Tool::name).toList());
    }

    @Test
    void executeBindsDollarParamsAndReturnsObjectsOrArrays() throws IOException {
        JsonNode inserted = ok("execute", Map.of("sql", "INSERT INTO mcp_t VALUES ($1, $2), ($3, $2)",
                "params", List.of(1, "a", 2)));
        assertEquals(2, inserted.get("affected_rows").asInt());
        JsonNode arrays = ok("execute", Map.of("sql", "SELECT id, name, id FROM mcp_t WHERE id <= $1 ORDER BY id",
                "params", List.of(2), "row_mode", "array"));
        assertEquals("[[1,\"a\",1],[2,\"a\",2]]", arrays.get("rows").toString());
        JsonNode objects = ok("execute", Map.of("sql", "SELECT id, name FROM mcp_t WHERE id = 1"));
        assertEquals("[{\"id\":1,\"name\":\"a\"}]", objects.get("rows").toString());
        // jsonb's ? operator beside a $1, and a $1 inside a string that is not a parameter.
        JsonNode operator = ok("execute", Map.of("sql", "SELECT '{\"a\":1}'::jsonb ? $1 AS has, '$1' AS text",
                "params", List.of("a")));
        assertEquals("[{\"has\":true,\"text\":\"$1\"}]", operator.get("rows").toString());
    }

    @Test
    void aFailureIsPostgresPrimaryMessageAlone() {
        assertEquals("SQL execution failed: division by zero", error("execute", Map.of("sql", "SELECT 1/0")));
        assertEquals("SQL execution failed: invalid input syntax for type integer: \"x\"",
                error("execute", Map.of("sql", "INSERT INTO mcp_t VALUES ($1, 'b')", "params", List.of("x"))));
        assertEquals("SQL execution failed: relation \"nope\" does not exist",
                error("execute", Map.of("sql", "SELECT *\nFROM nope")));
    }

    @Test
    void aResultOverTheRowCapFailsAndRollsBackOutsideASession() throws SQLException {
        String text = error("execute", Map.of("sql", "WITH ins AS (INSERT INTO mcp_t VALUES (99, 'z') RETURNING id) "
                + "SELECT g FROM generate_series(1, 25001) g, ins"));
        assertTrue(text.startsWith("SQL execution failed: the result has more than 25,000 rows"), text);
        assertEquals(0, count("SELECT count(*) FROM mcp_t WHERE id = 99"));
    }

    @Test
    void sessionsCommitAndRollBack() throws Exception {
        String session = ok("begin", Map.of()).get("session_id").asText();
        ok("execute", Map.of("sql", "INSERT INTO mcp_t VALUES (10, 'in session')", "session_id", session));
        assertEquals(0, count("SELECT count(*) FROM mcp_t WHERE id = 10"));
        assertEquals("{\"ok\":true}", ok("commit", Map.of("session_id", session)).toString());
        assertEquals(1, count("SELECT count(*) FROM mcp_t WHERE id = 10"));
        assertTrue(error("commit", Map.of("session_id", session)).startsWith("Unknown session_id"));
        String other = ok("begin", Map.of()).get("session_id").asText();
        ok("execute", Map.of("sql", "INSERT INTO mcp_t VALUES (11, 'rolled back')", "session_id", other));
        assertEquals("{\"ok\":true}", ok("rollback", Map.of("session_id", other)).toString());
        assertEquals(0, count("SELECT count(*) FROM mcp_t WHERE id = 11"));
    }

    /** Drizzle's pg-proxy driver wants positional rows: row_mode array, from the MCP TypeScript SDK. */
    @Test
    void drizzleReadsAndWritesThroughExecuteWithArrayRows() throws Exception {
        java.nio.file.Path directory = ClientScript.clientsDirectory().resolve("node");
        if (!java.nio.file.Files.isDirectory(directory.resolve("node_modules/@modelcontextprotocol/sdk"))) {
            RealClients.missing("the MCP SDK for Node is not installed: run npm ci in " + directory + " (.ci/run does)");
        }
        ProcessBuilder builder = new ProcessBuilder(RealClients.require("node", "Node.js 20 or newer").toString(),
                "mcp-drizzle.mjs").directory(directory.toFile()).redirectErrorStream(false)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().put("MCP_URL", "http://127.0.0.1:" + mcp.port() + McpSettings.PATH);
        builder.environment().put("MCP_TOKEN", APP_TOKEN);
        Process node = builder.start();
        String err = new String(node.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        String out = new String(node.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(node.waitFor(120, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, node.exitValue(), err + out);
        JsonNode result = JSON.readTree(out);
        assertEquals("[{\"id\":1,\"name\":\"a\",\"qty\":3},{\"id\":2,\"name\":\"b\",\"qty\":null}]",
                result.get("all").toString());
        assertEquals("[{\"name\":\"b\"}]", result.get("one").toString());
        assertEquals("[{\"qty\":5}]", result.get("updated").toString());
        assertEquals("SQL execution failed: duplicate key value violates unique constraint \"drizzle_items_pkey\"",
                result.get("refused").asText());
    }

    @Test
    void anIdleSessionIsRolledBackAndForgotten() throws Exception {
        String session = ok("begin", Map.of()).get("session_id").asText();
        ok("execute", Map.of("sql", "INSERT INTO mcp_t VALUES (30, 'idle')", "session_id", session));
        // Waits, without touching the session, until PostgreSQL has no MCP transaction left open.
        String open = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgward-mcp' "
                + "AND state LIKE 'idle in transaction%'";
        assertEquals(1, ownerCount(open));
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (ownerCount(open) > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(0, ownerCount(open));
        assertTrue(error("execute", Map.of("sql", "SELECT 1", "session_id", session))
                .startsWith("Unknown session_id"));
        assertEquals(0, count("SELECT count(*) FROM mcp_t WHERE id = 30"));
    }

    private static long ownerCount(String sql) throws SQLException {
        try (Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aCommitOfAnAbortedTransactionIsRefusedAndRolledBack() throws Exception {
        String session = ok("begin", Map.of()).get("session_id").asText();
        ok("execute", Map.of("sql", "INSERT INTO mcp_t VALUES (20, 'lost')", "session_id", session));
        assertEquals("SQL execution failed: division by zero",
                error("execute", Map.of("sql", "SELECT 1/0", "session_id", session)));
        String refused = error("commit", Map.of("session_id", session));
        assertTrue(refused.startsWith("Commit refused"), refused);
        assertEquals(0, count("SELECT count(*) FROM mcp_t WHERE id = 20"));
        assertTrue(error("rollback", Map.of("session_id", session)).startsWith("Unknown session_id"));
    }

    @Test
    void insertRowsCreatesATableFromTheFirstBatch() throws Exception {
        JsonNode result = ok("insert_rows", Map.of("table", "answers", "rows", List.of(
                Map.of("Name", "a", "Qty", 1, "ok", true, "tags", List.of("x")),
                Map.of("name", "b", "qty", 2.5))));
        assertEquals("{\"inserted\":2,\"created\":true}", result.toString());
        JsonNode rows = ok("execute", Map.of("sql", "SELECT * FROM answers ORDER BY 1", "row_mode", "array"));
        assertEquals(2, rows.get("rows").size(), rows.toString());
        assertEquals(1, count("SELECT count(*) FROM answers WHERE \"Name\" = 'a' AND ok = 1 AND tags = '[\"x\"]'"));
    }

    @Test
    void insertRowsLeavesDefaultsGeneratedColumnsAndATriggerFilledKeyToPostgres() throws Exception {
        Map<String, Object> nulls = new java.util.HashMap<>();
        nulls.put("label", "y");
        nulls.put("created_at", null);
        nulls.put("N", null);
        JsonNode result = ok("insert_rows", Map.of("table", "items", "rows", List.of(Map.of("LABEL", "x"), nulls)));
        assertEquals("{\"inserted\":2,\"created\":false}", result.toString());
        assertEquals(2, count("SELECT count(*) FROM items WHERE code = 'k-' || label AND n = 7 AND doubled = 14 "
                + "AND created_at IS NOT NULL"));
        long before = count("SELECT count(*) FROM items");
        String failed = error("insert_rows", Map.of("table", "items", "rows", List.of(Map.of("label", "ok"),
                Map.of("label", "bad", "n", "x"))));
        assertEquals("Insert into \"items\" failed: invalid input syntax for type integer: \"x\"", failed);
        assertEquals(before, count("SELECT count(*) FROM items"));
    }
}
