package io.pgward.guard.catalog;

import io.pgward.guard.selection.VisibleCatalog;
import io.pgward.guard.selection.VisibleCatalog.Catalog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Which rows of a {@link CoveredCatalog} a login sees, as the WHERE condition of its filter subquery. Every shape is
 * written here once, and L3 accepts only the tree PostgreSQL itself made of this text ({@link FilterReferences}), so
 * a new shape needs no proof code of its own.
 *
 * <p>Operators are written {@code OPERATOR(pg_catalog.x)} and constants with their pg_catalog type, so the text means
 * the same whatever the session's search_path. OIDs of catalog relations are the fixed ones of PostgreSQL's catalog
 * headers ({@link #CATALOG_OIDS}), written as oid constants, never as regclass.
 */
sealed interface RowFilter {

    /**
     * The pg_class OIDs of the catalogs with a visible set whose objects pg_description and pg_depend name, fixed by
     * PostgreSQL's catalog headers ({@code CATALOG(pg_class,1259,...)}). pg_authid is shared and named only by the
     * shared catalogs (pg_shdescription, pg_shdepend), which no login sees.
     */
    /**
     * pg_namespace (2615), whose built-in {@code public} holds user objects, and pg_largeobject (2613) and
     * pg_largeobject_metadata (2995), whose OIDs a user may choose: an OID below 16384 says nothing built in there.
     */
    String NOT_BUILT_IN_BELOW_FIRST_NORMAL = "{2613,2615,2995}";

    Map<Catalog, Long> CATALOG_OIDS = orderedMap(Catalog.PG_CLASS, 1259L, Catalog.PG_NAMESPACE, 2615L,
            Catalog.PG_TYPE, 1247L, Catalog.PG_CONSTRAINT, 2606L, Catalog.PG_ATTRDEF, 2604L, Catalog.PG_REWRITE,
            2618L, Catalog.PG_TRIGGER, 2620L, Catalog.PG_COLLATION, 3456L);

    /** The condition; {@code visible} gives the listed OIDs. */
    String condition(VisibleCatalog visible);

    /** The catalog's columns the condition names: a catalog without one of them on this server is not covered. */
    List<String> columns();

    /** Rows whose {@code column} names a visible object of {@code catalog} (built-in ones included where visible). */
    record Keyed(String column, Catalog catalog) implements RowFilter {
        @Override
        public String condition(VisibleCatalog visible) {
            String key = quote(column);
            String listed = listed(key, visible.oids(catalog).arrayLiteral());
            return catalog.builtInsVisible() ? "(" + builtIn(key) + " OR " + listed + ")" : listed;
        }

        @Override
        public List<String> columns() {
            return List.of(column);
        }
    }

    /** Rows whose {@code column} is listed in {@code catalog}'s visible set: user objects only, no built-in one. */
    record Listed(String column, Catalog catalog) implements RowFilter {
        @Override
        public String condition(VisibleCatalog visible) {
            return listed(quote(column), visible.oids(catalog).arrayLiteral());
        }

        @Override
        public List<String> columns() {
            return List.of(column);
        }
    }

    /** Every key visible: a row that links two objects is shown only with both. */
    record AllOf(List<RowFilter> parts) implements RowFilter {
        AllOf(RowFilter... parts) {
            this(List.of(parts));
        }

        @Override
        public String condition(VisibleCatalog visible) {
            return String.join(" AND ", parts.stream().map(p -> p.condition(visible)).toList());
        }

        @Override
        public List<String> columns() {
            return parts.stream().flatMap(p -> p.columns().stream()).toList();
        }
    }

    /** Rows initdb created only: built-in functions, operators, casts, languages, tablespaces, extensions. */
    record BuiltIn(String column) implements RowFilter {
        @Override
        public String condition(VisibleCatalog visible) {
            return builtIn(quote(column));
        }

        @Override
        public List<String> columns() {
            return List.of(column);
        }
    }

    /** No row: the catalog describes what no selection includes (publications, foreign servers, event triggers). */
    record NoRows() implements RowFilter {
        @Override
        public String condition(VisibleCatalog visible) {
            return "false";
        }

        @Override
        public List<String> columns() {
            return List.of();
        }
    }

    /** pg_database: the database the session is connected to, not the others of the cluster. */
    record CurrentDatabase() implements RowFilter {
        @Override
        public String condition(VisibleCatalog visible) {
            return "\"datname\" OPERATOR(pg_catalog.=) pg_catalog.current_database()";
        }

        @Override
        public List<String> columns() {
            return List.of("datname");
        }
    }

    /**
     * Rows about an object named by a (catalog OID, object OID) pair, as in pg_description and either end of
     * pg_depend: visible when the object is visible in its catalog. Objects of catalogs without a visible set are
     * visible when built in; a schema, even a built-in one ({@code public}), only when listed; a large object never,
     * since {@code lo_create(100)} gives a user's large object an OID below FirstNormalObjectId.
     */
    record ObjectOf(String classColumn, String objectColumn) implements RowFilter {
        @Override
        public String condition(VisibleCatalog visible) {
            String classId = quote(classColumn);
            String object = quote(objectColumn);
            List<String> cases = new ArrayList<>();
            cases.add("(" + builtIn(object) + " AND " + classId + " OPERATOR(pg_catalog.<>) ALL ('"
                    + NOT_BUILT_IN_BELOW_FIRST_NORMAL + "'::pg_catalog.oid[]))");
            CATALOG_OIDS.forEach((catalog, relation) -> cases.add("(" + classId + " OPERATOR(pg_catalog.=) "
                    + oid(relation) + " AND " + listed(object, visible.oids(catalog).arrayLiteral()) + ")"));
            return "(" + String.join(" OR ", cases) + ")";
        }

        @Override
        public List<String> columns() {
            return List.of(classColumn, objectColumn);
        }
    }

    private static String builtIn(String column) {
        return column + " OPERATOR(pg_catalog.<) " + oid(VisibleCatalog.FIRST_NORMAL_OBJECT_ID);
    }

    private static String listed(String column, String arrayLiteral) {
        return column + " OPERATOR(pg_catalog.=) ANY ('" + arrayLiteral + "'::pg_catalog.oid[])";
    }

    private static String oid(long oid) {
        return "'" + oid + "'::pg_catalog.oid";
    }

    private static Map<Catalog, Long> orderedMap(Object... pairs) {
        Map<Catalog, Long> map = new EnumMap<>(Catalog.class);
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((Catalog) pairs[i], (Long) pairs[i + 1]);
        }
        return Collections.unmodifiableMap(map);
    }

    private static String quote(String identifier) {
        return CatalogFilters.quote(identifier);
    }
}
