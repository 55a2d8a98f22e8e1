package io.pgward.mcp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Seed 003's {@code query}: one statement, its rows as JSON, a page at a time. A capped result says
 * {@code truncated: true} and carries a page line ({@code summary}) and a {@code cursor} for the next page.
 *
 * <p>Each call is one read-only transaction on a session of the caller's login through pgward, always rolled
 * back. Rows come from PostgreSQL a page at a time (a portal with a fetch size no larger than the login's row
 * cap), so a page beyond the first re-runs the statement and skips the rows of the pages before it.
 */
final class QueryTool {

    static final String NAME = "query";

    private final Loopback loopback;
    private final McpSettings.AgentLogin login;
    private final int pageRows;

    QueryTool(Loopback loopback, McpSettings.AgentLogin login, int pageRows) {
        this.loopback = loopback;
        this.login = login;
        this.pageRows = (int) Math.max(1, login.rowCap() > 0 ? Math.min(pageRows, login.rowCap()) : pageRows);
    }

    static final String BASE_DESCRIPTION = "Runs one read-only SQL statement (PostgreSQL) and returns its rows as "
            + "JSON: {\"rows\": [...], \"truncated\": bool}. A result larger than one page has \"truncated\": true, "
            + "a \"summary\" line naming the next page and a \"cursor\": call query again with that cursor (and "
            + "optionally \"page\") to read on. Page numbers are stable only when the statement has an ORDER BY. "
            + "Refusals are returned as errors with the text a psql user would get." + Fence.NOTE;

    ObjectNode call(Args args) {
        String sql = args.text("sql", "statement", "query");
        String cursorText = args.text("cursor");
        Long page = args.integer("page");
        if (cursorText != null) {
            Cursor cursor = Cursor.decode(cursorText);
            if (sql != null && !sql.equals(cursor.sql())) {
                throw new ToolError("Give either a statement or a cursor, not both.");
            }
            sql = cursor.sql();
            if (page == null) {
                page = cursor.nextPage();
            }
        }
        if (sql == null || sql.isBlank()) {
            throw new ToolError("sql is required: one SQL statement.");
        }
        if (page == null) {
            page = 1L;
        }
        if (page < 1 || page > Integer.MAX_VALUE) {
            throw new ToolError("page must be 1 or more.");
        }
        oneStatement(sql);
        try (Connection session = loopback.connect(login.name())) {
            session.setAutoCommit(false);
            session.setReadOnly(true);
            try (Statement statement = session.createStatement()) {
                statement.setFetchSize(pageRows);
                return statement.execute(sql) ? page(sql, page, statement.getResultSet())
                        : JsonRows.JSON.createObjectNode().<ObjectNode>set("rows", JsonRows.JSON.createArrayNode())
                                .put("truncated", false);
            } finally {
                session.rollback();
            }
        } catch (SQLException e) {
            throw ToolError.fromDatabase(PsqlText.of(e));
        }
    }

    private ObjectNode page(String sql, long page, ResultSet rows) throws SQLException {
        long skip = (page - 1) * pageRows;
        long seen = 0;
        while (seen < skip && rows.next()) {
            seen++;
        }
        ArrayNode out = JsonRows.JSON.createArrayNode();
        while (out.size() < pageRows && rows.next()) {
            out.add(JsonRows.object(rows));
        }
        boolean more = out.size() == pageRows && rows.next();
        ObjectNode result = JsonRows.JSON.createObjectNode();
        result.set("rows", out);
        result.put("truncated", more);
        long first = skip + 1;
        long last = skip + out.size();
        if (more) {
            result.put("summary", "Page " + page + ": rows " + first + " to " + last + ". More rows follow: call "
                    + "query with this cursor for page " + (page + 1) + ".");
            result.put("cursor", new Cursor(sql, page + 1).encode());
        } else if (page > 1 && out.isEmpty()) {
            result.put("summary", "Page " + page + " is past the end: the result has " + seen + " rows.");
        } else if (page > 1) {
            result.put("summary", "Page " + page + ": rows " + first + " to " + last + ", the last page.");
        }
        return result;
    }

    /** The guard's lexer splits as the server does; the server would run every statement of a longer text. */
    private static void oneStatement(String sql) {
        int statements;
        try {
            statements = SqlLexer.split(sql, true).size();
        } catch (LexerException e) {
            return; // pgward refuses it on the wire with PostgreSQL's own error
        }
        if (statements == 0) {
            throw new ToolError("sql is required: one SQL statement.");
        }
        if (statements > 1) {
            throw new ToolError("query runs one statement at a time; this text holds " + statements + ".");
        }
    }
}
