package io.pgward.guard.selection;

import io.pgward.guard.SqlStates;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the relation a describe argument names. The argument is {@code name} or {@code schema.name} read with
 * PostgreSQL's identifier rules; a bare name matches a relation of that name in any schema and must match exactly
 * one. With a selection only selected relations that exist are candidates; without one, every relation
 * {@link RelationList} would list.
 */
final class RelationLookup {

    static final String UNDEFINED_TABLE = SqlStates.UNDEFINED_TABLE;
    static final String AMBIGUOUS = SqlStates.AMBIGUOUS_ALIAS;

    private static final String READABLE_SQL = """
            SELECT c.oid, n.nspname, c.relname, c.relkind::text, quote_ident(n.nspname) || '.' || quote_ident(c.relname)
            FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN """ + RelationKind.RELKINDS_SQL + """

              AND NOT c.relispartition AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
              AND c.relname = ? AND (?::name IS NULL OR n.nspname = ?::name)
              AND pg_catalog.has_any_column_privilege(c.oid, 'SELECT')
            ORDER BY n.nspname COLLATE "C\"""";

    sealed interface Result {
    }

    record Found(SelectedRelation relation) implements Result {
    }

    record NotFound(DescribeResult.Refused refusal) implements Result {
    }

    private RelationLookup() {
    }

    static Result find(Connection connection, ResolvedSelection selection, String argument) throws SQLException {
        Optional<RelationName> name = parse(argument);
        List<SelectedRelation> matches = new ArrayList<>();
        if (selection.isSet()) {
            if (name.isPresent()) {
                for (SelectedRelation relation : selection.relations()) {
                    if (matches(name.get(), relation)) {
                        matches.add(relation);
                    }
                }
            }
            if (matches.isEmpty()) {
                return new NotFound(DescribeResult.Refused.of(UNDEFINED_TABLE, argument
                        + " is not one of the selected tables or views. Choose one of: "
                        + selection.displayNames() + "."));
            }
        } else {
            if (name.isPresent()) {
                matches = readable(connection, name.get());
            }
            if (matches.isEmpty()) {
                return new NotFound(DescribeResult.Refused.of(UNDEFINED_TABLE,
                        argument + " is not a table or view this login can read."));
            }
        }
        if (matches.size() > 1) {
            return new NotFound(DescribeResult.Refused.of(AMBIGUOUS, argument + " is ambiguous: it matches "
                    + String.join(", ", matches.stream().map(SelectedRelation::displayName).toList())
                    + ". Call describe again with the schema-qualified name."));
        }
        return new Found(matches.getFirst());
    }

    private static Optional<RelationName> parse(String argument) {
        try {
            return Optional.of(RelationName.parse(argument));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static boolean matches(RelationName name, SelectedRelation relation) {
        return name.name().equals(relation.name())
                && name.schema().map(relation.schema()::equals).orElse(true);
    }

    private static List<SelectedRelation> readable(Connection connection, RelationName name) throws SQLException {
        List<SelectedRelation> found = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(READABLE_SQL)) {
            statement.setString(1, name.name());
            statement.setString(2, name.schema().orElse(null));
            statement.setString(3, name.schema().orElse(null));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    found.add(new SelectedRelation(rows.getLong(1), rows.getString(2), rows.getString(3),
                            RelationKind.of(rows.getString(4)), rows.getString(5), List.of()));
                }
            }
        }
        return found;
    }
}
