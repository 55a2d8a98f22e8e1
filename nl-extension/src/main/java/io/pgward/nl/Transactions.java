package io.pgward.nl;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * The one way this module touches the database: a read-only transaction that is always rolled back, running
 * as the login's role with the session's search_path. Role and search_path go in as bind parameters of
 * set_config, never spliced into SQL text.
 */
final class Transactions {

    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    private Transactions() {
    }

    static <T> T readOnlyRolledBack(JdbcConnections connections, Optional<String> role, Optional<String> searchPath,
                                    Work<T> work) throws SQLException {
        return readOnlyRolledBack(connections, "READ ONLY", role, searchPath, work);
    }

    /**
     * One snapshot for every statement: the reflection's catalog reads then agree with each other even while DDL
     * runs concurrently.
     */
    static <T> T repeatableReadRolledBack(JdbcConnections connections, Optional<String> role, Work<T> work)
            throws SQLException {
        return readOnlyRolledBack(connections, "ISOLATION LEVEL REPEATABLE READ, READ ONLY", role, Optional.empty(),
                work);
    }

    private static <T> T readOnlyRolledBack(JdbcConnections connections, String mode, Optional<String> role,
                                            Optional<String> searchPath, Work<T> work) throws SQLException {
        try (Connection connection = connections.open()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET TRANSACTION " + mode);
                }
                if (role.isPresent()) {
                    setLocal(connection, "role", role.get());
                }
                if (searchPath.isPresent()) {
                    setLocal(connection, "search_path", searchPath.get());
                }
                return work.run(connection);
            } finally {
                connection.rollback();
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    private static void setLocal(Connection connection, String setting, String value) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT pg_catalog.set_config(?, ?, true)")) {
            statement.setString(1, setting);
            statement.setString(2, value);
            statement.execute();
        }
    }
}
