package io.pgward.guard.selection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A transaction on a control connection that acts as the login's backend role and always rolls back.
 *
 * <p>The role is set with {@code set_config('role', ..., true)}, which is {@code SET LOCAL ROLE} with the name
 * passed as a value rather than spliced into SQL; it ends with the transaction. Privilege functions such as
 * has_any_column_privilege, and every read, then see what the role sees.
 */
final class RoleTransaction implements AutoCloseable {

    private final Connection connection;
    private final boolean autoCommit;

    private RoleTransaction(Connection connection, boolean autoCommit) {
        this.connection = connection;
        this.autoCommit = autoCommit;
    }

    /**
     * Begins the transaction.
     *
     * @param role the backend role, or null to stay the connection's user
     * @param readWrite {@code BEGIN TRANSACTION READ WRITE} (even where the role defaults to read-only
     *                  transactions) rather than {@code READ ONLY}
     */
    static RoleTransaction begin(Connection connection, String role, boolean readWrite) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (!autoCommit) {
            connection.rollback();
            connection.setAutoCommit(true);
        }
        RoleTransaction transaction = new RoleTransaction(connection, autoCommit);
        try (Statement statement = connection.createStatement()) {
            statement.execute(readWrite ? "BEGIN TRANSACTION READ WRITE" : "BEGIN TRANSACTION READ ONLY");
        }
        try {
            if (role != null && !role.equals(connection.getMetaData().getUserName())) {
                try (PreparedStatement set = connection.prepareStatement("SELECT pg_catalog.set_config('role', ?, true)")) {
                    set.setString(1, role);
                    set.execute();
                }
            }
        } catch (SQLException e) {
            transaction.close();
            throw e;
        }
        return transaction;
    }

    Connection connection() {
        return connection;
    }

    @Override
    public void close() throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("ROLLBACK");
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
