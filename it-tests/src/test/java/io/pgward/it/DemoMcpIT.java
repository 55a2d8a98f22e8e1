package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
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
        String question = "how many orders are there";
        String sql = "SELECT count(*) AS orders FROM public.orders LIMIT 1";
        try (ScriptedLlmServer llm = new ScriptedLlmServer()) {
            llm.script(question, ScriptedLlmServer.sql(sql));
            try (DemoProcess demo = DemoProcess.start("0.01", DemoProcess.modelOptions(llm))) {
                List<String> printed = demo.awaitPrinted("its MCP endpoint", ENDPOINT, TOKEN);
                try (McpSyncClient client = McpIT.httpAt(printed.get(0), printed.get(1))) {
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
                demo.stop();
            }
        }
    }
}
