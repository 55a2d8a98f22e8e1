package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.mcp.AgentDoor;
import io.pgward.mcp.McpHttp;
import io.pgward.mcp.McpSettings;
import io.pgward.mcp.TokenHash;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * Every refusal of the guard corpus, through MCP and through the wire: the analyst's {@code query} tool answers each
 * one-statement refusal case with an error whose text is exactly what pgjdbc gets for the same statement of the
 * same login in the same read-only transaction, because the tool is that client.
 */
@PostgresTest
class McpCorpusIT {

    static final String TOKEN = TokenHash.newToken();
    private static final List<String> SELECTION = List.of(CorpusReplayIT.SELECTION.split(", "));

    private static ProxyFixture proxy;
    private static McpHttp mcp;
    private static McpSyncClient client;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        try (Connection owner = db.connect(); Statement s = owner.createStatement()) {
            for (String sql : GuardCorpus.fixture()) {
                s.execute(sql);
            }
        }
        McpSettings settings = new McpSettings("127.0.0.1", 0, db.name(), 100, Map.of("analyst",
                new McpSettings.AgentLogin("analyst", true, false, List.of(TokenHash.hash(TOKEN)), SELECTION, 0)));
        java.time.Duration timeout = java.time.Duration.ofSeconds(3);
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                config -> ProxyFixture.policy("analyst", p -> p.withStatementTimeout(timeout).withTables(SELECTION))
                        .apply(config).withMcp(settings));
        AgentDoor door = proxy.server().openAgentDoor(settings.logins().keySet(), db.name());
        mcp = McpHttp.start(settings, door, "test");
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
    }

    @Test
    void everyOneStatementRefusalOfTheCorpusIsTheSameTextThroughMcp() throws Exception {
        List<String> differences = new ArrayList<>();
        int compared = 0;
        for (GuardCorpus.Case c : GuardCorpus.cases()) {
            if (!c.refuse() || statements(c.sql()) != 1) {
                continue;
            }
            String wire = wire(c.sql());
            if (wire == null) {
                continue; // ran on the wire (a case the corpus expects only PostgreSQL to stop later): not a refusal
            }
            compared++;
            McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest("query",
                    Map.of("sql", c.sql())));
            String text = McpIT.text(result);
            if (!Boolean.TRUE.equals(result.isError()) || !text.equals(wire)) {
                differences.add(c.id() + ": wire " + wire + "\n    mcp  " + text);
            }
        }
        assertTrue(compared > 50, "refusal cases compared: " + compared);
        assertEquals(List.of(), differences, String.join("\n", differences));
    }

    private static int statements(String sql) {
        try {
            return SqlLexer.split(sql, true).size();
        } catch (LexerException e) {
            return 1;
        }
    }

    /** psql's text for the statement as the analyst in a read-only transaction; null when it ran. */
    private static String wire(String sql) throws SQLException {
        try (Connection c = proxy.connect("analyst")) {
            c.setAutoCommit(false);
            c.setReadOnly(true);
            try (Statement s = c.createStatement()) {
                s.setFetchSize(100);
                s.execute(sql);
                return null;
            } catch (PSQLException e) {
                if (e.getServerErrorMessage() == null) {
                    return "ERROR:  " + e.getMessage();
                }
                StringBuilder text = new StringBuilder("ERROR:  ").append(e.getServerErrorMessage().getMessage());
                if (e.getServerErrorMessage().getDetail() != null) {
                    text.append("\nDETAIL:  ").append(e.getServerErrorMessage().getDetail());
                }
                if (e.getServerErrorMessage().getHint() != null) {
                    text.append("\nHINT:  ").append(e.getServerErrorMessage().getHint());
                }
                return text.toString();
            } finally {
                c.rollback();
            }
        }
    }
}
