package io.pgward.guard.catalog;

import io.pgward.guard.selection.VisibleCatalog;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether a column of a filter subquery holds, in every visible row, an object of a given kind that the login sees.
 * A filter's key column does by construction (its condition is exactly that). Another column that names an object
 * ({@link #REFERENCES}, reviewed against {@code VisibleSets}) does when the catalog says so now: one query per
 * column and check, asking whether any visible row names an object outside the visible set. It is asked again for
 * every statement checked, so a schema change cannot leave a stale answer behind.
 */
final class ObjectColumns {

    /** Columns of covered catalogs that name an object, by {@code catalog.column}. */
    static final Map<String, ObjectKind> REFERENCES = Map.ofEntries(
            Map.entry("pg_class.relowner", ObjectKind.ROLE), Map.entry("pg_class.relnamespace", ObjectKind.NAMESPACE),
            Map.entry("pg_class.reltype", ObjectKind.TYPE), Map.entry("pg_class.reloftype", ObjectKind.TYPE),
            Map.entry("pg_class.reltoastrelid", ObjectKind.RELATION),
            Map.entry("pg_class.relam", ObjectKind.ACCESS_METHOD),
            Map.entry("pg_type.typowner", ObjectKind.ROLE), Map.entry("pg_type.typnamespace", ObjectKind.NAMESPACE),
            Map.entry("pg_type.typrelid", ObjectKind.RELATION), Map.entry("pg_type.typelem", ObjectKind.TYPE),
            Map.entry("pg_type.typarray", ObjectKind.TYPE), Map.entry("pg_type.typbasetype", ObjectKind.TYPE),
            Map.entry("pg_type.typcollation", ObjectKind.COLLATION),
            Map.entry("pg_type.typinput", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_type.typoutput", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_type.typreceive", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_type.typsend", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_type.typmodin", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_type.typmodout", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_type.typanalyze", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_type.typsubscript", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_range.rngsubtype", ObjectKind.TYPE),
            Map.entry("pg_range.rngcollation", ObjectKind.COLLATION),
            Map.entry("pg_range.rngcanonical", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_range.rngsubdiff", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_attribute.atttypid", ObjectKind.TYPE),
            Map.entry("pg_attribute.attcollation", ObjectKind.COLLATION),
            Map.entry("pg_constraint.conrelid", ObjectKind.RELATION),
            Map.entry("pg_constraint.confrelid", ObjectKind.RELATION),
            Map.entry("pg_constraint.conindid", ObjectKind.RELATION),
            Map.entry("pg_constraint.contypid", ObjectKind.TYPE),
            Map.entry("pg_constraint.connamespace", ObjectKind.NAMESPACE),
            Map.entry("pg_constraint.conparentid", ObjectKind.CONSTRAINT),
            Map.entry("pg_attrdef.adrelid", ObjectKind.RELATION), Map.entry("pg_index.indrelid", ObjectKind.RELATION),
            Map.entry("pg_namespace.nspowner", ObjectKind.ROLE),
            Map.entry("pg_collation.collnamespace", ObjectKind.NAMESPACE),
            Map.entry("pg_collation.collowner", ObjectKind.ROLE), Map.entry("pg_am.amhandler",
                    ObjectKind.FUNCTION_NAME),
            Map.entry("pg_trigger.tgrelid", ObjectKind.RELATION),
            Map.entry("pg_statistic_ext.oid", ObjectKind.STATISTICS),
            Map.entry("pg_statistic_ext.stxnamespace", ObjectKind.NAMESPACE),
            Map.entry("pg_statistic_ext.stxowner", ObjectKind.ROLE),
            Map.entry("pg_language.lanowner", ObjectKind.ROLE), Map.entry("pg_database.datdba", ObjectKind.ROLE),
            Map.entry("pg_tablespace.spcowner", ObjectKind.ROLE),
            Map.entry("pg_operator.oprnamespace", ObjectKind.NAMESPACE),
            Map.entry("pg_operator.oprowner", ObjectKind.ROLE),
            Map.entry("pg_operator.oprleft", ObjectKind.TYPE), Map.entry("pg_operator.oprright", ObjectKind.TYPE),
            Map.entry("pg_operator.oprresult", ObjectKind.TYPE),
            Map.entry("pg_operator.oprcode", ObjectKind.FUNCTION_NAME),
            Map.entry("pg_proc.prorettype", ObjectKind.TYPE));

    /**
     * Array columns of covered catalogs whose every element names an object ({@code oid[]} or {@code oidvector}),
     * by {@code catalog.column}.
     */
    static final Map<String, ObjectKind> ELEMENT_REFERENCES = Map.of("pg_proc.proargtypes", ObjectKind.TYPE,
            "pg_proc.proallargtypes", ObjectKind.TYPE);

    private final VisibleCatalog visible;
    private final CatalogReader catalog;
    private final Map<String, Boolean> closed = new HashMap<>();

    ObjectColumns(VisibleCatalog visible, CatalogReader catalog) {
        this.visible = visible;
        this.catalog = catalog;
    }

    /** Whether column {@code attnum} of {@code filter}'s subquery names, in every row, a visible {@code kind}. */
    boolean names(CatalogFilters.Filter filter, int attnum, ObjectKind kind) throws SQLException {
        if (filter == null) {
            return false;
        }
        String column = filter.columns().stream().filter(c -> c.attnum() == attnum && !c.acl())
                .map(CatalogColumns.Column::name).findFirst().orElse(null);
        if (column == null) {
            return false;
        }
        java.util.Optional<Boolean> byKey = keyNames(filter.catalog().rows(), column, kind);
        if (byKey.isPresent()) {
            return byKey.get();
        }
        ObjectKind referenced = REFERENCES.get(filter.catalog().relation() + "." + column);
        if (referenced == null || !sameObjects(referenced, kind)) {
            return false;
        }
        String key = filter.catalog().relation() + "." + column + ":" + kind;
        Boolean known = closed.get(key);
        if (known == null) {
            known = !catalog.answers("SELECT EXISTS (SELECT FROM pg_catalog." + filter.catalog().relation()
                    + " WHERE " + filter.condition() + " AND " + CatalogFilters.quote(column)
                    + " OPERATOR(pg_catalog.<>) '0'::pg_catalog.oid AND NOT " + visibleCondition(column, kind) + ")");
            closed.put(key, known);
        }
        return known;
    }

    /**
     * Whether every element of array column {@code attnum} of {@code filter}'s subquery names, in every row, a visible
     * {@code kind}: asked of the catalog as {@link #names} asks, element by element.
     */
    boolean namesEach(CatalogFilters.Filter filter, int attnum, ObjectKind kind) throws SQLException {
        String column = filter.columns().stream().filter(c -> c.attnum() == attnum && !c.acl())
                .map(CatalogColumns.Column::name).findFirst().orElse(null);
        ObjectKind referenced = column == null ? null
                : ELEMENT_REFERENCES.get(filter.catalog().relation() + "." + column);
        if (referenced == null || !sameObjects(referenced, kind)) {
            return false;
        }
        String key = filter.catalog().relation() + "." + column + "[]:" + kind;
        Boolean known = closed.get(key);
        if (known == null) {
            known = !catalog.answers("SELECT EXISTS (SELECT FROM pg_catalog." + filter.catalog().relation()
                    + " WHERE " + filter.condition() + " AND EXISTS (SELECT FROM pg_catalog.unnest("
                    + CatalogFilters.quote(column) + "::pg_catalog.oid[]) AS element(\"element\") WHERE "
                    + "\"element\" OPERATOR(pg_catalog.<>) '0'::pg_catalog.oid AND NOT "
                    + visibleCondition("element", kind) + "))");
            closed.put(key, known);
        }
        return known;
    }

    /**
     * Whether {@code column}, when it is a key of the filter's row condition, names a visible {@code kind} in every
     * row the condition lets through; empty when the column is not a key.
     */
    private static java.util.Optional<Boolean> keyNames(RowFilter rows, String column, ObjectKind kind) {
        return switch (rows) {
            case RowFilter.Keyed k when k.column().equals(column) -> java.util.Optional.of(
                    kind.catalog() == k.catalog() && (kind.builtInsVisible() || !k.catalog().builtInsVisible()));
            case RowFilter.BuiltIn b when b.column().equals(column) -> java.util.Optional.of(kind.builtInsVisible());
            case RowFilter.AllOf all -> all.parts().stream().map(p -> keyNames(p, column, kind))
                    .flatMap(java.util.Optional::stream).filter(Boolean::booleanValue).findFirst()
                    .or(() -> all.parts().stream().map(p -> keyNames(p, column, kind))
                            .flatMap(java.util.Optional::stream).findFirst());
            default -> java.util.Optional.empty();
        };
    }

    private static boolean sameObjects(ObjectKind a, ObjectKind b) {
        return a == b || a.catalog() != null && a.catalog() == b.catalog()
                || a.catalog() == null && b.catalog() == null && a.builtInsVisible() && b.builtInsVisible()
                && family(a) == family(b);
    }

    private static ObjectKind family(ObjectKind kind) {
        return switch (kind) {
            case FUNCTION_NAME -> ObjectKind.FUNCTION;
            case OPERATOR_NAME -> ObjectKind.OPERATOR;
            default -> kind;
        };
    }

    private String visibleCondition(String column, ObjectKind kind) {
        String quoted = CatalogFilters.quote(column);
        String builtIn = quoted + " OPERATOR(pg_catalog.<) '" + VisibleCatalog.FIRST_NORMAL_OBJECT_ID
                + "'::pg_catalog.oid";
        if (kind == ObjectKind.STATISTICS) {
            return visibleStatistics(quoted);
        }
        if (kind.catalog() == null) {
            return "(" + builtIn + ")";
        }
        String listed = quoted + " OPERATOR(pg_catalog.=) ANY ('" + visible.oids(kind.catalog()).arrayLiteral()
                + "'::pg_catalog.oid[])";
        return kind.builtInsVisible() ? "(" + builtIn + " OR " + listed + ")" : "(" + listed + ")";
    }

    /**
     * A statistics object is shown when it belongs to a visible relation and a visible schema and has no
     * expressions: its definition then names only the schema, its own name and the relation's columns, while an
     * expression may call a user function (hidden, design section 3.4).
     */
    private String visibleStatistics(String quoted) {
        return "(" + quoted + " OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT s.oid FROM pg_catalog.pg_statistic_ext s"
                + " WHERE s.stxrelid OPERATOR(pg_catalog.=) ANY ('"
                + visible.oids(VisibleCatalog.Catalog.PG_CLASS).arrayLiteral() + "'::pg_catalog.oid[])"
                + " AND s.stxnamespace OPERATOR(pg_catalog.=) ANY ('"
                + visible.oids(VisibleCatalog.Catalog.PG_NAMESPACE).arrayLiteral() + "'::pg_catalog.oid[])"
                + " AND s.stxexprs IS NULL)))";
    }
}
