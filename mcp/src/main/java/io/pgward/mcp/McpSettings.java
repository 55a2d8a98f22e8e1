package io.pgward.mcp;

import java.util.List;
import java.util.Map;

/**
 * The {@code mcp:} section: where Streamable HTTP listens, the database the tools query, the rows of one page,
 * and which pgward logins agents may act as, each with the hashes of its bearer tokens ({@link TokenHash}).
 *
 * @param host     the HTTP listener's address; null when only stdio is used
 * @param pageRows rows of one {@code query} page (at most the login's row cap)
 * @param sessionIdle how long a session {@code begin} opened may go without a call before it is rolled back
 * @param arango   {@code database} is an ArangoDB database pgward serves: seed 002's tools instead of the SQL ones
 */
public record McpSettings(String host, int port, String database, int pageRows, Map<String, AgentLogin> logins,
                          boolean arango, java.time.Duration sessionIdle) {

    /** How long a session {@code begin} opened may go without a call before it is rolled back. */
    public static final java.time.Duration DEFAULT_SESSION_IDLE = java.time.Duration.ofMinutes(5);

    public static final int DEFAULT_PAGE_ROWS = 100;
    public static final String PATH = "/mcp";

    public McpSettings {
        logins = Map.copyOf(logins);
    }

    /** Settings for a PostgreSQL database. */
    public McpSettings(String host, int port, String database, int pageRows, Map<String, AgentLogin> logins) {
        this(host, port, database, pageRows, logins, false, DEFAULT_SESSION_IDLE);
    }

    public McpSettings(String host, int port, String database, int pageRows, Map<String, AgentLogin> logins,
                       boolean arango) {
        this(host, port, database, pageRows, logins, arango, DEFAULT_SESSION_IDLE);
    }

    public McpSettings withSessionIdle(java.time.Duration idle) {
        return new McpSettings(host, port, database, pageRows, logins, arango, idle);
    }

    /** The same for {@code database}, one of the ArangoDB databases pgward serves when {@code arango}. */
    public McpSettings forDatabase(String name, boolean isArango) {
        return new McpSettings(host, port, name, pageRows, logins, isArango, sessionIdle);
    }

    /**
     * One pgward login as agents see it.
     *
     * @param readOnly     the login's mode (execute and the transaction tools need a read-write login)
     * @param allowExecute the raw-SQL tools of seed 000, for read-write logins only
     * @param selection    the login's table selection as configured, for the {@code query} description
     * @param rowCap       the login's row cap, 0 for none
     */
    public record AgentLogin(String name, boolean readOnly, boolean allowExecute, List<String> tokenHashes,
                             List<String> selection, long rowCap) {
        public AgentLogin {
            tokenHashes = List.copyOf(tokenHashes);
            selection = List.copyOf(selection);
        }
    }
}
