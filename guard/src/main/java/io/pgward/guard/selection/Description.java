package io.pgward.guard.selection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code pgward.describe(name)} tells about one relation.
 *
 * @param name {@code schema.name}, quoted where PostgreSQL needs it
 * @param kind table, foreign table, view or materialized view
 * @param comment the relation comment
 * @param columns {@code <column> <type>[ not null][ -- <comment>]} in column order
 * @param primaryKey the primary key's columns in key order; empty when there is none
 * @param relationships {@code <from>(<columns>) -> <to>(<columns>)} for each foreign key between this relation and
 *                      another selected one, then {@code reads <name>} for each selected relation this view reads,
 *                      then {@code read by <name>} for each selected view that reads this relation
 * @param definition pg_get_viewdef for views and materialized views, cut at 4,000 characters
 * @param values from a column name (quoted where PostgreSQL needs it) to its sorted sample values, in column order
 */
public record Description(String name, String kind, Optional<String> comment, List<String> columns,
                          List<String> primaryKey, List<String> relationships, Optional<String> definition,
                          Map<String, List<String>> values) {

    public Description {
        columns = List.copyOf(columns);
        primaryKey = List.copyOf(primaryKey);
        relationships = List.copyOf(relationships);
        values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /**
     * The description as {@code field | value} rows, in the order of the record's components, one row per column,
     * relationship and sampled column; absent parts have no row. A primary key is one row, its columns joined
     * with ", ". A values row is {@code <column>: ["<value>", ...]}, the values written as a JSON array so that
     * commas and quotes inside values stay readable.
     */
    public LocalRows toRows() {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("name", name));
        rows.add(List.of("kind", kind));
        comment.ifPresent(c -> rows.add(List.of("comment", c)));
        columns.forEach(c -> rows.add(List.of("columns", c)));
        if (!primaryKey.isEmpty()) {
            rows.add(List.of("primaryKey", String.join(", ", primaryKey)));
        }
        relationships.forEach(r -> rows.add(List.of("relationships", r)));
        definition.ifPresent(d -> rows.add(List.of("definition", d)));
        values.forEach((column, sample) -> rows.add(List.of("values", column + ": " + jsonArray(sample))));
        return new LocalRows(RelationDescriber.COLUMNS, rows);
    }

    static String jsonArray(List<String> strings) {
        StringBuilder json = new StringBuilder("[");
        for (String s : strings) {
            if (json.length() > 1) {
                json.append(", ");
            }
            json.append('"');
            s.codePoints().forEach(cp -> {
                switch (cp) {
                    case '"' -> json.append("\\\"");
                    case '\\' -> json.append("\\\\");
                    case '\n' -> json.append("\\n");
                    case '\r' -> json.append("\\r");
                    case '\t' -> json.append("\\t");
                    default -> {
                        if (cp < 0x20) {
                            json.append(String.format("\\u%04x", cp));
                        } else {
                            json.appendCodePoint(cp);
                        }
                    }
                }
            });
            json.append('"');
        }
        return json.append(']').toString();
    }
}
