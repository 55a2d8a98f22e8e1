package io.pgward.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Seed 000's answers lane as a tool, {@code insert_rows}: structured rows into a table, on a session of a
 * read-write login through pgward, one transaction per batch.
 * <ul>
 *   <li>A table that does not exist is created from the batch's keys (first appearance order), each typed by
 *       its first non-null value: text, bigint, double precision; booleans are stored as 0/1 (integer), lists
 *       and objects as JSON text; a column with only nulls is text.</li>
 *   <li>Keys match columns case-insensitively; a key no column has is dropped; a column a row does not carry is
 *       NULL, unless PostgreSQL fills it itself: an identity, serial or DEFAULT column, a generated column, or a
 *       primary-key column (a BEFORE INSERT trigger may fill it) is left out of the statement. A null for a
 *       column PostgreSQL fills counts as not carried.</li>
 *   <li>A failure rolls the whole batch back:
 *       {@code Insert into "<table>" failed: <PostgreSQL's primary message>}.</li>
 * </ul>
 */
final class InsertRows {

    static final String NAME = "insert_rows";
    static final String DESCRIPTION = "Inserts structured rows into a table in one transaction: {\"table\": name, "
            + "\"rows\": [{column: value}]} → {\"inserted\": N, \"created\": bool}. A missing table is created from "
            + "the rows; keys match columns case-insensitively; columns PostgreSQL fills itself (identity, DEFAULT, "
            + "generated, a trigger-filled key) are left to it when a row omits them or gives null.";

    /**
     * @param filled PostgreSQL fills it (identity, serial or DEFAULT, generated): left out when absent or null
     * @param key    a primary-key column: left out when absent, so a trigger can fill it
     */
    private record Column(String name, boolean filled, boolean key) {
    }

    private final Loopback loopback;
    private final String login;

    InsertRows(Loopback loopback, String login) {
        this.loopback = loopback;
        this.login = login;
    }

    ObjectNode call(Args args) {
        String table = args.text("table");
        if (table == null || table.isBlank()) {
            throw new ToolError("table is required.");
        }
        if (!(args.raw("rows") instanceof List<?> rows) || rows.isEmpty()
                || !rows.stream().allMatch(r -> r instanceof Map<?, ?>)) {
            throw new ToolError("rows must be a non-empty array of objects.");
        }
        try (Connection session = loopback.connect(login)) {
            session.setAutoCommit(false);
            try {
                List<Column> columns = columns(session, table);
                boolean created = columns.isEmpty();
                if (created) {
                    columns = create(session, table, rows);
                }
                for (Object row : rows) {
                    insert(session, table, columns, (Map<?, ?>) row);
                }
                session.commit();
                return JsonRows.JSON.createObjectNode().put("inserted", rows.size()).put("created", created);
            } catch (SQLException e) {
                session.rollback();
                throw ToolError.fromDatabase("Insert into \"" + table + "\" failed: " + PsqlText.primary(e));
            } catch (RuntimeException e) {
                session.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw ToolError.fromDatabase("Insert into \"" + table + "\" failed: " + PsqlText.primary(e));
        }
    }

    /** The table's columns in order; empty when there is no such table in the search path. */
    private static List<Column> columns(Connection session, String table) throws SQLException {
        String sql = """
                SELECT a.attname, a.attidentity <> '' OR a.attgenerated <> '' OR a.atthasdef,
                       coalesce(a.attnum = ANY (i.indkey::int2[]), false)
                FROM pg_catalog.pg_attribute a
                LEFT JOIN pg_catalog.pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
                WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum""";
        List<Column> columns = new ArrayList<>();
        try (PreparedStatement statement = session.prepareStatement(sql)) {
            statement.setString(1, qualified(table));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    columns.add(new Column(rows.getString(1), rows.getBoolean(2), rows.getBoolean(3)));
                }
            }
        }
        return columns;
    }

    private static List<Column> create(Connection session, String table, List<?> rows) throws SQLException {
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, String> names = new LinkedHashMap<>();
        for (Object row : rows) {
            for (Map.Entry<?, ?> field : ((Map<?, ?>) row).entrySet()) {
                String key = String.valueOf(field.getKey());
                String folded = key.toLowerCase(Locale.ROOT);
                names.putIfAbsent(folded, key);
                if (types.get(folded) == null) {
                    types.put(folded, type(field.getValue()));
                }
            }
        }
        List<String> definitions = new ArrayList<>();
        List<Column> columns = new ArrayList<>();
        names.forEach((folded, key) -> {
            definitions.add(identifier(key) + " " + (types.get(folded) == null ? "text" : types.get(folded)));
            columns.add(new Column(key, false, false));
        });
        try (var statement = session.createStatement()) {
            statement.execute("CREATE TABLE " + qualified(table) + " (" + String.join(", ", definitions) + ")");
        }
        return columns;
    }

    private static String type(Object value) {
        return switch (value) {
            case null -> null;
            case Boolean b -> "integer";
            case Integer n -> "bigint";
            case Long n -> "bigint";
            case Number n -> "double precision";
            default -> "text";
        };
    }

    private static void insert(Connection session, String table, List<Column> columns, Map<?, ?> row)
            throws SQLException {
        Map<String, Object> byName = new LinkedHashMap<>();
        row.forEach((key, value) -> byName.putIfAbsent(String.valueOf(key).toLowerCase(Locale.ROOT), value));
        List<String> names = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        for (Column column : columns) {
            String folded = column.name().toLowerCase(Locale.ROOT);
            Object value = byName.get(folded);
            if (column.filled() && value == null || column.key() && !byName.containsKey(folded)) {
                continue;
            }
            names.add(identifier(column.name()));
            values.add(value);
        }
        String sql = names.isEmpty() ? "INSERT INTO " + qualified(table) + " DEFAULT VALUES"
                : "INSERT INTO " + qualified(table) + " (" + String.join(", ", names) + ") VALUES ("
                        + String.join(", ", java.util.Collections.nCopies(names.size(), "?")) + ")";
        try (PreparedStatement statement = session.prepareStatement(sql)) {
            for (int i = 0; i < values.size(); i++) {
                bind(statement, i + 1, values.get(i));
            }
            statement.executeUpdate();
        }
    }

    private static void bind(PreparedStatement statement, int index, Object value) throws SQLException {
        switch (value) {
            case null -> statement.setNull(index, Types.OTHER);
            case Boolean b -> statement.setInt(index, b ? 1 : 0);
            case Integer n -> statement.setLong(index, n);
            case Long n -> statement.setLong(index, n);
            case BigDecimal n -> statement.setBigDecimal(index, n);
            case Number n -> statement.setBigDecimal(index, new BigDecimal(n.toString()));
            case String s -> statement.setString(index, s);
            default -> statement.setString(index, JsonRows.JSON.valueToTree(value).toString());
        }
    }

    /** {@code name} or {@code schema.name}, each part a quoted identifier as given. */
    private static String qualified(String table) {
        int dot = table.indexOf('.');
        return dot < 0 ? identifier(table)
                : identifier(table.substring(0, dot)) + "." + identifier(table.substring(dot + 1));
    }

    private static String identifier(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
