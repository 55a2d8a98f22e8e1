package io.pgward.guard.catalog;

import io.pgward.guard.selection.VisibleCatalog;
import io.pgward.guard.selection.VisibleNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The filters of one login's {@link FilteredView filtered views}: for each, the subquery {@link CatalogRewrite} puts
 * in place of a reference to it, and the condition {@link ViewFilterProof} accepts as its WHERE. Both come from the
 * {@link Conjunct}s of this one value, so the text pgward writes and the tree it accepts cannot drift apart.
 *
 * <p>The subquery is {@code (SELECT "c1", ..., NULL::<type> AS "masked", ... FROM <schema>.<view> WHERE <filter>
 * OFFSET 0)}; {@code OFFSET 0} is the fence, as for the catalogs ({@link CatalogFilters}). The filter ANDs one part per
 * key:
 * <pre>
 *   "k" OPERATOR(pg_catalog.=) ANY ('{..}'::pg_catalog.oid[] | name[] | text[])          -- OIDs, schemas, settings
 *   ("s" OPERATOR(pg_catalog.=) 'public'::pg_catalog.name AND "n" OPERATOR(pg_catalog.=) ANY ('{..}'::pg_catalog.name[]))
 *                                                   -- (schema, name) pairs, one schema
 *   ((s = 'a' AND n = ANY (..)) OR (s = 'b' AND n = ANY (..)))                           -- several schemas
 *   "n" OPERATOR(pg_catalog.=) ANY ('{}'::pg_catalog.name[])                             -- no pair at all, no rows
 *   "pid" OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()                              -- the own backend
 *   (("k" IS NULL) OR ("k" OPERATOR(pg_catalog.=) ANY ('{..}'::pg_catalog.oid[])))        -- none or a visible one
 *   "k" IS NULL
 * </pre>
 * A view without keys has no WHERE at all.
 * A pair is never written as two independent lists: {@code schema = ANY(S) AND name = ANY(N)} would admit every
 * schema-name combination, hidden relations included. Names are written as escape strings ({@code E'...'}), which
 * read the same whatever the session's standard_conforming_strings.
 */
public final class ViewFilters {

    /** The schemas of the built-in objects, by name: what {@link FilteredView.Kind#BUILT_IN_SCHEMA} admits. */
    static final Set<String> BUILT_IN_SCHEMAS = Set.of("pg_catalog", "information_schema");

    /** No filters: every system view is refused as before. */
    public static final ViewFilters NONE = new ViewFilters(Map.of());

    /** The element type of a {@code = ANY} list: its equality operator and array type (pg_operator.dat, pinned). */
    enum ElementType {
        OID(607, 1028, "oid"), NAME(93, 1003, "name"), TEXT(98, 1009, "text");

        final long equality;
        final long arrayType;
        final String typeName;

        ElementType(long equality, long arrayType, String typeName) {
            this.equality = equality;
            this.arrayType = arrayType;
            this.typeName = typeName;
        }
    }

    /** One part of a filter's condition, keyed on the view's columns by attnum; equal parts are the same part. */
    sealed interface Conjunct permits In, Eq, AnyGroup, OwnBackend, IsNull {
    }

    /** {@code column = pg_catalog.pg_backend_pid()}, an int4 process id. */
    record OwnBackend(int attnum) implements Conjunct {
    }

    /** {@code column IS NULL}. */
    record IsNull(int attnum) implements Conjunct {
    }

    /** {@code column = ANY (values)}. */
    record In(int attnum, ElementType type, Set<String> values) implements Conjunct {
        In {
            values = Collections.unmodifiableSet(new TreeSet<>(values));
        }
    }

    /** {@code column = 'value'::name}. */
    record Eq(int attnum, String value) implements Conjunct {
    }

    /** An OR of ANDs: the (schema, names) groups of a pair key with more than one schema. */
    record AnyGroup(Set<Set<Conjunct>> groups) implements Conjunct {
        AnyGroup {
            groups = Set.copyOf(groups.stream().map(Set::copyOf).toList());
        }
    }

    /** The filter of one view. */
    record Filter(FilteredView view, long relid, List<ViewColumns.Column> columns, List<Conjunct> conjuncts) {

        /** The WHERE condition. */
        String condition() {
            return conjuncts.stream().map(c -> "(" + text(c) + ")").collect(Collectors.joining(" AND "));
        }

        /**
         * The subquery, in parentheses. A column of an object-identifier type is left out unless the statement
         * names it or has a {@code *} (then L3 refuses it).
         */
        String subquery(Set<String> named, boolean star) {
            List<String> items = new ArrayList<>();
            for (ViewColumns.Column column : columns) {
                if (column.objectIdentifier() && !star && !named.contains(column.name())) {
                    continue;
                }
                items.add(view.masked().contains(column.name())
                        ? "NULL::" + column.type() + " AS " + CatalogFilters.quote(column.name())
                        : CatalogFilters.quote(column.name()));
            }
            return "(SELECT " + String.join(", ", items) + " FROM " + view.schema() + "." + view.relation()
                    + (conjuncts.isEmpty() ? "" : " WHERE " + condition()) + " OFFSET 0)";
        }

        boolean masked(long attnum) {
            return columns.stream().anyMatch(c -> c.attnum() == attnum && view.masked().contains(c.name()));
        }

        private String text(Conjunct conjunct) {
            return switch (conjunct) {
                case In in -> column(in.attnum()) + " OPERATOR(pg_catalog.=) ANY (" + literal(arrayLiteral(in.values()))
                        + "::pg_catalog." + in.type().typeName + "[])";
                case Eq eq -> column(eq.attnum()) + " OPERATOR(pg_catalog.=) " + literal(eq.value())
                        + "::pg_catalog.name";
                case AnyGroup any -> any.groups().stream()
                        .map(g -> "(" + g.stream().sorted(ViewFilters::eqFirst).map(this::text)
                                .collect(Collectors.joining(" AND ")) + ")")
                        .sorted().collect(Collectors.joining(" OR "));
                case OwnBackend own -> column(own.attnum()) + " OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()";
                case IsNull isNull -> column(isNull.attnum()) + " IS NULL";
            };
        }

        private String column(int attnum) {
            return columns.stream().filter(c -> c.attnum() == attnum).findFirst()
                    .map(c -> CatalogFilters.quote(c.name())).orElseThrow();
        }
    }

    private final Map<String, Filter> byName;
    private final Map<Long, Filter> byRelid;
    // Part of every verdict cache key: computed once, not per lookup over every name of every filter.
    private final int hash;

    private ViewFilters(Map<String, Filter> byName) {
        this.byName = byName;
        this.hash = byName.hashCode();
        Map<Long, Filter> relids = new LinkedHashMap<>();
        byName.values().forEach(f -> relids.put(f.relid(), f));
        this.byRelid = Collections.unmodifiableMap(relids);
    }

    /**
     * The filters of the views {@code columns} describes; a view the columns lack, or one whose key column is missing
     * or of another type, is left out, and so stays refused.
     */
    public static ViewFilters of(VisibleCatalog visible, VisibleNames names, ViewColumns columns) {
        Objects.requireNonNull(visible, "visible");
        Objects.requireNonNull(names, "names");
        Map<String, Filter> filters = new LinkedHashMap<>();
        for (FilteredView view : FilteredView.values()) {
            long relid = columns.relid(view);
            List<ViewColumns.Column> list = columns.columns(view);
            List<Conjunct> conjuncts = new ArrayList<>();
            boolean complete = relid != 0;
            for (FilteredView.Key key : view.keys()) {
                complete &= conjuncts(key, list, visible, names, conjuncts);
            }
            if (complete) {
                filters.put(ViewColumns.qualified(view), new Filter(view, relid, list, List.copyOf(conjuncts)));
            }
        }
        return new ViewFilters(Collections.unmodifiableMap(filters));
    }

    private static boolean conjuncts(FilteredView.Key key, List<ViewColumns.Column> columns, VisibleCatalog visible,
                                     VisibleNames names, List<Conjunct> out) {
        ViewColumns.Column column = column(columns, key.column());
        if (column == null) {
            return false;
        }
        // A switch expression: a new kind of key is a compile error here, not a view served unfiltered.
        return switch (key.kind()) {
            case SETTING -> typed(column, "pg_catalog.text")
                    && out.add(new In(column.attnum(), ElementType.TEXT, VisibleSettings.NAMES));
            case RELATION_OID -> typed(column, "pg_catalog.oid") && out.add(new In(column.attnum(), ElementType.OID,
                    visibleRelations(visible)));
            case SCHEMA -> nameTyped(column) && out.add(new In(column.attnum(), ElementType.NAME, names.schemas()));
            case BUILT_IN_SCHEMA -> nameTyped(column)
                    && out.add(new In(column.attnum(), ElementType.NAME, BUILT_IN_SCHEMAS));
            case RELATION -> pair(key, column, columns, names.relations(), out);
            case CONSTRAINT -> pair(key, column, columns, names.constraints(), out);
            case TYPE -> pair(key, column, columns, names.types(), out);
            case POLICY -> policy(key, column, columns, names.policies(), out);
            case OWN_BACKEND -> typed(column, "pg_catalog.int4") && out.add(new OwnBackend(column.attnum()));
            case RELATION_OID_OR_NULL -> typed(column, "pg_catalog.oid") && out.add(new AnyGroup(Set.of(
                    Set.of(new IsNull(column.attnum())),
                    Set.of(new In(column.attnum(), ElementType.OID, visibleRelations(visible))))));
            case NULL -> out.add(new IsNull(column.attnum()));
            case NO_ROWS -> nameTyped(column) && out.add(new In(column.attnum(), ElementType.NAME, Set.of()));
        };
    }

    /** The visible user relations' OIDs (pg_class's visible set holds no built-in one). */
    private static Set<String> visibleRelations(VisibleCatalog visible) {
        return visible.oids(VisibleCatalog.Catalog.PG_CLASS).stream().mapToObj(Long::toString)
                .collect(Collectors.toSet());
    }

    private static boolean policy(FilteredView.Key key, ViewColumns.Column column, List<ViewColumns.Column> columns,
                                  SortedMap<String, SortedMap<String, SortedSet<String>>> policies,
                                  List<Conjunct> out) {
        ViewColumns.Column schema = column(columns, key.schemaColumn());
        ViewColumns.Column table = column(columns, key.tableColumn());
        if (schema == null || table == null || !nameTyped(column) || !nameTyped(schema) || !nameTyped(table)) {
            return false;
        }
        out.addAll(triples(schema.attnum(), table.attnum(), column.attnum(), policies));
        return true;
    }

    /**
     * The conjuncts of a (schema, table, name) triple key: one group per table, {@code s = 'a' AND t = 'b' AND n =
     * ANY (..)}, written as a pair key's groups are (three independent lists would admit a hidden policy that shares a
     * visible one's name on another visible table).
     */
    static List<Conjunct> triples(int schemaAttnum, int tableAttnum, int nameAttnum,
                                  SortedMap<String, SortedMap<String, SortedSet<String>>> bySchema) {
        List<List<Conjunct>> groups = new ArrayList<>();
        bySchema.forEach((schema, tables) -> tables.forEach((table, names) -> groups.add(List.of(
                new Eq(schemaAttnum, schema), new Eq(tableAttnum, table), new In(nameAttnum, ElementType.NAME,
                        names)))));
        if (groups.isEmpty()) {
            return List.of(new In(nameAttnum, ElementType.NAME, Set.of()));
        }
        if (groups.size() == 1) {
            return groups.getFirst();
        }
        return List.of(new AnyGroup(groups.stream().map(Set::copyOf).collect(Collectors.toSet())));
    }

    private static boolean pair(FilteredView.Key key, ViewColumns.Column column, List<ViewColumns.Column> columns,
                                SortedMap<String, SortedSet<String>> bySchema, List<Conjunct> out) {
        ViewColumns.Column schema = column(columns, key.schemaColumn());
        if (schema == null || !nameTyped(column) || !nameTyped(schema)) {
            return false;
        }
        out.addAll(pairs(schema.attnum(), column.attnum(), bySchema));
        return true;
    }

    /** The conjuncts of a (schema, name) pair key: see the class comment. */
    static List<Conjunct> pairs(int schemaAttnum, int nameAttnum, SortedMap<String, SortedSet<String>> bySchema) {
        List<Set<Conjunct>> groups = new ArrayList<>();
        bySchema.forEach((schema, set) -> groups.add(Set.of(new Eq(schemaAttnum, schema),
                new In(nameAttnum, ElementType.NAME, set))));
        if (groups.isEmpty()) {
            return List.of(new In(nameAttnum, ElementType.NAME, Set.of()));
        }
        if (groups.size() == 1) {
            // In a fixed order, so the same filter is the same text in every run.
            Map.Entry<String, SortedSet<String>> only = bySchema.entrySet().iterator().next();
            return List.of(new Eq(schemaAttnum, only.getKey()), new In(nameAttnum, ElementType.NAME, only.getValue()));
        }
        return List.of(new AnyGroup(Set.copyOf(groups)));
    }

    private static ViewColumns.Column column(List<ViewColumns.Column> columns, String name) {
        return columns.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
    }

    private static boolean typed(ViewColumns.Column column, String type) {
        return column.type().equals(type);
    }

    private static boolean nameTyped(ViewColumns.Column column) {
        return typed(column, "pg_catalog.name") || typed(column, "information_schema.sql_identifier");
    }

    private static int eqFirst(Conjunct a, Conjunct b) {
        int kind = Boolean.compare(!(a instanceof Eq), !(b instanceof Eq));
        // Two Eqs (a triple's schema and table) in attnum order, so a filter is the same text in every run.
        return kind != 0 || !(a instanceof Eq x) || !(b instanceof Eq y) ? kind : Integer.compare(x.attnum(), y.attnum());
    }

    /** A PostgreSQL array literal of {@code values}, each element double-quoted. */
    static String arrayLiteral(Set<String> values) {
        return values.stream().sorted().map(v -> "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                .collect(Collectors.joining(",", "{", "}"));
    }

    /** An escape string constant, read the same whatever standard_conforming_strings is. */
    static String literal(String value) {
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }

    public boolean isEmpty() {
        return byName.isEmpty();
    }

    /** The filter of the view {@code schema.relation}, or null when it is not filtered. */
    Filter byName(String schema, String relation) {
        return byName.get(schema + "." + relation);
    }

    /** The filter of the view with this OID, or null. */
    Filter byRelid(long relid) {
        return byRelid.get(relid);
    }

    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof ViewFilters that && hash == that.hash
                && byName.equals(that.byName);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "ViewFilters" + byName.keySet();
    }
}
