package io.pgward.guard.catalog;

import java.util.Objects;

/**
 * One selected relation, resolved.
 *
 * @param oid its pg_class OID as resolved when the selection was last resolved
 * @param qualifiedName the schema-qualified name, identifiers quoted where PostgreSQL needs it
 *                      ({@code public.orders}, {@code "Sales 2026".daily}); named in refusals
 */
public record SelectedRelation(long oid, String qualifiedName) {

    public SelectedRelation {
        Objects.requireNonNull(qualifiedName, "qualifiedName");
        if (oid <= 0) {
            throw new IllegalArgumentException("oid must be positive, was " + oid);
        }
    }
}
