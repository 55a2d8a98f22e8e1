package io.pgward.guard.catalog;

import io.pgward.guard.selection.VisibleCatalog.Catalog;
import java.util.List;

/**
 * The system catalogs a login with a table selection reads filtered (step 2 of
 * {@code docs/filtered-catalog-design.md}, first slice), and the columns each is filtered on. A row is visible when
 * every key column names a visible object of its {@link Catalog}; a key without a catalog sees built-in rows only.
 *
 * <p>Keys follow the owning object where the catalog has one, so that a row is shown only with what it describes:
 * pg_attribute by its relation, pg_index by its index (the index of a visible relation is visible; the index of a
 * hidden one is not), pg_inherits by both ends, pg_enum by its type. Every other pg_catalog relation stays refused
 * by L3's relation rule, as before.
 */
enum CoveredCatalog {
    PG_CLASS("pg_class", new Key("oid", Catalog.PG_CLASS)),
    PG_NAMESPACE("pg_namespace", new Key("oid", Catalog.PG_NAMESPACE)),
    PG_ATTRIBUTE("pg_attribute", new Key("attrelid", Catalog.PG_CLASS)),
    PG_TYPE("pg_type", new Key("oid", Catalog.PG_TYPE)),
    PG_CONSTRAINT("pg_constraint", new Key("oid", Catalog.PG_CONSTRAINT)),
    PG_ATTRDEF("pg_attrdef", new Key("oid", Catalog.PG_ATTRDEF)),
    PG_INDEX("pg_index", new Key("indexrelid", Catalog.PG_CLASS)),
    PG_INHERITS("pg_inherits", new Key("inhrelid", Catalog.PG_CLASS), new Key("inhparent", Catalog.PG_CLASS)),
    PG_ENUM("pg_enum", new Key("enumtypid", Catalog.PG_TYPE)),
    PG_COLLATION("pg_collation", new Key("oid", Catalog.PG_COLLATION)),
    /** Access methods: the built-in ones only (a user access method is not part of any selection yet). */
    PG_AM("pg_am", new Key("oid", null));

    /**
     * @param column the filtered column, of type oid
     * @param catalog whose visible set the column's value must be in; null for built-in objects only
     */
    record Key(String column, Catalog catalog) {
    }

    private final String relation;
    private final List<Key> keys;

    CoveredCatalog(String relation, Key... keys) {
        this.relation = relation;
        this.keys = List.of(keys);
    }

    /** The relation's name in pg_catalog. */
    String relation() {
        return relation;
    }

    List<Key> keys() {
        return keys;
    }

    static CoveredCatalog byName(String relation) {
        for (CoveredCatalog c : values()) {
            if (c.relation.equals(relation)) {
                return c;
            }
        }
        return null;
    }
}
