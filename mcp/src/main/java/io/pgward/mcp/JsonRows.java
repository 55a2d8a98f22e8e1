package io.pgward.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import org.postgresql.util.PGobject;

/**
 * Result rows as JSON: numbers and booleans as JSON numbers and booleans, json and jsonb as JSON, everything else
 * as PostgreSQL's text form of the value (what psql shows), SQL NULL as null.
 */
final class JsonRows {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonRows() {
    }

    /** The current row as an object keyed by column name (a later duplicate name wins, as in most drivers). */
    static ObjectNode object(ResultSet rows) throws SQLException {
        ResultSetMetaData meta = rows.getMetaData();
        ObjectNode row = NODES.objectNode();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            row.set(meta.getColumnLabel(i), value(rows, meta, i));
        }
        return row;
    }

    /** The current row as an array in column order, duplicate names kept. */
    static ArrayNode array(ResultSet rows) throws SQLException {
        ResultSetMetaData meta = rows.getMetaData();
        ArrayNode row = NODES.arrayNode();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            row.add(value(rows, meta, i));
        }
        return row;
    }

    /**
     * By the Java class pgjdbc decodes the value to, never by {@code getColumnTypeName}: that would have pgjdbc
     * query the catalog for every result (to tell serial from integer).
     */
    static JsonNode value(ResultSet rows, ResultSetMetaData meta, int i) throws SQLException {
        Object value = rows.getObject(i);
        return switch (value) {
            case null -> NODES.nullNode();
            case Boolean b -> NODES.booleanNode(b);
            case Short n -> NODES.numberNode(n);
            case Integer n -> NODES.numberNode(n);
            case Long n -> NODES.numberNode(n);
            case java.math.BigDecimal n -> NODES.numberNode(n);
            // NaN and Infinity have no JSON number: they stay text.
            case Double d when Double.isFinite(d) -> NODES.numberNode(new java.math.BigDecimal(rows.getString(i)));
            case Float f when Float.isFinite(f) -> NODES.numberNode(new java.math.BigDecimal(rows.getString(i)));
            case PGobject o when "json".equals(o.getType()) || "jsonb".equals(o.getType()) -> json(o.getValue());
            default -> NODES.textNode(rows.getString(i));
        };
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return NODES.textNode(text);
        }
    }
}
