package io.pgward.nl;

import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** The database's own primary message of a failure, without pgjdbc's decoration or the server's DETAIL/HINT. */
final class DatabaseMessages {

    private DatabaseMessages() {
    }

    static String primary(SQLException e) {
        if (e instanceof PSQLException psql) {
            ServerErrorMessage server = psql.getServerErrorMessage();
            if (server != null && server.getMessage() != null) {
                return server.getMessage();
            }
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
