package io.pgward.mcp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Seed 003's {@code describe}, answered by {@code pgward.describe(name)} on a session of the caller's login, so
 * the selection check, the value samples and their safety checks are the wire path's. Its field/value rows
 * become one JSON object: name, kind, comment, columns, primaryKey, relationships, definition, values.
 */
final class Describe {

    static final String NAME = "describe";
    static final String DESCRIPTION = "Describes one of the selected tables or views: {\"name\", \"kind\", "
            + "\"comment\", \"columns\": [\"<column> <type>[ not null][ -- <comment>]\"], \"primaryKey\", "
            + "\"relationships\", \"definition\" (views), \"values\": {column: [sample values]}}. Argument: name "
            + "(or relation, table, view), with or without the schema." + Fence.NOTE;

    private final Loopback loopback;
    private final String login;

    Describe(Loopback loopback, String login) {
        this.loopback = loopback;
        this.login = login;
    }

    ObjectNode call(Args args) {
        String name = args.text("name", "relation", "table", "view");
        if (name == null || name.isBlank()) {
            throw new ToolError("name is required: a selected table or view.");
        }
        try (Connection session = loopback.connect(login)) {
            return describe(session, name);
        } catch (SQLException e) {
            throw ToolError.fromDatabase(PsqlText.of(e));
        }
    }

    static ObjectNode describe(Connection session, String name) throws SQLException {
        ObjectNode out = JsonRows.JSON.createObjectNode();
        try (Statement statement = session.createStatement();
             ResultSet rows = statement.executeQuery("SELECT * FROM pgward.describe(" + Identifiers.literal(name)
                     + ")")) {
            while (rows.next()) {
                String field = rows.getString(1);
                String value = rows.getString(2);
                switch (field) {
                    case "columns", "relationships" -> list(out, field).add(value);
                    case "primaryKey" -> {
                        ArrayNode key = list(out, field);
                        Identifiers.commaList(value).forEach(key::add);
                    }
                    case "values" -> sample(out, value);
                    default -> out.put(field, value);
                }
            }
        }
        if (!out.has("columns")) {
            out.set("columns", JsonRows.JSON.createArrayNode());
        }
        return out;
    }

    private static ArrayNode list(ObjectNode out, String field) {
        return out.has(field) ? (ArrayNode) out.get(field) : out.putArray(field);
    }

    /** {@code <column>: ["a", "b"]} into {@code values: {column: ["a", "b"]}}. */
    private static void sample(ObjectNode out, String value) {
        int length = Identifiers.leadingLength(value, ':');
        String column = value.substring(0, length);
        String rest = value.substring(length);
        if (!rest.startsWith(": ")) {
            return;
        }
        ObjectNode values = out.has("values") ? (ObjectNode) out.get("values") : out.putObject("values");
        try {
            values.set(column, JsonRows.JSON.readTree(rest.substring(2)));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // a sample pgward did not write as JSON is left out, as a failed sample is
        }
    }
}
