package io.pgward.mcp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Seed 000's {@code get_schema}, {@code refresh_schema} and {@code dialect}, from {@code pgward.schema},
 * {@code pgward.refresh_schema} and {@code pgward.dialect} on a session of the caller's login: only what the
 * login may read is ever named.
 */
final class SchemaTools {

    static final String GET_SCHEMA = "get_schema";
    static final String GET_SCHEMA_DESCRIPTION = "The tables and views this login may read, with columns, types, "
            + "primary keys and foreign keys: {\"tables\": [{\"name\", \"kind\", \"columns\": [{\"name\", \"type\", "
            + "\"not_null\", \"comment\"}], \"primary_key\": [...], \"foreign_keys\": [{\"column\", "
            + "\"references\"}]}]}."
            + " Optional argument table: one table or view." + Fence.NOTE;
    static final String REFRESH_SCHEMA = "refresh_schema";
    static final String REFRESH_SCHEMA_DESCRIPTION = "Reads the schema again from the database (after tables were "
            + "created or altered) and returns it as get_schema does, with \"refreshed_at\" (UTC)." + Fence.NOTE;
    static final String DIALECT = "dialect";
    static final String DIALECT_DESCRIPTION = "The SQL dialect of this database: {\"dialect\": \"postgres\"}.";

    private final Loopback loopback;
    private final String login;

    SchemaTools(Loopback loopback, String login) {
        this.loopback = loopback;
        this.login = login;
    }

    ObjectNode getSchema(Args args) {
        String table = args.text("table", "name", "relation");
        try (Connection session = loopback.connect(login)) {
            return schema(session, table);
        } catch (SQLException e) {
            throw ToolError.fromDatabase(PsqlText.of(e));
        }
    }

    ObjectNode refreshSchema() {
        try (Connection session = loopback.connect(login)) {
            String refreshedAt;
            try (Statement statement = session.createStatement();
                 ResultSet rows = statement.executeQuery("SELECT pgward.refresh_schema()")) {
                rows.next();
                refreshedAt = rows.getString(1);
            }
            ObjectNode out = schema(session, null);
            out.put("refreshed_at", refreshedAt);
            return out;
        } catch (SQLException e) {
            throw ToolError.fromDatabase(PsqlText.of(e));
        }
    }

    ObjectNode dialect() {
        try (Connection session = loopback.connect(login); Statement statement = session.createStatement();
             ResultSet rows = statement.executeQuery("SELECT pgward.dialect()")) {
            rows.next();
            return (ObjectNode) JsonRows.JSON.readTree(rows.getString(1));
        } catch (SQLException e) {
            throw ToolError.fromDatabase(PsqlText.of(e));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new ToolError("pgward.dialect() did not answer JSON: " + e.getOriginalMessage());
        }
    }

    static final String GET_SCHEMA_ARANGO_DESCRIPTION = "The multi-model schema of this ArangoDB database that this "
            + "login may read: {\"collections\": [{\"name\", \"kind\", ...}], \"graphs\": [...], \"views\": "
            + "[...]}. Optional argument collection: one collection (with the graphs and views it takes part in)."
            + Fence.NOTE;
    static final String DIALECT_ARANGO_DESCRIPTION = "The query language of this database: {\"dialect\": "
            + "\"arango\"}.";

    /** pgward.schema on an ArangoDB database: rows of kind, name and definition (JSON), grouped by kind. */
    ObjectNode getArangoSchema(Args args) {
        String collection = args.text("collection", "name");
        String call = collection == null ? "SELECT * FROM pgward.schema()"
                : "SELECT * FROM pgward.schema(" + Identifiers.literal(collection) + ")";
        ObjectNode out = JsonRows.JSON.createObjectNode();
        ArrayNode collections = out.putArray("collections");
        ArrayNode graphs = out.putArray("graphs");
        ArrayNode views = out.putArray("views");
        try (Connection session = loopback.connect(login); Statement statement = session.createStatement();
             ResultSet rows = statement.executeQuery(call)) {
            while (rows.next()) {
                String kind = rows.getString("kind");
                ObjectNode entry = JsonRows.JSON.createObjectNode().put("name", rows.getString("name"));
                String definition = rows.getString("definition");
                if (definition != null) {
                    try {
                        entry.set("definition", JsonRows.JSON.readTree(definition));
                    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                        entry.put("definition", definition);
                    }
                }
                switch (kind) {
                    case "graph" -> graphs.add(entry);
                    case "view" -> views.add(entry);
                    default -> collections.add(entry.put("kind", kind));
                }
            }
            return out;
        } catch (SQLException e) {
            throw ToolError.fromDatabase(PsqlText.of(e));
        }
    }

    private static ObjectNode schema(Connection session, String table) throws SQLException {
        String call = table == null ? "SELECT * FROM pgward.schema()"
                : "SELECT * FROM pgward.schema(" + Identifiers.literal(table) + ")";
        ObjectNode out = JsonRows.JSON.createObjectNode();
        ArrayNode tables = out.putArray("tables");
        ObjectNode current = null;
        try (Statement statement = session.createStatement(); ResultSet rows = statement.executeQuery(call)) {
            while (rows.next()) {
                String relation = rows.getString("relation");
                if (current == null || !current.path("name").asText().equals(relation)) {
                    current = tables.addObject().put("name", relation).put("kind", rows.getString("kind"));
                    current.putArray("columns");
                    current.putArray("primary_key");
                    current.putArray("foreign_keys");
                }
                String column = rows.getString("column_name");
                ObjectNode c = ((ArrayNode) current.get("columns")).addObject().put("name", column)
                        .put("type", rows.getString("data_type")).put("not_null", rows.getBoolean("not_null"));
                if (rows.getString("comment") != null) {
                    c.put("comment", rows.getString("comment"));
                }
                if (rows.getBoolean("primary_key")) {
                    ((ArrayNode) current.get("primary_key")).add(column);
                }
                if (rows.getString("references") != null) {
                    ((ArrayNode) current.get("foreign_keys")).addObject().put("column", column)
                            .put("references", rows.getString("references"));
                }
            }
        }
        return out;
    }
}
