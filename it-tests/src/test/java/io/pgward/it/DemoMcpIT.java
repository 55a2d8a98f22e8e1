package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The "done when", against {@code pgward demo} itself: the demo prints an MCP endpoint and a token for
 * the analyst, and an agent on it (the SDK's own client) lists the six selected relations, describes one, pages
 * through a large result and asks a question, and can neither read hr.salaries nor write.
 */
class DemoMcpIT {

    private static final Pattern ENDPOINT = Pattern.compile("Endpoint:\\s+(http://\\S+/mcp)");
    private static final Pattern TOKEN = Pattern.compile("Header:\\s+Authorization: Bearer (pgw_\\S+)");

    @Test
    void anAgentOnTheDemoReadsTheSelectionAndNothingElse() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        String question = "how many orders are there";
        String sql = "SELECT count(*) AS orders FROM public.orders LIMIT 1";
        try (ScriptedLlmServer llm = new ScriptedLlmServer()) {
            llm.script(question, ScriptedLlmServer.sql(sql));
            ProcessBuilder builder = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                    "io.pgward.demo.DemoMain", "demo", "--scale", "0.01", "--port", "0",
                    "--llm-provider", "openai", "--llm-base-url", llm.baseUrl().toString(),
                    "--llm-model", ScriptedLlmServer.MODEL).redirectErrorStream(true);
            builder.environment().keySet().removeIf(name -> name.startsWith("PGWARD_LLM_") || name.endsWith("_API_KEY"));
            Process demo = builder.start();
            try {
                String[] printed = awaitMcpLines(demo);
                try (McpSyncClient client = McpIT.httpAt(printed[0], printed[1])) {
                    List<McpSchema.Tool> tools = client.listTools().tools();
                    String description = tools.get(0).description();
                    assertEquals(6, description.substring(description.indexOf("Only these relations can be queried."))
                            .lines().skip(1).count(), description);
                    JsonNode orders = McpIT.fenced(McpIT.call(client, "describe", Map.of("name", "orders")));
                    assertEquals("public.orders", orders.get("name").asText());
                    JsonNode page = McpIT.fenced(McpIT.call(client, "query",
                            Map.of("sql", "SELECT id FROM orders ORDER BY id")));
                    assertTrue(page.get("truncated").asBoolean());
                    JsonNode next = McpIT.fenced(McpIT.call(client, "query",
                            Map.of("cursor", page.get("cursor").asText())));
                    assertEquals(page.get("rows").size() + 1, next.get("rows").get(0).get("id").asInt());
                    JsonNode asked = McpIT.fenced(McpIT.call(client, "get_data", Map.of("question", question)));
                    assertEquals(sql, asked.get("sql").asText());
                    assertEquals(1000, asked.get("rows").get(0).get("orders").asInt());
                    McpSchema.CallToolResult salaries = McpIT.call(client, "query",
                            Map.of("sql", "SELECT * FROM hr.salaries"));
                    assertTrue(salaries.isError());
                    assertTrue(McpIT.text(salaries).startsWith("ERROR:  pgward refused this query: it reads "
                            + "hr.salaries"), McpIT.text(salaries));
                    McpSchema.CallToolResult write = McpIT.call(client, "query",
                            Map.of("sql", "DELETE FROM orders"));
                    assertTrue(write.isError());
                    assertTrue(McpIT.text(write).startsWith("ERROR:  pgward refused this query: DELETE is not "
                            + "allowed for the read-only login \"analyst\""), McpIT.text(write));
                    assertFalse(tools.stream().anyMatch(t -> t.name().equals("execute")));
                }
            } finally {
                demo.destroy();
                assertTrue(demo.waitFor(60, TimeUnit.SECONDS), "demo exits on SIGTERM");
            }
        }
    }

    /** The MCP endpoint and the analyst's token the demo prints. */
    private static String[] awaitMcpLines(Process demo) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        String endpoint = null;
        String token = null;
        while ((line = reader.readLine()) != null) {
            seen.append(line).append('\n');
            Matcher e = ENDPOINT.matcher(line);
            Matcher t = TOKEN.matcher(line);
            if (e.find()) {
                endpoint = e.group(1);
            } else if (t.find()) {
                token = t.group(1);
            }
            if (endpoint != null && token != null) {
                Thread drain = new Thread(() -> {
                    try {
                        reader.transferTo(java.io.Writer.nullWriter());
                    } catch (IOException ignored) {
                        // the demo closed its output: nothing left to drain
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return new String[] {endpoint, token};
            }
        }
        throw new AssertionError("demo exited before printing its MCP endpoint:\n" + seen);
    }
}
