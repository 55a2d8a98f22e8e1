package io.pgward.wire.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.mcp.McpSettings;
import io.pgward.mcp.TokenHash;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpSectionTest {

    private final ConfigLoader loader = new ConfigLoader(Map.<String, String>of()::get);
    private static final String HASH = TokenHash.hash("pgw_token");

    private static final String LOGINS = """
            backend: { host: db }
            logins:
              analyst: { password: a, tables: [public.orders], row_cap: 500 }
              app: { password: b, mode: read-write }
            """;

    @Test
    void offWithoutTheSection() {
        assertTrue(loader.parse(LOGINS, "f").mcp().isEmpty());
    }

    @Test
    void readsListenDatabaseAndEachLoginsTokenHashes() {
        McpSettings mcp = loader.parse(LOGINS + """
                mcp:
                  database: shop
                  logins:
                    analyst: { tokens: ["%s"] }
                    app: { tokens: ["%s"], allow_execute: true }
                """.formatted(HASH, HASH), "f").mcp().orElseThrow();
        assertEquals("127.0.0.1", mcp.host());
        assertEquals(6433, mcp.port());
        assertEquals("shop", mcp.database());
        assertEquals(McpSettings.DEFAULT_PAGE_ROWS, mcp.pageRows());
        assertEquals(McpSettings.DEFAULT_SESSION_IDLE, mcp.sessionIdle());
        assertFalse(mcp.arango());
        McpSettings.AgentLogin analyst = mcp.logins().get("analyst");
        assertTrue(analyst.readOnly());
        assertFalse(analyst.allowExecute());
        assertEquals(List.of("public.orders"), analyst.selection());
        assertEquals(500, analyst.rowCap());
        assertEquals(List.of(HASH), analyst.tokenHashes());
        assertTrue(mcp.logins().get("app").allowExecute());
    }

    @Test
    void refusesWhatCannotBeMeant() {
        Map<String, String> cases = Map.of(
                "mcp: { logins: { analyst: { tokens: [\"" + HASH + "\"] } } }", "mcp.database",
                "mcp: { database: shop, logins: { nobody: {} } }", "mcp.logins.nobody: is not one of the logins",
                "mcp: { database: shop, logins: { analyst: { tokens: [pgw_token] } } }",
                "mcp.logins.analyst.tokens[0]: must be a token hash",
                "mcp: { database: shop, logins: { analyst: { allow_execute: true } } }",
                "mcp.logins.analyst.allow_execute: applies to read-write logins only",
                "mcp: { database: shop, logins: {} }", "mcp.logins: names at least one login",
                "mcp: { database: shop, listen: nowhere, logins: { analyst: {} } }", "mcp.listen: must be host:port",
                "mcp: { database: shop, token: x, logins: { analyst: {} } }", "mcp.token: is not a setting",
                "mcp: { database: shop, session_idle_timeout: 0s, logins: { analyst: {} } }",
                "mcp.session_idle_timeout: must be positive");
        cases.forEach((yaml, expected) -> {
            ConfigException e = assertThrows(ConfigException.class, () -> loader.parse(LOGINS + yaml, "f"), yaml);
            assertTrue(e.getMessage().startsWith(expected), e.getMessage());
        });
    }
}
