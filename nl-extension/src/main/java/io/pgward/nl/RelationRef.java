package io.pgward.nl;

import java.util.Objects;

/**
 * A relation as the catalog names it: what a table selection is matched against.
 *
 * @param oid the relation's pg_class oid
 * @param schema its schema name, as stored (not quoted)
 * @param name its name, as stored (not quoted)
 */
public record RelationRef(long oid, String schema, String name) {

    public RelationRef {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(name, "name");
    }

    /** {@code schema.name}, each part quoted only where PostgreSQL needs it. */
    public String qualifiedName() {
        return Identifiers.quote(schema) + "." + Identifiers.quote(name);
    }
}
