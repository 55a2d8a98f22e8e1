package io.pgward.guard.selection;

import io.pgward.guard.SqlStates;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code SELECT * FROM pgward.describe('name')}: one relation's columns, keys, relationships, definition and value
 * samples, read as the login's backend role.
 *
 * <p>With a selection, the name must lead to a selected relation that exists ({@link RelationLookup}), and
 * relationships only involve selected relations. Without one, any relation {@link RelationList} would list can be
 * described, and relationships involve every relation the role can read.
 *
 * <p>Everything runs in one transaction that always rolls back. It starts READ WRITE, even for a role whose
 * transactions default to read only, because the sample checks create a temporary view; it turns read only before
 * any sample runs ({@link ValueSampler}). On a read-only standby it starts read only and samples nothing. Result
 * columns: {@code field text, value text}, see {@link Description#toRows()}.
 */
public final class RelationDescriber {

    public static final List<String> COLUMNS = List.of("field", "value");

    static final int DEFINITION_LIMIT = 4000;

    private static final String RELATION_SQL = """
            SELECT pg_catalog.obj_description(c.oid, 'pg_class'),
                   CASE WHEN c.relkind IN ('v', 'm') THEN pg_catalog.pg_get_viewdef(c.oid) END
            FROM pg_catalog.pg_class c WHERE c.oid = ?""";

    private static final String COLUMNS_SQL = """
            SELECT quote_ident(a.attname), pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
                   pg_catalog.col_description(a.attrelid, a.attnum), %s
            FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attnum""".formatted(ValueSampler.QUALIFYING_TYPE);

    private static final String PRIMARY_KEY_SQL = """
            SELECT quote_ident(a.attname)
            FROM pg_catalog.pg_constraint k
            CROSS JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(attnum, ord)
            JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum
            WHERE k.conrelid = ? AND k.contype = 'p'
            ORDER BY u.ord""";

    /** Other relations are kept when selected (?::oid[] set) or, without a selection, readable by the role. */
    private static final String IN_SCOPE = """
            (CASE WHEN ?::oid[] IS NULL THEN pg_catalog.has_any_column_privilege(%1$s, 'SELECT')
                  ELSE %1$s = ANY (?::oid[]) END)""";

    private static final String FOREIGN_KEYS_SQL = """
            SELECT %s, %s, %s, %s, k.conrelid, k.confrelid
            FROM pg_catalog.pg_constraint k
            WHERE k.contype = 'f' AND k.conparentid = 0 AND (k.conrelid = ? OR k.confrelid = ?)
              AND %s AND %s
            ORDER BY k.conrelid <> ?, k.conname COLLATE "C"
            """.formatted(displayName("k.conrelid"), keyColumns("k.conrelid", "k.conkey"),
            displayName("k.confrelid"), keyColumns("k.confrelid", "k.confkey"),
            IN_SCOPE.formatted("k.conrelid"), IN_SCOPE.formatted("k.confrelid"));

    private static final String READS_SQL = """
            SELECT DISTINCT d.refobjid, %s
            FROM pg_catalog.pg_rewrite r
            JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid = r.oid
            JOIN pg_catalog.pg_class c ON c.oid = d.refobjid
            WHERE r.ev_class = ? AND r.rulename = '_RETURN'
              AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid <> r.ev_class
              AND c.relkind IN %s AND %s
            """.formatted(displayName("d.refobjid"), RelationKind.RELKINDS_SQL, IN_SCOPE.formatted("d.refobjid"));

    private static final String READ_BY_SQL = """
            SELECT DISTINCT r.ev_class, %s
            FROM pg_catalog.pg_depend d
            JOIN pg_catalog.pg_rewrite r ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.objid = r.oid
            JOIN pg_catalog.pg_class c ON c.oid = r.ev_class
            WHERE d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid = ?
              AND r.rulename = '_RETURN' AND r.ev_class <> d.refobjid AND c.relkind IN ('v', 'm') AND %s
            """.formatted(displayName("r.ev_class"), IN_SCOPE.formatted("r.ev_class"));

    private final ValueSampler sampler;

    /** @param riskyDomains the risky-domain check every sample statement must pass; see {@link RiskyDomains} */
    public RelationDescriber(RiskyDomains riskyDomains) {
        this.sampler = new ValueSampler(Objects.requireNonNull(riskyDomains, "riskyDomains"),
                ValueSampler.TEMPORARY_VIEW);
    }

    /**
     * Describes the relation {@code name} names.
     *
     * @param connection a control connection on the primary or a standby; left in autocommit as it was found
     * @param role the login's backend role, or null for the connection's own user
     * @param selection the login's resolved selection; {@link ResolvedSelection#NONE} for none
     * @param name {@code name} or {@code schema.name}, identifiers quoted where PostgreSQL needs it
     */
    public DescribeResult describe(Connection connection, String role, ResolvedSelection selection, String name)
            throws SQLException {
        if (selection.noneExists()) {
            return DescribeResult.Refused.of(SqlStates.INSUFFICIENT_PRIVILEGE, ResolvedSelection.NONE_EXISTS_MESSAGE);
        }
        boolean standby = inRecovery(connection);
        try (RoleTransaction transaction = RoleTransaction.begin(connection, role, !standby)) {
            RelationLookup.Result found = RelationLookup.find(connection, selection, name);
            return switch (found) {
                case RelationLookup.NotFound notFound -> notFound.refusal();
                case RelationLookup.Found f -> new DescribeResult.Described(
                        describe(transaction, selection, f.relation(), standby));
            };
        }
    }

    private Description describe(RoleTransaction transaction, ResolvedSelection selection, SelectedRelation relation,
                                 boolean standby) throws SQLException {
        Connection connection = transaction.connection();
        Optional<String> comment = Optional.empty();
        Optional<String> definition = Optional.empty();
        try (PreparedStatement statement = connection.prepareStatement(RELATION_SQL)) {
            statement.setLong(1, relation.oid());
            try (ResultSet row = statement.executeQuery()) {
                if (row.next()) {
                    comment = Optional.ofNullable(row.getString(1));
                    definition = Optional.ofNullable(row.getString(2)).map(RelationDescriber::cut);
                }
            }
        }
        List<String> columns = new ArrayList<>();
        List<String> sampled = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(COLUMNS_SQL)) {
            statement.setLong(1, relation.oid());
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    String column = rows.getString(1);
                    String columnComment = rows.getString(4);
                    columns.add(column + " " + rows.getString(2) + (rows.getBoolean(3) ? " not null" : "")
                            + (columnComment == null ? "" : " -- " + columnComment));
                    if (rows.getBoolean(5)) {
                        sampled.add(column);
                    }
                }
            }
        }
        List<String> primaryKey = strings(connection, PRIMARY_KEY_SQL, relation.oid());
        List<String> relationships = new ArrayList<>(foreignKeys(connection, selection, relation.oid()));
        relationships.addAll(related(connection, READS_SQL, selection, relation.oid(), "reads "));
        relationships.addAll(related(connection, READ_BY_SQL, selection, relation.oid(), "read by "));
        Map<String, List<String>> values = standby || !relation.kind().isSampled()
                ? Map.of()
                : sampler.sample(connection, Map.of(relation.displayName(), sampled))
                        .getOrDefault(relation.displayName(), Map.of());
        return new Description(relation.displayName(), relation.kind().label(), comment, columns, primaryKey,
                relationships, definition, values);
    }

    private static List<String> foreignKeys(Connection connection, ResolvedSelection selection, long oid)
            throws SQLException {
        List<String> keys = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(FOREIGN_KEYS_SQL)) {
            statement.setLong(1, oid);
            statement.setLong(2, oid);
            int next = setScope(statement, 3, selection);
            next = setScope(statement, next, selection);
            statement.setLong(next, oid);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    keys.add(rows.getString(1) + "(" + rows.getString(2) + ") -> "
                            + rows.getString(3) + "(" + rows.getString(4) + ")");
                }
            }
        }
        return keys;
    }

    /** Related relations in selection order, or by name without a selection. */
    private static List<String> related(Connection connection, String sql, ResolvedSelection selection, long oid,
                                        String prefix) throws SQLException {
        record Related(long oid, String name) {
        }
        List<Related> related = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, oid);
            setScope(statement, 2, selection);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    related.add(new Related(rows.getLong(1), rows.getString(2)));
                }
            }
        }
        related.sort(selection.isSet()
                ? Comparator.comparingInt(r -> selection.relations().indexOf(selection.byOid(r.oid()).orElseThrow()))
                : Comparator.comparing(Related::name));
        return related.stream().map(r -> prefix + r.name()).toList();
    }

    private static int setScope(PreparedStatement statement, int index, ResolvedSelection selection)
            throws SQLException {
        String oids = selection.isSet() ? selection.oidArrayLiteral() : null;
        statement.setObject(index, oids, Types.VARCHAR);
        statement.setObject(index + 1, oids, Types.VARCHAR);
        return index + 2;
    }

    private static List<String> strings(Connection connection, String sql, long oid) throws SQLException {
        List<String> strings = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, oid);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    strings.add(rows.getString(1));
                }
            }
        }
        return strings;
    }

    private static boolean inRecovery(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT pg_catalog.pg_is_in_recovery()")) {
            row.next();
            return row.getBoolean(1);
        }
    }

    static String cut(String text) {
        if (text.codePointCount(0, text.length()) <= DEFINITION_LIMIT) {
            return text;
        }
        return text.substring(0, text.offsetByCodePoints(0, DEFINITION_LIMIT));
    }

    private static String displayName(String oidExpression) {
        return ("(SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = %s)")
                .formatted(oidExpression);
    }

    private static String keyColumns(String relation, String keys) {
        return ("pg_catalog.array_to_string(ARRAY(SELECT quote_ident(a.attname) FROM unnest(%2$s) WITH ORDINALITY"
                + " AS u(attnum, ord) JOIN pg_catalog.pg_attribute a ON a.attrelid = %1$s AND a.attnum = u.attnum"
                + " ORDER BY u.ord), ', ')").formatted(relation, keys);
    }
}
