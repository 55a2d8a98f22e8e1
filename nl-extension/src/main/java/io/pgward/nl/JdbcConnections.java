package io.pgward.nl;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where reflection and EXPLAIN get a connection; the caller closes it. A pool's {@code getConnection} fits.
 * The connection's own role should be one that can {@code SET ROLE} to the login's database role, so that
 * everything runs with that role's privileges.
 */
@FunctionalInterface
public interface JdbcConnections {

    Connection open() throws SQLException;
}
