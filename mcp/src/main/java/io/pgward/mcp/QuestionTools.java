package io.pgward.mcp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;

/**
 * Seed 000's {@code get_data} and {@code get_sql}, answered by {@code pgward.ask} and {@code pgward.sql} on a
 * session of the caller's login: the prompt shows only the login's selection, and the generated SQL passes the
 * login's guard and EXPLAIN before it runs, exactly as for a psql user's question.
 */
final class QuestionTools {

    static final int DEFAULT_LIMIT = 250;
    static final int MAX_LIMIT = 25_000;
    private static final String RAN = "pgward ran this query for the question";
    private static final String NO_QUERY = "pgward could not write a valid query for this question";

    static final String GET_DATA = "get_data";
    static final String GET_DATA_DESCRIPTION = "Answers a question in plain language: an LLM writes the SQL, "
            + "pgward checks and runs it, and returns {\"valid\": true, \"sql\": ..., \"rows\": [...]} (default "
            + DEFAULT_LIMIT + " rows, at most " + String.format("%,d", MAX_LIMIT) + " with \"limit\"). When no query "
            + "can be run: {\"valid\": false, \"error\": ...} for SQL that failed the checks, or {\"valid\": false, "
            + "\"answer\": ...} when the question is not about the database." + Fence.NOTE;
    static final String GET_SQL = "get_sql";
    static final String GET_SQL_DESCRIPTION = "Writes the SQL for a question in plain language without running it: "
            + "{\"valid\": true, \"sql\": ...}, or {\"valid\": false, \"error\" or \"answer\": ...}.";

    private final Loopback loopback;
    private final String login;

    QuestionTools(Loopback loopback, String login) {
        this.loopback = loopback;
        this.login = login;
    }

    ObjectNode getData(Args args) {
        String question = question(args);
        Long limit = args.integer("limit");
        if (limit == null) {
            limit = (long) DEFAULT_LIMIT;
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new ToolError("limit must be between 1 and " + MAX_LIMIT + ".");
        }
        ObjectNode out = JsonRows.JSON.createObjectNode();
        try (Connection session = loopback.connect(login); Statement statement = session.createStatement()) {
            try (ResultSet rows = statement.executeQuery("SELECT * FROM pgward.ask(" + Identifiers.literal(question)
                    + ", " + limit + ")")) {
                String sql = ranSql(statement.getWarnings());
                ArrayNode list = JsonRows.JSON.createArrayNode();
                while (rows.next()) {
                    list.add(JsonRows.object(rows));
                }
                if (sql == null && rows.getMetaData().getColumnCount() == 1
                        && rows.getMetaData().getColumnLabel(1).equals("answer") && list.size() == 1) {
                    return out.put("valid", false).put("answer", list.get(0).path("answer").asText());
                }
                out.put("valid", true).put("sql", sql);
                out.set("rows", list);
                return out;
            }
        } catch (SQLException e) {
            String message = PsqlText.primary(e);
            if (message != null && message.startsWith(NO_QUERY)) {
                return out.put("valid", false).put("error", message);
            }
            throw new ToolError(PsqlText.of(e));
        }
    }

    ObjectNode getSql(Args args) {
        String question = question(args);
        try (Connection session = loopback.connect(login); Statement statement = session.createStatement();
             ResultSet rows = statement.executeQuery("SELECT * FROM pgward.sql(" + Identifiers.literal(question)
                     + ")")) {
            ObjectNode out = JsonRows.JSON.createObjectNode();
            if (rows.next()) {
                boolean valid = rows.getBoolean("valid");
                out.put("valid", valid);
                put(out, "sql", rows.getString("sql"));
                if (!valid) {
                    put(out, "error", rows.getString("error"));
                    put(out, "answer", rows.getString("answer"));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new ToolError(PsqlText.of(e));
        }
    }

    private static void put(ObjectNode out, String field, String value) {
        if (value != null) {
            out.put(field, value);
        }
    }

    private static String question(Args args) {
        String question = args.text("question", "query", "text");
        if (question == null || question.isBlank()) {
            throw new ToolError("question is required: what to ask of the database, in plain language.");
        }
        return question;
    }

    /** The generated SQL from pgward's NOTICE: its first line says so, the SQL follows. */
    private static String ranSql(SQLWarning warning) {
        for (SQLWarning w = warning; w != null; w = w.getNextWarning()) {
            String text = w.getMessage();
            if (text != null && text.startsWith(RAN)) {
                int newline = text.indexOf('\n');
                return newline < 0 ? null : text.substring(newline + 1);
            }
        }
        return null;
    }
}
