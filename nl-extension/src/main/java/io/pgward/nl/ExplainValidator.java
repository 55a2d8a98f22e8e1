package io.pgward.nl;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Asks PostgreSQL whether a generated query is valid by planning it: {@code EXPLAIN <query>} (never ANALYZE, so
 * nothing executes) in a read-only transaction that is always rolled back, as the login's role and with the
 * session's search_path, so names resolve exactly as they will when the query runs. The problem reported is
 * the database's primary message, which is what the model needs to correct the query.
 *
 * <p>Only one query is ever explained: text that is not exactly one SELECT/WITH/VALUES/TABLE query is rejected
 * before it reaches the database, so a second statement hidden after a semicolon is never sent.
 */
public final class ExplainValidator implements StatementValidator {

    private final JdbcConnections connections;
    private final Optional<String> role;
    private final Optional<String> searchPath;
    private final Duration timeout;

    /**
     * @param role the login's database role, or empty to run as the connection's own role
     * @param searchPath the session's search_path, or empty for the role's default
     */
    public ExplainValidator(JdbcConnections connections, Optional<String> role, Optional<String> searchPath,
                            Duration timeout) {
        this.connections = Objects.requireNonNull(connections, "connections");
        this.role = Objects.requireNonNull(role, "role");
        this.searchPath = Objects.requireNonNull(searchPath, "searchPath");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    @Override
    public Optional<String> problem(String sql) {
        QueryShape.Result shape = QueryShape.check(sql);
        if (shape instanceof QueryShape.Problem problem) {
            return Optional.of(problem.message());
        }
        String query = ((QueryShape.Query) shape).text();
        try {
            Transactions.readOnlyRolledBack(connections, role, searchPath, connection -> {
                try (PreparedStatement setting = connection.prepareStatement(
                        "SELECT pg_catalog.set_config('statement_timeout', ?, true)")) {
                    setting.setString(1, timeout.toMillis() + "ms");
                    setting.execute();
                }
                try (Statement explain = connection.createStatement()) {
                    // The text goes to the server as written: no JDBC {fn ...} escape rewriting.
                    explain.setEscapeProcessing(false);
                    explain.execute("EXPLAIN " + query);
                }
                return null;
            });
            return Optional.empty();
        } catch (SQLException e) {
            return Optional.of(DatabaseMessages.primary(e));
        }
    }
}
