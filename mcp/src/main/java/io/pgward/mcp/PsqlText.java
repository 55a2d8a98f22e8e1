package io.pgward.mcp;

import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * An error as psql prints it ({@code ERROR:  ...}, {@code DETAIL:  ...}, {@code HINT:  ...}), without the LINE
 * echo.
 */
final class PsqlText {

    private PsqlText() {
    }

    static String of(SQLException e) {
        ServerErrorMessage server = e instanceof PSQLException p ? p.getServerErrorMessage() : null;
        if (server == null || server.getMessage() == null) {
            return "ERROR:  " + e.getMessage();
        }
        StringBuilder text = new StringBuilder(server.getSeverity() == null ? "ERROR" : server.getSeverity())
                .append(":  ").append(server.getMessage());
        if (server.getDetail() != null) {
            text.append("\nDETAIL:  ").append(server.getDetail());
        }
        if (server.getHint() != null) {
            text.append("\nHINT:  ").append(server.getHint());
        }
        return text.toString();
    }

    /** PostgreSQL's primary message alone: no statement echo, LINE, DETAIL, HINT or CONTEXT. */
    static String primary(SQLException e) {
        ServerErrorMessage server = e instanceof PSQLException p ? p.getServerErrorMessage() : null;
        return server == null || server.getMessage() == null ? e.getMessage() : server.getMessage();
    }

    static String sqlState(SQLException e) {
        return e.getSQLState();
    }
}
