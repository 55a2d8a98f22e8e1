package io.pgward.guard.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns of the {@link FilteredView filtered views} on one server, in attnum order: information_schema and the
 * system views differ between PostgreSQL 14 and 18, and a filter subquery must give {@code *} the view's columns in
 * the view's order. Only built-in views ({@code oid < 16384}) are read: an information_schema dropped and created
 * again is user code and stays refused.
 */
public final class ViewColumns {

    /** No columns read: no view is filtered. */
    public static final ViewColumns NONE = new ViewColumns(Map.of(), Map.of());

    /**
     * @param type the column's type, schema-qualified and quoted, for a NULL of it
     * @param objectIdentifier the column is of a reg* type (pg_sequences' data_type), carried only when named
     */
    record Column(String name, int attnum, String type, boolean objectIdentifier) {
    }

    private static final String QUERY = "SELECT n.nspname::pg_catalog.text || '.' || c.relname::pg_catalog.text, "
            + "c.oid, a.attname::pg_catalog.text, a.attnum, pg_catalog.quote_ident(tn.nspname) || '.' || "
            + "pg_catalog.quote_ident(t.typname), a.atttypid OPERATOR(pg_catalog.=) ANY ('"
            + CatalogColumns.OBJECT_IDENTIFIER_TYPES + "'::pg_catalog.oid[])"
            + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
            + " JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.oid"
            + " JOIN pg_catalog.pg_type t ON t.oid OPERATOR(pg_catalog.=) a.atttypid"
            + " JOIN pg_catalog.pg_namespace tn ON tn.oid OPERATOR(pg_catalog.=) t.typnamespace"
            + " WHERE c.oid OPERATOR(pg_catalog.<) 16384 AND c.relkind OPERATOR(pg_catalog.=) 'v'"
            + " AND (n.nspname::pg_catalog.text || '.' || c.relname::pg_catalog.text) OPERATOR(pg_catalog.=) "
            + "ANY (CAST(? AS pg_catalog.text[]))"
            + " AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped ORDER BY c.oid, a.attnum";

    private final Map<String, Long> relids;
    private final Map<String, List<Column>> columns;

    private ViewColumns(Map<String, Long> relids, Map<String, List<Column>> columns) {
        this.relids = relids;
        this.columns = columns;
    }

    /** Reads the filtered views' columns; names are schema-qualified, whatever the connection's search_path. */
    public static ViewColumns read(Connection connection) throws SQLException {
        Map<String, Long> relids = new LinkedHashMap<>();
        Map<String, List<Column>> columns = new LinkedHashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(QUERY)) {
            ps.setArray(1, connection.createArrayOf("text", Arrays.stream(FilteredView.values())
                    .map(ViewColumns::qualified).toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    relids.put(rs.getString(1), rs.getLong(2));
                    columns.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new Column(rs.getString(3),
                            rs.getInt(4), rs.getString(5), rs.getBoolean(6)));
                }
            }
        }
        columns.replaceAll((k, v) -> List.copyOf(v));
        return new ViewColumns(Collections.unmodifiableMap(relids), Collections.unmodifiableMap(columns));
    }

    static String qualified(FilteredView view) {
        return view.schema() + "." + view.relation();
    }

    /** The view's OID, or 0 when it was not read. */
    long relid(FilteredView view) {
        return relids.getOrDefault(qualified(view), 0L);
    }

    /** The view's columns in attnum order, empty when it was not read. */
    List<Column> columns(FilteredView view) {
        return columns.getOrDefault(qualified(view), List.of());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ViewColumns that && relids.equals(that.relids) && columns.equals(that.columns);
    }

    @Override
    public int hashCode() {
        return columns.hashCode();
    }

    @Override
    public String toString() {
        return "ViewColumns" + columns.keySet();
    }
}
