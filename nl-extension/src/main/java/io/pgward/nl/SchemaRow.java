package io.pgward.nl;

import java.util.List;
import java.util.Optional;

/**
 * One row of {@code pgward.schema()}: one per column of each relation the login may read, in relation then
 * column order (a relation without readable columns gives one row with empty column fields).
 *
 * @param relation schema-qualified name
 * @param kind table, view, materialized view, foreign table
 * @param column column name
 * @param type as format_type writes it
 * @param notNull whether the column is NOT NULL
 * @param primaryKey whether the column is part of the primary key
 * @param references for a foreign-key column, {@code schema.table(column)} it references
 * @param comment the column comment, or for the empty-column row the relation comment
 */
public record SchemaRow(String relation, String kind, Optional<String> column, Optional<String> type,
                        boolean notNull, boolean primaryKey, Optional<String> references, Optional<String> comment) {

    /** The result columns, in order, for the proxy's RowDescription (all text except the two booleans). */
    public static final List<String> COLUMNS = List.of("relation", "kind", "column_name", "data_type", "not_null",
            "primary_key", "references", "comment");

    static List<SchemaRow> of(Relation relation) {
        if (relation.columns().isEmpty()) {
            return List.of(new SchemaRow(relation.qualifiedName(), relation.kind().label(), Optional.empty(),
                    Optional.empty(), false, false, Optional.empty(), relation.comment()));
        }
        return relation.columns().stream().map(column -> new SchemaRow(relation.qualifiedName(),
                relation.kind().label(), Optional.of(column.name()), Optional.of(column.type()), column.notNull(),
                relation.primaryKey().contains(column.name()), references(relation, column.name()),
                column.comment())).toList();
    }

    private static Optional<String> references(Relation relation, String column) {
        for (Relation.ForeignKey key : relation.foreignKeys()) {
            int at = key.columns().indexOf(column);
            if (at >= 0) {
                return Optional.of(key.target().qualifiedName() + "("
                        + Identifiers.quote(key.targetColumns().get(at)) + ")");
            }
        }
        return Optional.empty();
    }
}
