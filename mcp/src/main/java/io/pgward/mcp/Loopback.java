package io.pgward.mcp;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PostgreSQL sessions through pgward's agent listener, a few per login: each tool call borrows one, so what it
 * runs is judged and relayed by pgward exactly as a psql user's statement of that login.
 */
final class Loopback implements AutoCloseable {

    static final String APPLICATION_NAME = "pgward-mcp";
    private static final int MAX_POOL_SIZE = 4;
    private static final int VALIDATION_SECONDS = 5;

    private final AgentDoor door;
    private final boolean pooled;
    private final Map<String, HikariDataSource> pools = new ConcurrentHashMap<>();

    /**
     * @param pooled false for a database pgward answers itself (ArangoDB): it has no transaction isolation or
     *               empty query for a pool's checks, and a session there holds no backend worth keeping
     */
    Loopback(AgentDoor door, boolean pooled) {
        this.door = door;
        this.pooled = pooled;
    }

    /** A session of {@code login}, autocommit on; the caller closes it. */
    Connection connect(String login) throws SQLException {
        if (!pooled) {
            java.util.Properties props = new java.util.Properties();
            props.setProperty("user", login);
            props.setProperty("password", door.secret());
            props.setProperty("ApplicationName", APPLICATION_NAME);
            props.setProperty("sslmode", "disable");
            return java.sql.DriverManager.getConnection(door.jdbcUrl(), props);
        }
        HikariDataSource pool = pools.computeIfAbsent(login, this::pool);
        // A pooled session pgward ended meanwhile (a reload that narrowed the login ends its idle sessions with
        // 57P01) is dropped here rather than failing the agent's call: the next one logs in under the new policy.
        for (int attempt = 0; attempt < MAX_POOL_SIZE; attempt++) {
            Connection session = pool.getConnection();
            if (session.isValid(VALIDATION_SECONDS)) {
                return session;
            }
            pool.evictConnection(session);
        }
        return pool.getConnection();
    }

    private HikariDataSource pool(String login) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("pgward-mcp-" + login);
        config.setJdbcUrl(door.jdbcUrl());
        config.setUsername(login);
        config.setPassword(door.secret());
        config.addDataSourceProperty("ApplicationName", APPLICATION_NAME);
        // Loopback to this process: TLS would protect nothing, and SCRAM never sends the secret itself.
        config.addDataSourceProperty("sslmode", "disable");
        // execute's string params: PostgreSQL infers their type from the statement, as for a literal.
        config.addDataSourceProperty("stringtype", "unspecified");
        config.setMaximumPoolSize(MAX_POOL_SIZE);
        config.setMinimumIdle(0);
        config.setIdleTimeout(60_000);
        config.setConnectionTimeout(15_000);
        // pgward may start before its database answers: the pool connects on first use, never at construction.
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    @Override
    public void close() {
        pools.values().forEach(HikariDataSource::close);
        pools.clear();
    }
}
