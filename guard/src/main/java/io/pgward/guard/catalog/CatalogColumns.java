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
 * The columns of the {@link CoveredCatalog covered catalogs} on one server, in attnum order, as the filter subqueries
 * list them: the column list differs between PostgreSQL 14 and 18, and a subquery must give {@code *} the same
 * columns in the same order as the catalog itself. Read once per login from the server (the catalogs' own columns
 * change only with the server version).
 */
public final class CatalogColumns {

    /** No columns read: nothing is covered, and nothing is rewritten or proven. */
    public static final CatalogColumns NONE = new CatalogColumns(Map.of(), Map.of(), Map.of());

    /** pg_catalog's aclitem[] type (pg_type.dat; fixed): ACL columns are served masked ({@link AclMask}). */
    static final long ACLITEM_ARRAY = 1034;

    /** The object-identifier types whose output resolves an OID to a name (pg_type.dat; fixed). */
    static final String OBJECT_IDENTIFIER_TYPES = "{24,2202,2203,2204,2205,2206,3734,3769,4089,4096,4191}";

    /**
     * @param acl the column holds an ACL ({@code aclitem[]}), which names roles the login may not see
     * @param objectIdentifier the column is of a reg* type (pg_type's typinput, pg_am's amhandler, ...): L3 refuses
     *                         those types with a selection, so a subquery carries such a column only when the
     *                         statement may use it
     */
    record Column(String name, int attnum, boolean acl, boolean objectIdentifier) {
        Column(String name, int attnum, boolean acl) {
            this(name, attnum, acl, false);
        }
    }

    private static final String QUERY = "SELECT c.oid, c.relname::pg_catalog.text, a.attname::pg_catalog.text, "
            + "c.relkind OPERATOR(pg_catalog.=) 'r', "
            + "a.attnum, a.atttypid OPERATOR(pg_catalog.=) " + ACLITEM_ARRAY
            + ", a.atttypid OPERATOR(pg_catalog.=) ANY ('" + OBJECT_IDENTIFIER_TYPES + "'::pg_catalog.oid[])"
            + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.oid"
            + " WHERE c.relnamespace OPERATOR(pg_catalog.=) 11"
            + " AND c.relname OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.name[]))"
            + " AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum";

    private final Map<String, Long> relids;
    private final Map<String, List<Column>> columns;
    /** Per catalog: whether it is a table, which has system columns ({@code tableoid}, ...); pg_roles is a view. */
    private final Map<String, Boolean> tables;

    private CatalogColumns(Map<String, Long> relids, Map<String, List<Column>> columns, Map<String, Boolean> tables) {
        this.relids = relids;
        this.columns = columns;
        this.tables = tables;
    }

    /** Reads the covered catalogs' columns; every name is schema-qualified, whatever the connection's search_path. */
    public static CatalogColumns read(Connection connection) throws SQLException {
        Map<String, Long> relids = new LinkedHashMap<>();
        Map<String, List<Column>> columns = new LinkedHashMap<>();
        Map<String, Boolean> tables = new LinkedHashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(QUERY)) {
            ps.setArray(1, connection.createArrayOf("text", Arrays.stream(CoveredCatalog.values())
                    .map(CoveredCatalog::relation).toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    relids.put(rs.getString(2), rs.getLong(1));
                    tables.put(rs.getString(2), rs.getBoolean(4));
                    columns.computeIfAbsent(rs.getString(2), k -> new ArrayList<>())
                            .add(new Column(rs.getString(3), rs.getInt(5), rs.getBoolean(6),
                                    rs.getBoolean(7)));
                }
            }
        }
        columns.replaceAll((k, v) -> List.copyOf(v));
        return new CatalogColumns(Collections.unmodifiableMap(relids), Collections.unmodifiableMap(columns),
                Collections.unmodifiableMap(tables));
    }

    /** Columns given by hand (tests): per catalog name its OID and its columns in attnum order; all tables. */
    static CatalogColumns of(Map<String, Long> relids, Map<String, List<Column>> columns) {
        Map<String, List<Column>> copy = new LinkedHashMap<>();
        columns.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        Map<String, Boolean> tables = new LinkedHashMap<>();
        relids.keySet().forEach(k -> tables.put(k, true));
        return new CatalogColumns(Map.copyOf(relids), Collections.unmodifiableMap(copy), tables);
    }

    /** Whether the catalog is a table (with system columns) rather than a view. */
    boolean table(String relation) {
        return tables.getOrDefault(relation, false);
    }

    /** The catalog's OID, or 0 when it was not read. */
    long relid(String relation) {
        return relids.getOrDefault(relation, 0L);
    }

    /** The catalog's columns in attnum order, empty when it was not read. */
    List<Column> columns(String relation) {
        return columns.getOrDefault(relation, List.of());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CatalogColumns that && relids.equals(that.relids) && columns.equals(that.columns)
                && tables.equals(that.tables);
    }

    @Override
    public int hashCode() {
        return columns.hashCode();
    }

    @Override
    public String toString() {
        return "CatalogColumns" + columns.keySet();
    }
}
