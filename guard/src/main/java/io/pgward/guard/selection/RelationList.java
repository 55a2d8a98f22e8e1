package io.pgward.guard.selection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code SELECT * FROM pgward.relations()}: the tables and views a login can read.
 *
 * <p>Every table, partitioned table, foreign table, view and materialized view the login's backend role can SELECT
 * (table privilege or a privilege on any column), outside pg_catalog, information_schema and the other pg_
 * schemas, partitions left out, at most {@value #CAP}. Materialized views come first, then views, then tables
 * (foreign tables among them), each group sorted by schema and then name in byte order. With a selection, only
 * the selected relations that exist and that the role can SELECT, in the same order.
 *
 * <p>Result columns, all text:
 * <ul>
 *   <li>{@code name}: {@code schema.name}, identifiers quoted where PostgreSQL needs it ({@code "Sales 2026".daily})</li>
 *   <li>{@code kind}: table, foreign table, view or materialized view (a partitioned table is a table)</li>
 *   <li>{@code description}: kind, column count and comment joined with " · ", e.g.
 *       {@code table · 7 columns · People and companies who buy from the shop.}; no comment, no third part</li>
 * </ul>
 */
public final class RelationList {

    public static final int CAP = 2000;

    public static final List<String> COLUMNS = List.of("name", "kind", "description");

    private static final String SQL = """
            SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname), c.relkind::text,
                   (SELECT count(*) FROM pg_catalog.pg_attribute a
                    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
                   pg_catalog.obj_description(c.oid, 'pg_class')
            FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN """ + RelationKind.RELKINDS_SQL + """

              AND CASE WHEN ?::oid[] IS NULL
                       THEN NOT c.relispartition AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
                       ELSE c.oid = ANY (?::oid[]) END
              AND pg_catalog.has_any_column_privilege(c.oid, 'SELECT')
            ORDER BY CASE c.relkind WHEN 'm' THEN 0 WHEN 'v' THEN 1 ELSE 2 END,
                     n.nspname COLLATE "C", c.relname COLLATE "C"
            LIMIT""" + " " + CAP;

    private RelationList() {
    }

    /**
     * Lists the relations as {@code role} sees them.
     *
     * @param connection a control connection; left in autocommit as it was found
     * @param role the login's backend role, or null for the connection's own user
     * @param selection the login's resolved selection; {@link ResolvedSelection#NONE} for none
     */
    public static LocalRows list(Connection connection, String role, ResolvedSelection selection) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        if (selection.noneExists()) {
            return new LocalRows(COLUMNS, rows);
        }
        try (RoleTransaction transaction = RoleTransaction.begin(connection, role, false);
             PreparedStatement statement = transaction.connection().prepareStatement(SQL)) {
            String oids = selection.isSet() ? selection.oidArrayLiteral() : null;
            statement.setObject(1, oids, Types.VARCHAR);
            statement.setObject(2, oids, Types.VARCHAR);
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    String kind = RelationKind.of(result.getString(2)).label();
                    rows.add(List.of(result.getString(1), kind,
                            description(kind, result.getLong(3), result.getString(4))));
                }
            }
        }
        return new LocalRows(COLUMNS, rows);
    }

    static String description(String kind, long columns, String comment) {
        String text = kind + " · " + columns + (columns == 1 ? " column" : " columns");
        return comment == null || comment.isEmpty() ? text : text + " · " + comment;
    }
}
