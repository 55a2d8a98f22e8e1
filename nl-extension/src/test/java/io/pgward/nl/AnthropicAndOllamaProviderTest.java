package io.pgward.nl;

import static io.pgward.testkit.ScriptedChatModel.Language.SQL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.pgward.testkit.ScriptedChatModel;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Anthropic's Messages API and Ollama's chat API, each against a local server speaking it. */
class AnthropicAndOllamaProviderTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REPLY = ScriptedChatModel.valid(SQL, "SELECT 1 LIMIT 1");

    private HttpServer server;
    private final List<JsonNode> bodies = new ArrayList<>();
    private final List<Map<String, List<String>>> headers = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/messages", exchange -> reply(exchange, JSON.createObjectNode()
                .put("id", "msg_1").put("type", "message").put("role", "assistant").put("model", "claude-test")
                .put("stop_reason", "end_turn")
                .<com.fasterxml.jackson.databind.node.ObjectNode>set("content", JSON.createArrayNode()
                        .add(JSON.createObjectNode().put("type", "text").put("text", REPLY)))
                .set("usage", JSON.createObjectNode().put("input_tokens", 10).put("output_tokens", 5))));
        server.createContext("/api/chat", exchange -> reply(exchange, JSON.createObjectNode()
                .put("model", "qwen-test").put("created_at", "2026-12-02T12:00:00Z").put("done", true)
                .put("done_reason", "stop").put("prompt_eval_count", 10).put("eval_count", 5)
                .set("message", JSON.createObjectNode().put("role", "assistant").put("content", REPLY))));
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void reply(HttpExchange exchange, JsonNode body) throws IOException {
        bodies.add(JSON.readTree(exchange.getRequestBody().readAllBytes()));
        headers.add(exchange.getRequestHeaders());
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static List<ChatMessage> prompt() {
        return List.of(SystemMessage.from("You write SQL."), UserMessage.from("how many customers?"));
    }

    private static void assertValid(Generation generation) {
        assertEquals("SELECT 1 LIMIT 1", assertInstanceOf(Generation.Valid.class, generation).sql());
    }

    @Test
    void anthropicSendsSystemPromptModelKeyAndOutputSchema() {
        ProviderConfig config = new ProviderConfig.Anthropic(Optional.of(URI.create(base() + "/v1/")),
                "claude-test", "sk-ant-test", Duration.ofSeconds(10), 512, true);

        assertValid(new SqlGenerator(ChatModels.create(config), 1).generate(prompt(), sql -> Optional.empty(),
                attempt -> { }));

        JsonNode request = bodies.getFirst();
        assertEquals("sk-ant-test", headers.getFirst().get("X-api-key").getFirst());
        assertEquals("claude-test", request.get("model").asText());
        assertEquals(512, request.get("max_tokens").asInt());
        assertTrue(request.get("system").toString().contains("You write SQL."), request.toString());
        assertEquals("user", request.at("/messages/0/role").asText());
        assertEquals("json_schema", request.at("/output_config/format/type").asText(), request.toString());
        assertEquals("boolean", request.at("/output_config/format/schema/properties/isValid/type").asText(),
                request.toString());
    }

    @Test
    void ollamaSendsModelMessagesAndFormatSchema() {
        ProviderConfig config = new ProviderConfig.Ollama(URI.create(base()), "qwen-test", Duration.ofSeconds(10),
                true);

        assertValid(new SqlGenerator(ChatModels.create(config), 1).generate(prompt(), sql -> Optional.empty(),
                attempt -> { }));

        JsonNode request = bodies.getFirst();
        assertEquals("qwen-test", request.get("model").asText());
        assertEquals("system", request.at("/messages/0/role").asText());
        assertEquals("how many customers?", request.at("/messages/1/content").asText());
        assertEquals("boolean", request.at("/format/properties/isValid/type").asText(), request.toString());
        assertFalse(request.path("stream").asBoolean(), request.toString());
    }

    @Test
    void withoutJsonSchemaTheRequestCarriesNoResponseFormat() {
        ProviderConfig config = new ProviderConfig.Ollama(URI.create(base()), "qwen-test", Duration.ofSeconds(10),
                false);

        assertValid(new SqlGenerator(ChatModels.create(config), 1).generate(prompt(), sql -> Optional.empty(),
                attempt -> { }));

        assertTrue(bodies.getFirst().path("format").isMissingNode(), bodies.getFirst().toString());
    }

    @Test
    void apiKeysAreRedactedInToString() {
        String text = new ProviderConfig.Anthropic(Optional.empty(), "m", "sk-ant-secret", Duration.ofSeconds(1),
                10, true) + " " + new ProviderConfig.OpenAiCompatible(URI.create("http://x/v1"), "m",
                Optional.of("sk-secret"), Duration.ofSeconds(1), true);
        assertFalse(text.contains("secret"), text);
        assertTrue(text.contains("<redacted>"), text);
    }
}
