package io.pgward.nl;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One relation a login may read, as reflected: what the prompt and {@code pgward.schema()} show of it.
 *
 * @param ref its catalog identity
 * @param kind table, view, materialized view, ...
 * @param comment the relation comment, if any
 * @param columns the columns the login may read, in column order
 * @param primaryKey the primary key's column names, empty when there is none
 * @param foreignKeys foreign keys whose referenced relation the login may also read (the others are left out,
 *                    so a prompt never names a relation outside what the login sees)
 * @param samples sorted sample values per column name, for the columns that qualify (see
 *                {@link io.pgward.guard.selection.ValueSampler})
 */
public record Relation(RelationRef ref, Kind kind, Optional<String> comment, List<Column> columns,
                       List<String> primaryKey, List<ForeignKey> foreignKeys, Map<String, List<String>> samples) {

    public Relation {
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(comment, "comment");
        columns = List.copyOf(columns);
        primaryKey = List.copyOf(primaryKey);
        foreignKeys = List.copyOf(foreignKeys);
        samples = Map.copyOf(samples);
    }

    public String qualifiedName() {
        return ref.qualifiedName();
    }

    Relation withSamples(Map<String, List<String>> newSamples) {
        return new Relation(ref, kind, comment, columns, primaryKey, foreignKeys, newSamples);
    }

    public enum Kind {
        TABLE("table"), PARTITIONED_TABLE("table"), VIEW("view"), MATERIALIZED_VIEW("materialized view"),
        FOREIGN_TABLE("foreign table");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        static Kind fromRelkind(String relkind) {
            return switch (relkind) {
                case "r" -> TABLE;
                case "p" -> PARTITIONED_TABLE;
                case "v" -> VIEW;
                case "m" -> MATERIALIZED_VIEW;
                case "f" -> FOREIGN_TABLE;
                default -> throw new IllegalArgumentException("not a readable relation kind: " + relkind);
            };
        }
    }

    /**
     * @param type the type as format_type writes it, e.g. {@code numeric(10,2)} or {@code order_status}
     * @param sampled whether the type qualifies the column for value samples (text, character varying, character
     *                or an enum: {@link io.pgward.guard.selection.ValueSampler#QUALIFYING_TYPE})
     */
    public record Column(String name, String type, boolean notNull, Optional<String> comment, boolean sampled) {

        public Column {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(comment, "comment");
        }
    }

    /** {@code columns} of this relation reference {@code targetColumns} of {@code target}. */
    public record ForeignKey(List<String> columns, RelationRef target, List<String> targetColumns) {

        public ForeignKey {
            columns = List.copyOf(columns);
            Objects.requireNonNull(target, "target");
            targetColumns = List.copyOf(targetColumns);
        }
    }
}
