package io.pgward.mcp;

/**
 * How pgward's MCP server reaches pgward's own wire listener: a loopback address whose logins open only with
 * {@code secret}, a random value the running server made and holds in memory alone (never configured, logged or
 * written). Every tool call is a PostgreSQL session through that door, so it passes the same startup, guard,
 * row cap, timeout and audit as a psql user's statement.
 */
public record AgentDoor(String host, int port, String database, String secret) {

    public String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    @Override
    public String toString() {
        return "AgentDoor[" + host + ":" + port + "/" + database + ", secret=***]";
    }
}
