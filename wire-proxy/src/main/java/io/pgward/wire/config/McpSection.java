package io.pgward.wire.config;

import io.pgward.mcp.McpSettings;
import io.pgward.mcp.TokenHash;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code mcp:} section (docs/mcp.md): pgward's MCP server for agents, off unless the section is there.
 *
 * <pre>
 * mcp:
 *   listen: 127.0.0.1:6433          # Streamable HTTP at /mcp
 *   database: shop                  # the database the tools query
 *   page_rows: 100                  # rows of one query page
 *   session_idle_timeout: 5m        # a begin session without a call is rolled back
 *   logins:
 *     analyst:
 *       tokens:                     # hashes from `pgward mcp-token`, never tokens
 *         - SCRAM-SHA-256$4096:...
 *     app:
 *       tokens: [...]
 * </pre>
 */
final class McpSection {

    static final String DEFAULT_LISTEN = "127.0.0.1:6433";

    private McpSection() {
    }

    static McpSettings read(ConfigSection section, Map<String, PgwardConfig.Login> logins,
                            List<io.pgward.arango.ArangoConfig> arango) {
        PgwardConfig.Listen listen = ConfigLoader.address(section, "listen",
                section.string("listen", DEFAULT_LISTEN), DEFAULT_LISTEN);
        String database = section.requiredString("database");
        int pageRows = section.integer("page_rows", McpSettings.DEFAULT_PAGE_ROWS, 1, 10_000);
        java.time.Duration idle = section.duration("session_idle_timeout", McpSettings.DEFAULT_SESSION_IDLE);
        if (idle.isZero() || idle.isNegative()) {
            throw ConfigException.at(section.keyPath("session_idle_timeout"), "must be positive");
        }
        Map<String, McpSettings.AgentLogin> agents = new LinkedHashMap<>();
        for (Map.Entry<String, ConfigSection> entry : section.sections("logins").entrySet()) {
            agents.put(entry.getKey(), agent(entry.getKey(), entry.getValue(), logins));
        }
        if (agents.isEmpty()) {
            throw ConfigException.at(section.keyPath("logins"), "names at least one login agents may act as");
        }
        section.done();
        boolean isArango = arango.stream().anyMatch(a -> a.name().equals(database));
        return new McpSettings(listen.host(), listen.port(), database, pageRows, agents, isArango, idle);
    }

    private static McpSettings.AgentLogin agent(String name, ConfigSection section,
                                                Map<String, PgwardConfig.Login> logins) {
        PgwardConfig.Login login = logins.get(name);
        if (login == null) {
            throw ConfigException.at(section.path(), "is not one of the logins: " + logins.keySet());
        }
        List<String> tokens = section.strings("tokens");
        for (int i = 0; i < tokens.size(); i++) {
            if (!TokenHash.wellFormed(tokens.get(i))) {
                throw ConfigException.at(section.keyPath("tokens") + "[" + i + "]", "must be a token hash made by "
                        + "`pgward mcp-token` (SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>), "
                        + "never the token itself");
            }
        }
        boolean allowExecute = bool(section, "allow_execute");
        if (allowExecute && login.mode() == PgwardConfig.Mode.READ_ONLY) {
            throw ConfigException.at(section.keyPath("allow_execute"), "applies to read-write logins only");
        }
        section.done();
        return new McpSettings.AgentLogin(name, login.mode() == PgwardConfig.Mode.READ_ONLY, allowExecute, tokens,
                login.policy().tables(), login.policy().rowCap());
    }

    private static boolean bool(ConfigSection section, String key) {
        String text = section.string(key, null);
        if (text == null) {
            return false;
        }
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ConfigException.at(section.keyPath(key), "must be true or false, " + section.was(key));
        };
    }
}
