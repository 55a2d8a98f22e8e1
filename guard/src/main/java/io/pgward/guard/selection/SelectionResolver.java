package io.pgward.guard.selection;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves a {@link SelectedNames} to the relations that exist now, by exact catalog name (no search_path: every
 * selected name is schema-qualified). Call it when the configuration loads and again after schema changes; a
 * table dropped and re-created under the same name resolves to its new oid.
 *
 * <p>A name that does not exist, or names something other than a table, partitioned table, foreign table, view or
 * materialized view, is left out with a warning. Privileges are not consulted here: a selected relation the role
 * cannot read stays selected, and PostgreSQL refuses the read.
 *
 * <p>With the relations it reads their {@link VisibleCatalog} ({@link VisibleSets}), in the same snapshot: on a
 * connection in autocommit both queries run in one REPEATABLE READ, READ ONLY transaction, so the sets describe
 * exactly the relations resolved; so do their {@link VisibleNames}. A connection already in a transaction is used as it is.
 */
public final class SelectionResolver {

    private static final Logger LOG = LoggerFactory.getLogger(SelectionResolver.class);

    private static final String SQL = """
            SELECT w.ord, c.oid, n.nspname, c.relname, c.relkind::text,
                   quote_ident(n.nspname) || '.' || quote_ident(c.relname),
                   array(SELECT quote_ident(a.attname) FROM pg_catalog.pg_attribute a
                         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum)
            FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS w(nspname, relname, ord)
            LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = w.nspname
            LEFT JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = w.relname
                 AND c.relkind IN """ + RelationKind.RELKINDS_SQL + """

            ORDER BY w.ord""";

    private SelectionResolver() {
    }

    /** Resolves {@code selection}; an empty selection resolves to {@link ResolvedSelection#NONE} without a query. */
    public static ResolvedSelection resolve(Connection connection, SelectedNames selection) throws SQLException {
        if (selection.isEmpty()) {
            return ResolvedSelection.NONE;
        }
        if (!connection.getAutoCommit()) {
            return resolveInTransaction(connection, selection);
        }
        execute(connection, "BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        ResolvedSelection resolved;
        try {
            resolved = resolveInTransaction(connection, selection);
        } catch (SQLException | RuntimeException e) {
            try {
                execute(connection, "ROLLBACK");
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        }
        execute(connection, "COMMIT");
        return resolved;
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static ResolvedSelection resolveInTransaction(Connection connection, SelectedNames selection)
            throws SQLException {
        List<SelectedRelation> relations = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        try (PreparedStatement statement = connection.prepareStatement(SQL)) {
            statement.setArray(1, connection.createArrayOf("text",
                    selection.names().stream().map(n -> n.schema().orElseThrow()).toArray()));
            statement.setArray(2, connection.createArrayOf("text",
                    selection.names().stream().map(RelationName::name).toArray()));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    int index = rows.getInt(1) - 1;
                    long oid = rows.getLong(2);
                    if (rows.wasNull()) {
                        missing.add(selection.texts().get(index));
                    } else if (seen.add(oid)) {
                        relations.add(new SelectedRelation(oid, rows.getString(3), rows.getString(4),
                                RelationKind.of(rows.getString(5)), rows.getString(6), strings(rows.getArray(7))));
                    }
                }
            }
        }
        for (String name : missing) {
            LOG.warn("Selected table or view {} does not exist; it is left out of the selection", name);
        }
        if (relations.isEmpty()) {
            LOG.warn("None of the selected tables or views exist: every statement of this login is refused");
        }
        VisibleCatalog visible = VisibleSets.read(connection,
                OidSet.of(relations.stream().mapToLong(SelectedRelation::oid).toArray()));
        return new ResolvedSelection(relations, missing, relations.isEmpty(), visible,
                VisibleNames.read(connection, visible));
    }

    static List<String> strings(Array array) throws SQLException {
        try {
            return List.of((String[]) array.getArray());
        } finally {
            array.free();
        }
    }
}
