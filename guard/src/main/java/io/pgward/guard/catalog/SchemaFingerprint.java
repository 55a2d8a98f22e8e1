package io.pgward.guard.catalog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A cheap summary of the catalog rows verdicts depend on. Any CREATE, ALTER, DROP, GRANT or REPLACE of a
 * relation, view, function, type, domain, operator, cast, schema, policy, column, trigger, default, collation or
 * sequence ownership inserts, updates or deletes a row of these catalogs, and each of those changes the row count
 * or the sum of the rows' xmin (a new row version always gets a new transaction id). Superuser changes of roles
 * count too: they decide the user-function rule. Statistics updates (VACUUM, ANALYZE) write pg_class in place,
 * without a new xmin, and do not count.
 */
final class SchemaFingerprint {

    private static final String[] CATALOGS = {"pg_class", "pg_namespace", "pg_proc", "pg_type", "pg_operator",
            "pg_rewrite", "pg_policy", "pg_constraint", "pg_cast", "pg_language"};
    static final String QUERY;
    /**
     * PostgreSQL creates a backend slot's temporary schemas the first time a session there creates a temporary
     * object (a control connection does when it is set up), and keeps them: a new one hides nothing any verdict
     * resolved, while what is then created in it changes pg_class, pg_type or pg_proc.
     */
    private static final String NOT_TEMPORARY = " WHERE nspname OPERATOR(pg_catalog.!~~) 'pg\\_temp\\_%' "
            + "AND nspname OPERATOR(pg_catalog.!~~) 'pg\\_toast\\_temp\\_%'";
    /**
     * Each control connection commits a function in its own temporary schema once (PreparedReads keeps the
     * schema); that is not a change any verdict depends on: no other session finds another session's temporary
     * function by name.
     */
    private static final String NOT_A_KEEPER = " WHERE NOT (proname OPERATOR(pg_catalog.=) '"
            + PreparedReads.SCHEMA_KEEPER + "' AND pronamespace IN (SELECT oid FROM pg_catalog.pg_namespace "
            + "WHERE nspname OPERATOR(pg_catalog.~~) 'pg\\_temp\\_%'))";

    static {
        StringBuilder sql = new StringBuilder("SELECT pg_catalog.concat_ws('/'");
        for (String catalog : CATALOGS) {
            sql.append(",\n (SELECT pg_catalog.count(*)::pg_catalog.text || ':' || "
                    + "coalesce(pg_catalog.sum(xmin::pg_catalog.text::pg_catalog.int8), 0) FROM pg_catalog.")
                    .append(catalog).append(catalog.equals("pg_proc") ? NOT_A_KEEPER
                            : catalog.equals("pg_namespace") ? NOT_TEMPORARY : "").append(')');
        }
        // Columns of user relations only: the index on attrelid keeps this a range scan.
        sql.append(",\n (SELECT pg_catalog.count(*)::pg_catalog.text || ':' || "
                + "coalesce(pg_catalog.sum(xmin::pg_catalog.text::pg_catalog.int8), 0) "
                + "FROM pg_catalog.pg_attribute WHERE attrelid OPERATOR(pg_catalog.>=) 16384)");
        // User rows only of the catalogs the visible sets of a selection also read (VisibleSets): triggers and
        // defaults can change without touching pg_class, a sequence's OWNED BY only changes pg_depend, and a
        // collation's owner only pg_collation. Index range scans on oid and on pg_depend's (classid, objid).
        for (String catalog : new String[] {"pg_trigger", "pg_attrdef", "pg_collation"}) {
            sql.append(",\n (SELECT pg_catalog.count(*)::pg_catalog.text || ':' || "
                    + "coalesce(pg_catalog.sum(xmin::pg_catalog.text::pg_catalog.int8), 0) FROM pg_catalog.")
                    .append(catalog).append(" WHERE oid OPERATOR(pg_catalog.>=) 16384)");
        }
        sql.append(",\n (SELECT pg_catalog.count(*)::pg_catalog.text || ':' || "
                + "coalesce(pg_catalog.sum(xmin::pg_catalog.text::pg_catalog.int8), 0) FROM pg_catalog.pg_depend "
                + "WHERE classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
                + "AND objid OPERATOR(pg_catalog.>=) 16384)");
        sql.append(",\n (SELECT pg_catalog.array_agg(oid ORDER BY oid)::pg_catalog.text FROM pg_catalog.pg_roles "
                + "WHERE rolsuper))");
        QUERY = sql.toString();
    }

    private SchemaFingerprint() {
    }

    static String read(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(QUERY)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
