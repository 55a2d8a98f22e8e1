package io.pgward.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;

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

    static JsonNode value(ResultSet rows, ResultSetMetaData meta, int i) throws SQLException {
        String text = rows.getString(i);
        if (text == null) {
            return NODES.nullNode();
        }
        switch (meta.getColumnType(i)) {
            case Types.SMALLINT, Types.INTEGER, Types.BIGINT -> {
                return NODES.numberNode(Long.parseLong(text));
            }
            case Types.NUMERIC, Types.DECIMAL, Types.REAL, Types.DOUBLE, Types.FLOAT -> {
                // NaN and Infinity have no JSON number: they stay text.
                try {
                    return NODES.numberNode(new java.math.BigDecimal(text));
                } catch (NumberFormatException e) {
                    return NODES.textNode(text);
                }
            }
            case Types.BOOLEAN, Types.BIT -> {
                if (meta.getColumnTypeName(i).equals("bool")) {
                    return NODES.booleanNode(rows.getBoolean(i));
                }
                return NODES.textNode(text);
            }
            default -> {
                String type = meta.getColumnTypeName(i);
                if (type.equals("json") || type.equals("jsonb")) {
                    try {
                        return JSON.readTree(text);
                    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                        return NODES.textNode(text);
                    }
                }
                return NODES.textNode(text);
            }
        }
    }
}
