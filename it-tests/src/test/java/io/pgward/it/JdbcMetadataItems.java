package io.pgward.it;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * pgjdbc's view of the catalog for CatalogOracleIT: the DatabaseMetaData methods tools call on the demo's
 * relations, ResultSetMetaData of queries on them, getObject on the column types drivers map specially, and
 * the same metadata calls with autocommit off, where a failure must not leave the transaction unusable for
 * anything but a rollback when PostgreSQL would not.
 */
final class JdbcMetadataItems {

    /** Every column each call returns, so a wrong REMARKS, default or key sequence shows. */
    private interface Call {
        ResultSet on(DatabaseMetaData md) throws SQLException;
    }

    private JdbcMetadataItems() {
    }

    static Map<String, String> run(Target target) throws SQLException {
        Map<String, Call> calls = new LinkedHashMap<>();
        calls.put("getTables", md -> md.getTables(null, null, "%", null));
        calls.put("getTables public", md -> md.getTables(null, "public", "%",
                new String[] {"TABLE", "VIEW", "MATERIALIZED VIEW", "INDEX", "SEQUENCE", "TYPE"}));
        calls.put("getColumns public", md -> md.getColumns(null, "public", "%", "%"));
        calls.put("getColumns orders", md -> md.getColumns(null, "public", "orders", "%"));
        calls.put("getPrimaryKeys orders", md -> md.getPrimaryKeys(null, "public", "orders"));
        calls.put("getPrimaryKeys order_items", md -> md.getPrimaryKeys(null, "public", "order_items"));
        calls.put("getImportedKeys orders", md -> md.getImportedKeys(null, "public", "orders"));
        calls.put("getImportedKeys order_items", md -> md.getImportedKeys(null, "public", "order_items"));
        calls.put("getExportedKeys customers", md -> md.getExportedKeys(null, "public", "customers"));
        calls.put("getCrossReference", md -> md.getCrossReference(null, "public", "customers", null, "public",
                "orders"));
        calls.put("getIndexInfo orders", md -> md.getIndexInfo(null, "public", "orders", false, false));
        calls.put("getIndexInfo customers unique", md -> md.getIndexInfo(null, "public", "customers", true, false));
        calls.put("getSchemas", DatabaseMetaData::getSchemas);
        calls.put("getCatalogs", DatabaseMetaData::getCatalogs);
        calls.put("getTableTypes", DatabaseMetaData::getTableTypes);
        calls.put("getTypeInfo", DatabaseMetaData::getTypeInfo);
        calls.put("getUDTs", md -> md.getUDTs(null, "public", "%", null));
        calls.put("getProcedures", md -> md.getProcedures(null, "public", "%"));
        calls.put("getFunctions", md -> md.getFunctions(null, "public", "%"));
        calls.put("getProcedureColumns", md -> md.getProcedureColumns(null, "public", "%", "%"));
        calls.put("getTablePrivileges", md -> md.getTablePrivileges(null, "public", "%"));
        calls.put("getColumnPrivileges orders", md -> md.getColumnPrivileges(null, "public", "orders", "%"));
        calls.put("getBestRowIdentifier orders", md -> md.getBestRowIdentifier(null, "public", "orders",
                DatabaseMetaData.bestRowSession, false));
        calls.put("getVersionColumns orders", md -> md.getVersionColumns(null, "public", "orders"));
        calls.put("getSuperTables", md -> md.getSuperTables(null, "public", "%"));
        calls.put("getPseudoColumns", md -> md.getPseudoColumns(null, "public", "%", "%"));
        calls.put("getTables hidden", md -> md.getTables(null, null, "%tokens%", null));
        calls.put("getColumns hidden", md -> md.getColumns(null, "hr", "%", "%"));

        Map<String, String> items = new LinkedHashMap<>();
        try (Connection c = target.connect()) {
            DatabaseMetaData md = c.getMetaData();
            for (Map.Entry<String, Call> call : calls.entrySet()) {
                items.put(call.getKey(), attempt(() -> rows(call.getValue().on(md))));
            }
            items.put("getSQLKeywords", attempt(md::getSQLKeywords));
            for (String relation : new String[] {"orders", "order_items", "v_sales", "mv_region_revenue"}) {
                items.put("ResultSetMetaData " + relation, attempt(() -> resultSetMetaData(c,
                        "SELECT * FROM " + relation + " LIMIT 1")));
            }
            items.put("getObject enum, interval, numeric, timestamptz", attempt(() -> objects(c)));
        }
        try (Connection c = target.connect()) {
            c.setAutoCommit(false);
            DatabaseMetaData md = c.getMetaData();
            items.put("autocommit off: getColumns orders", attempt(() -> rows(md.getColumns(null, "public", "orders",
                    "%"))));
            items.put("autocommit off: getPrimaryKeys orders", attempt(() -> rows(md.getPrimaryKeys(null, "public",
                    "orders"))));
            items.put("autocommit off: a query afterwards", attempt(() -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
                    rs.next();
                    return rs.getString(1);
                }
            }));
            c.rollback();
        }
        return items;
    }

    @FunctionalInterface
    private interface Produce {
        String get() throws SQLException;
    }

    private static String attempt(Produce produce) {
        try {
            return produce.get();
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState() + ": " + e.getMessage();
        }
    }

    /** Every row with every column, in the order pgjdbc returns them (the JDBC specification fixes it). */
    static String rows(ResultSet rs) throws SQLException {
        try (rs) {
            ResultSetMetaData md = rs.getMetaData();
            StringBuilder out = new StringBuilder();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                out.append(i > 1 ? "|" : "").append(md.getColumnLabel(i));
            }
            out.append('\n');
            int count = 0;
            while (rs.next()) {
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    out.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                out.append('\n');
                count++;
            }
            return out.append("(").append(count).append(" rows)").toString();
        }
    }

    private static String resultSetMetaData(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData md = rs.getMetaData();
            StringBuilder out = new StringBuilder();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                out.append(md.getColumnLabel(i)).append(": type ").append(md.getColumnTypeName(i))
                        .append(" (").append(md.getColumnType(i)).append(") class ").append(md.getColumnClassName(i))
                        .append(" table ").append(md.getSchemaName(i)).append('.').append(md.getTableName(i))
                        .append(" nullable ").append(md.isNullable(i)).append(" autoincrement ")
                        .append(md.isAutoIncrement(i)).append(" precision ").append(md.getPrecision(i))
                        .append(" scale ").append(md.getScale(i)).append(" size ").append(md.getColumnDisplaySize(i))
                        .append('\n');
            }
            return out.toString();
        }
    }

    private static String objects(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT status, "
                + "shipped_at - ordered_at AS took, total, ordered_at FROM orders WHERE shipped_at IS NOT NULL "
                + "ORDER BY id LIMIT 2")) {
            StringBuilder out = new StringBuilder();
            while (rs.next()) {
                for (int i = 1; i <= 4; i++) {
                    Object value = rs.getObject(i);
                    out.append(value == null ? "null" : value.getClass().getName() + " " + value).append(' ');
                }
                out.append('\n');
            }
            return out.toString();
        }
    }
}
