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

    static final String GET_AQL = "get_aql";
    static final String GET_AQL_DESCRIPTION = "Writes read-only AQL for a question in plain language without running "
            + "it: {\"valid\": true, \"aql\": ...}, or {\"valid\": false, \"error\" or \"answer\": ...}.";
    static final String GET_DATA_ARANGO_DESCRIPTION = "Answers a question in plain language about this ArangoDB "
            + "database: an LLM writes read-only AQL, pgward checks its plan and runs it, and returns {\"valid\": "
            + "true, \"aql\": ..., \"rows\": [...]} (default " + DEFAULT_LIMIT + " rows, at most "
            + String.format("%,d", MAX_LIMIT) + " with \"limit\"), or {\"valid\": false, \"error\" or "
            + "\"answer\": ...}." + Fence.NOTE;
    private static final String AQL_NOTICE = "AQL: ";

    private final Loopback loopback;
    private final String login;
    /** An ArangoDB database: the query language is AQL, and rows are JSON documents. */
    private final boolean arango;

    QuestionTools(Loopback loopback, String login, boolean arango) {
        this.loopback = loopback;
        this.login = login;
        this.arango = arango;
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
                    list.add(arango ? documents(JsonRows.object(rows)) : JsonRows.object(rows));
                }
                if (sql == null && rows.getMetaData().getColumnCount() == 1
                        && rows.getMetaData().getColumnLabel(1).equals("answer") && list.size() == 1) {
                    return out.put("valid", false).put("answer", list.get(0).path("answer").asText());
                }
                out.put("valid", true).put(arango ? "aql" : "sql", sql);
                out.set("rows", list);
                return out;
            }
        } catch (SQLException e) {
            String message = PsqlText.primary(e);
            if (message != null && message.startsWith(NO_QUERY)) {
                return out.put("valid", false).put("error", message);
            }
            throw ToolError.fromDatabase(PsqlText.of(e));
        }
    }

    ObjectNode getSql(Args args) {
        String question = question(args);
        try (Connection session = loopback.connect(login); Statement statement = session.createStatement();
             ResultSet rows = statement.executeQuery("SELECT * FROM pgward." + (arango ? "aql" : "sql") + "("
                     + Identifiers.literal(question) + ")")) {
            ObjectNode out = JsonRows.JSON.createObjectNode();
            if (rows.next()) {
                boolean valid = rows.getBoolean("valid");
                out.put("valid", valid);
                String language = arango ? "aql" : "sql";
                put(out, language, rows.getString(language));
                if (!valid) {
                    put(out, "error", rows.getString("error"));
                    put(out, "answer", rows.getString("answer"));
                }
            }
            return out;
        } catch (SQLException e) {
            throw ToolError.fromDatabase(PsqlText.of(e));
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

    /** ArangoDB's values arrive as text columns holding JSON: they go back to the agent as JSON. */
    private static ObjectNode documents(ObjectNode row) {
        java.util.List<String> names = new java.util.ArrayList<>();
        row.fieldNames().forEachRemaining(names::add);
        for (String name : names) {
            if (row.get(name).isTextual()) {
                try {
                    row.set(name, JsonRows.JSON.readTree(row.get(name).asText()));
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    // a bare string stays text
                }
            }
        }
        return row;
    }

    /**
     * The generated query from pgward's NOTICE: for SQL its first line says so and the SQL follows; for AQL the
     * notice is {@code AQL: <aql>}.
     */
    private String ranSql(SQLWarning warning) {
        for (SQLWarning w = warning; w != null; w = w.getNextWarning()) {
            String text = w.getMessage();
            if (arango && text != null && text.startsWith(AQL_NOTICE)) {
                return text.substring(AQL_NOTICE.length());
            }
            if (text != null && text.startsWith(RAN)) {
                int newline = text.indexOf('\n');
                return newline < 0 ? null : text.substring(newline + 1);
            }
        }
        return null;
    }
}
