package io.pgward.guard.selection;

import java.util.List;
import java.util.Objects;

/**
 * One selected relation as it exists now.
 *
 * @param oid its pg_class oid
 * @param schema the schema name as stored
 * @param name the relation name as stored
 * @param kind what it is
 * @param displayName {@code schema.name} with each identifier quoted where PostgreSQL needs it (quote_ident)
 * @param columns its column names in column order, each quoted where PostgreSQL needs it
 */
public record SelectedRelation(long oid, String schema, String name, RelationKind kind, String displayName,
                               List<String> columns) {

    public SelectedRelation {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(displayName, "displayName");
        columns = List.copyOf(columns);
    }
}
