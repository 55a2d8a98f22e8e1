package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.pgward.mcp.AgentDoor;
import io.pgward.mcp.McpHttp;
import io.pgward.mcp.McpSettings;
import io.pgward.mcp.TokenHash;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.admin.ReloadReport;
import io.pgward.wire.config.PgwardConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * An agent is held to a reloaded policy as a psql user is: the agent listener's logins are the configuration in
 * force, not the one pgward started with.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class McpReloadIT {

    private static final String TOKEN = TokenHash.newToken();
    private static final List<String> WIDE = List.of("public.orders", "public.products");
    private static final List<String> NARROW = List.of("public.orders");

    @Test
    void aNarrowedSelectionHoldsTheAgentsNextCall(TestDatabase db) {
        McpSettings settings = new McpSettings("127.0.0.1", 0, db.name(), 25, Map.of("analyst",
                new McpSettings.AgentLogin("analyst", true, false, List.of(TokenHash.hash(TOKEN)), WIDE, 0)));
        AtomicReference<PgwardConfig> started = new AtomicReference<>();
        try (ProxyFixture proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null,
                PgwardConfig.TlsMode.DISABLE, 8, config -> {
                    PgwardConfig withSelection = selecting(config, WIDE).withMcp(settings);
                    started.set(withSelection);
                    return withSelection;
                })) {
            AgentDoor door = proxy.server().openAgentDoor(settings.logins().keySet(), db.name());
            McpHttp mcp = McpHttp.start(settings, door, "test");
            try (McpSyncClient agent = McpIT.httpAt("http://127.0.0.1:" + mcp.port() + McpSettings.PATH, TOKEN)) {
                McpSchema.CallToolResult before = McpIT.call(agent, "query",
                        Map.of("sql", "SELECT count(*) FROM products"));
                assertFalse(Boolean.TRUE.equals(before.isError()), () -> McpIT.text(before));

                proxy.server().reloadFrom(() -> selecting(started.get(), NARROW), changed -> { });
                ReloadReport report = proxy.server().reload();
                assertEquals(null, report.error(), report::toString);
                assertEquals(1, report.changes().size(), report::toString);

                McpSchema.CallToolResult after = McpIT.call(agent, "query",
                        Map.of("sql", "SELECT count(*) FROM products"));
                assertEquals(Boolean.TRUE, after.isError(), () -> McpIT.text(after));
                assertTrue(McpIT.text(after).contains(
                        "reads public.products, which this login's table selection does not include"),
                        () -> McpIT.text(after));
                McpSchema.CallToolResult kept = McpIT.call(agent, "query",
                        Map.of("sql", "SELECT count(*) FROM orders"));
                assertFalse(Boolean.TRUE.equals(kept.isError()), () -> McpIT.text(kept));
            } finally {
                mcp.close();
            }
        }
    }

    private static PgwardConfig selecting(PgwardConfig config, List<String> tables) {
        Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>(config.logins());
        logins.put("analyst", logins.get("analyst").withPolicy(new PgwardConfig.Policy(PgwardConfig.Mode.READ_ONLY,
                null, 0, tables, null)));
        return config.withLogins(logins);
    }
}
