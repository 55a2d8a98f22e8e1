package io.pgward.it;

import static io.pgward.testkit.ScriptedChatModel.Language.AQL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.pgward.arango.AqlLimits;
import io.pgward.arango.ArangoAuth;
import io.pgward.arango.ArangoConfig;
import io.pgward.arango.FakeArango;
import io.pgward.mcp.AgentDoor;
import io.pgward.mcp.McpHttp;
import io.pgward.mcp.McpSettings;
import io.pgward.mcp.TokenHash;
import io.pgward.nl.NlSettings;
import io.pgward.nl.ProviderConfig;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.ScriptedChatModel;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.arango.ArangoServing;
import io.pgward.wire.config.PgwardConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Seed 002's tools on an ArangoDB database pgward serves (a fake ArangoDB, a scripted model): the agent gets
 * get_data, get_aql, get_schema and dialect, each answered by pgward's functions on a session of its login, so a
 * generated write is fed back to the model and never runs.
 */
@PostgresTest
class McpArangoIT {

    static final String SHOPDOCS = "shopdocs";
    static final String TOKEN = TokenHash.newToken();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern FENCED = Pattern.compile(
            "<(untrusted-data-[0-9a-f-]{36})>\\n(.*)\\n</\\1>", Pattern.DOTALL);

    private static FakeArango arango;
    private static ScriptedLlmServer llm;
    private static ArangoServing serving;
    private static ProxyFixture proxy;
    private static McpHttp mcp;
    private static McpSyncClient client;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        arango = FakeArango.start();
        arango.rows(ArangoQuestionsIT.wrapped(ArangoQuestionsIT.OLDEST_AQL, 250), "[\"Ada\"]");
        arango.rows(ArangoQuestionsIT.wrapped(ArangoQuestionsIT.COUNT_AQL, 250), "[3]");
        arango.plan(ArangoQuestionsIT.PURGE_AQL, ArangoThroughProxyIT.REMOVE_PLAN);
        for (String read : List.of(ArangoQuestionsIT.OLDEST_AQL, ArangoQuestionsIT.COUNT_AQL,
                ArangoQuestionsIT.wrapped(ArangoQuestionsIT.OLDEST_AQL, 250),
                ArangoQuestionsIT.wrapped(ArangoQuestionsIT.COUNT_AQL, 250))) {
            arango.plan(read, ArangoThroughProxyIT.READ_PLAN.formatted("users", "users"));
        }
        llm = new ScriptedLlmServer();
        llm.script(ArangoQuestionsIT.OLDEST, ScriptedChatModel.valid(AQL, ArangoQuestionsIT.OLDEST_AQL),
                ScriptedChatModel.valid(AQL, ArangoQuestionsIT.OLDEST_AQL));
        llm.script(ArangoQuestionsIT.PURGE, ScriptedChatModel.valid(AQL, ArangoQuestionsIT.PURGE_AQL),
                ScriptedChatModel.valid(AQL, ArangoQuestionsIT.COUNT_AQL));
        NlSettings settings = NlSettings.defaults().withProvider(new ProviderConfig.OpenAiCompatible(llm.baseUrl(),
                ScriptedLlmServer.MODEL, Optional.empty(), Duration.ofSeconds(20), true));
        ArangoConfig config = ArangoConfig.of(SHOPDOCS, arango.endpoint(), "shop",
                new ArangoAuth.UserPassword("", "")).withLimits(AqlLimits.DEFAULTS);
        serving = ArangoServing.start(List.of(config), List.of(), settings, null);
        McpSettings mcpSettings = new McpSettings("127.0.0.1", 0, SHOPDOCS, 100, Map.of("analyst",
                new McpSettings.AgentLogin("analyst", true, false, List.of(TokenHash.hash(TOKEN)), List.of(), 0)),
                true);
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                c -> c.withArango(List.of(config)).withMcp(mcpSettings), serving.localDatabases());
        AgentDoor door = proxy.server().openAgentDoor(mcpSettings.logins().keySet(), SHOPDOCS);
        mcp = McpHttp.start(mcpSettings, door, "test");
        client = McpIT.httpAt("http://127.0.0.1:" + mcp.port() + McpSettings.PATH, TOKEN);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (mcp != null) {
            mcp.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (serving != null) {
            serving.close();
        }
        llm.close();
        arango.close();
    }

    static JsonNode ok(String tool, Map<String, Object> args) throws Exception {
        McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest(tool, args));
        String text = McpIT.text(result);
        assertFalse(Boolean.TRUE.equals(result.isError()), text);
        Matcher m = FENCED.matcher(text);
        return JSON.readTree(m.find() ? m.group(2) : text);
    }

    @Test
    void theAgentGetsSeed002sTools() {
        assertEquals(List.of("get_data", "get_aql", "get_schema", "dialect"),
                client.listTools().tools().stream().map(McpSchema.Tool::name).toList());
    }

    @Test
    void getDataRunsTheGeneratedAqlAndAWriteIsNeverRun() throws Exception {
        JsonNode oldest = ok("get_data", Map.of("question", ArangoQuestionsIT.OLDEST));
        assertTrue(oldest.get("valid").asBoolean(), oldest.toString());
        assertEquals(ArangoQuestionsIT.OLDEST_AQL, oldest.get("aql").asText());
        assertEquals("Ada", oldest.get("rows").get(0).elements().next().asText(), oldest.toString());
        JsonNode purge = ok("get_data", Map.of("question", ArangoQuestionsIT.PURGE));
        assertEquals(ArangoQuestionsIT.COUNT_AQL, purge.get("aql").asText(), purge.toString());
        assertEquals(3, purge.get("rows").get(0).elements().next().asInt(), purge.toString());
        assertEquals(List.of(), arango.cursorRequests(ArangoQuestionsIT.PURGE_AQL), "the generated write never ran");
    }

    @Test
    void getAqlSchemaAndDialect() throws Exception {
        JsonNode aql = ok("get_aql", Map.of("question", ArangoQuestionsIT.OLDEST));
        assertTrue(aql.get("valid").asBoolean(), aql.toString());
        assertEquals(ArangoQuestionsIT.OLDEST_AQL, aql.get("aql").asText());
        JsonNode schema = ok("get_schema", Map.of());
        assertTrue(schema.has("collections") && schema.has("graphs") && schema.has("views"), schema.toString());
        assertEquals("{\"dialect\":\"arango\"}", ok("dialect", Map.of()).toString());
    }
}
