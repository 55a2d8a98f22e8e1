package io.pgward.it;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Everything a refused statement might have changed, as comparable text: each table's rows, each sequence's
 * position, large objects, relations, functions, database and role settings, and extensions.
 */
final class FixtureState {

    private FixtureState() {
    }

    static Map<String, String> capture(Connection connection) throws SQLException {
        Map<String, String> state = new LinkedHashMap<>();
        try (Statement s = connection.createStatement()) {
            try (ResultSet rs = s.executeQuery("""
                    SELECT format('%I.%I', n.nspname, c.relname), c.relkind
                    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
                      AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
                    ORDER BY 1""")) {
                StringBuilder relations = new StringBuilder();
                Map<String, String> tables = new LinkedHashMap<>();
                while (rs.next()) {
                    relations.append(rs.getString(1)).append(':').append(rs.getString(2)).append(' ');
                    if ("r".equals(rs.getString(2)) || "m".equals(rs.getString(2)) || "S".equals(rs.getString(2))) {
                        tables.put(rs.getString(1), rs.getString(2));
                    }
                }
                state.put("relations", relations.toString());
                for (Map.Entry<String, String> table : tables.entrySet()) {
                    state.put("rows " + table.getKey(), single(s, "S".equals(table.getValue())
                            ? "SELECT last_value || '/' || is_called FROM " + table.getKey()
                            : "SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') FROM "
                                    + table.getKey() + " t"));
                }
            }
            state.put("large objects", single(s, "SELECT count(*) || ':' || coalesce(md5(string_agg("
                    + "encode(lo_get(oid), 'hex'), ',' ORDER BY oid)), '') FROM pg_largeobject_metadata"));
            // Not the function each of pgward's catalog-check connections keeps in its own temporary schema.
            state.put("functions", single(s, "SELECT count(*) FROM pg_proc WHERE pronamespace NOT IN "
                    + "('pg_catalog'::regnamespace, 'information_schema'::regnamespace) AND NOT (proname = "
                    + "'pgward_keeps_temporary_schema' AND pronamespace::regnamespace::text LIKE 'pg\\_temp\\_%')"));
            state.put("settings", single(s, "SELECT coalesce(string_agg(array_to_string(setconfig, ','), ';'), '') "
                    + "FROM pg_db_role_setting"));
            state.put("extensions", single(s, "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension"));
            state.put("roles", single(s, "SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles"));
        }
        return state;
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
