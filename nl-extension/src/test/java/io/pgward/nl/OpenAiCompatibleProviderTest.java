package io.pgward.nl;

import static io.pgward.testkit.ScriptedChatModel.Language.SQL;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The OpenAI-compatible provider against a local server speaking the chat-completions API. */
class OpenAiCompatibleProviderTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpServer server;
    private final List<JsonNode> bodies = new ArrayList<>();
    private final List<String> authorizations = new ArrayList<>();
    private final List<String> replies = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/chat/completions", this::complete);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void complete(HttpExchange exchange) throws IOException {
        bodies.add(JSON.readTree(exchange.getRequestBody().readAllBytes()));
        authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
        String content = replies.removeFirst();
        String body = JSON.writeValueAsString(JSON.createObjectNode()
                .put("id", "chatcmpl-1").put("object", "chat.completion").put("created", 1_700_000_000)
                .put("model", "local-sql-model")
                .set("choices", JSON.createArrayNode().add(JSON.createObjectNode().put("index", 0)
                        .put("finish_reason", "stop")
                        .set("message", JSON.createObjectNode().put("role", "assistant").put("content", content)))));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private SqlGenerator generator(int attempts) {
        ProviderConfig config = new ProviderConfig.OpenAiCompatible(
                URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1"), "local-sql-model",
                Optional.of("sk-test"), Duration.ofSeconds(10), true);
        return new SqlGenerator(ChatModels.create(config), attempts);
    }

    private static List<ChatMessage> prompt() {
        return List.of(SystemMessage.from("You write SQL."), UserMessage.from("how many customers?"));
    }

    @Test
    void sendsModelMessagesAndJsonSchemaResponseFormatAndParsesTheReply() throws Exception {
        replies.add(ScriptedChatModel.valid(SQL, "SELECT count(*) FROM customers LIMIT 1"));

        Generation generation = generator(1).generate(prompt(), sql -> Optional.empty(), attempt -> { });

        assertEquals("SELECT count(*) FROM customers LIMIT 1",
                assertInstanceOf(Generation.Valid.class, generation).sql());
        JsonNode request = bodies.getFirst();
        assertEquals("Bearer sk-test", authorizations.getFirst());
        assertEquals("local-sql-model", request.get("model").asText());
        assertEquals("system", request.at("/messages/0/role").asText());
        assertEquals("You write SQL.", request.at("/messages/0/content").asText());
        assertEquals("user", request.at("/messages/1/role").asText());
        assertEquals("how many customers?", request.at("/messages/1/content").asText());
        assertEquals("json_schema", request.at("/response_format/type").asText(), request.toString());
        JsonNode schema = request.at("/response_format/json_schema");
        assertEquals("pgward_sql", schema.get("name").asText());
        assertTrue(schema.get("strict").asBoolean(), schema.toString());
        assertEquals("boolean", schema.at("/schema/properties/isValid/type").asText(), schema.toString());
        assertEquals("string", schema.at("/schema/properties/sql/type").asText());
        assertEquals(3, schema.at("/schema/required").size());
    }

    @Test
    void feedbackTurnCarriesTheFailingSqlAndNotAboutDatabaseReplyIsParsed() throws Exception {
        replies.add("```json\n" + ScriptedChatModel.valid(SQL, "SELECT x FROM t LIMIT 1") + "\n```");
        replies.add(ScriptedChatModel.notAboutTheDatabase(SQL, "Not a question about the data."));

        Generation generation = generator(2).generate(prompt(),
                sql -> Optional.of("column \"x\" does not exist"), attempt -> { });

        assertEquals("Not a question about the data.",
                assertInstanceOf(Generation.NotAboutDatabase.class, generation).answer());
        JsonNode second = bodies.get(1);
        assertEquals(4, second.get("messages").size());
        assertEquals("assistant", second.at("/messages/2/role").asText());
        String feedback = second.at("/messages/3/content").asText();
        assertTrue(feedback.contains("SELECT x FROM t LIMIT 1") && feedback.contains("column \"x\" does not exist"),
                feedback);
    }

    @Test
    void unreachableProviderFailsTheQuestionWithoutRetrying() {
        server.stop(0);
        Generation generation = generator(5).generate(prompt(), sql -> Optional.empty(), attempt -> { });
        ProviderFailed failed = new ProviderFailed(generation);
        assertTrue(failed.message.startsWith("the LLM provider failed: "), failed.message);
        assertTrue(generation.attempts().isEmpty());
    }

    private record ProviderFailed(String message) {
        ProviderFailed(Generation generation) {
            this(assertInstanceOf(Generation.ProviderFailed.class, generation).message());
        }
    }
}
