package io.pgward.it;

import static io.pgward.testkit.ScriptedChatModel.Language.SQL;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.pgward.testkit.ScriptedChatModel;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 that answers from a script: the replies for a
 * question are chosen by the question (the first user message), the n-th reply for the n-th attempt (counted
 * by the assistant turns already in the conversation). Every request body is kept for assertions.
 */
final class ScriptedLlmServer implements AutoCloseable {

    static final String MODEL = "scripted-sql-model";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final Map<String, List<String>> script = new ConcurrentHashMap<>();
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();

    ScriptedLlmServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/chat/completions", this::complete);
        server.start();
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1");
    }

    /** The model's replies to this question, attempt after attempt (the last one repeats). */
    void script(String question, String... replies) {
        script.put(question, List.of(replies));
    }

    static String sql(String sql) {
        return ScriptedChatModel.valid(SQL, sql);
    }

    static String notAboutTheDatabase(String answer) {
        return ScriptedChatModel.notAboutTheDatabase(SQL, answer);
    }

    /** The requests made for a question, in order. */
    List<JsonNode> requestsFor(String question) {
        List<JsonNode> result = new ArrayList<>();
        for (JsonNode request : requests) {
            if (question.equals(question(request))) {
                result.add(request);
            }
        }
        return result;
    }

    private static String question(JsonNode request) {
        for (JsonNode message : request.get("messages")) {
            if (message.get("role").asText().equals("user")) {
                return message.get("content").asText();
            }
        }
        return "";
    }

    private void complete(HttpExchange exchange) throws IOException {
        JsonNode request = JSON.readTree(exchange.getRequestBody().readAllBytes());
        requests.add(request);
        List<String> replies = script.get(question(request));
        if (replies == null) {
            byte[] body = ("{\"error\":{\"message\":\"no script for this question\"}}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(400, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
            return;
        }
        int attempt = 0;
        for (JsonNode message : request.get("messages")) {
            attempt += message.get("role").asText().equals("assistant") ? 1 : 0;
        }
        String content = replies.get(Math.min(attempt, replies.size() - 1));
        byte[] body = JSON.writeValueAsBytes(JSON.createObjectNode()
                .put("id", "chatcmpl-" + requests.size()).put("object", "chat.completion")
                .put("created", 1_700_000_000).put("model", MODEL)
                .set("choices", JSON.createArrayNode().add(JSON.createObjectNode().put("index", 0)
                        .put("finish_reason", "stop")
                        .set("message", JSON.createObjectNode().put("role", "assistant").put("content", content)))));
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
