package io.pgward.guard.catalog;

import io.pgward.guard.selection.OidSet;
import io.pgward.guard.selection.VisibleCatalog;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * The filters of one login's visible catalog: for each {@link CoveredCatalog} the subquery that {@link CatalogRewrite}
 * puts in place of a reference to it, and the text whose parse tree L3 accepts as that subquery
 * ({@link FilterReferences}, {@link FilterProof}). Both come from this one value, so the text pgward writes and the
 * tree it accepts cannot drift apart.
 *
 * <p>The subquery is {@code (SELECT "c1", ..., <masked ACL> AS "relacl", ..., [system columns] FROM pg_catalog.X
 * WHERE <RowFilter condition> OFFSET 0)}. ACL columns are masked ({@link AclMask}); the per-role settings of
 * pg_roles and pg_user are NULL. {@code OFFSET 0} is the fence ({@link FilterFence}): PostgreSQL neither pulls such
 * a subquery up into the statement nor pushes the statement's own conditions down into it (is_simple_subquery,
 * subquery_is_pushdown_safe, 14 to 18), so no condition of the client's ever runs on a hidden row (design section
 * 3.3). It is left out only for a statement whose conditions {@link QuietQuals} proves unable to observe a
 * hidden row.
 *
 * <p>Equal by content (the visible catalog's fingerprint and the columns): part of {@link TableSelection}, hence of
 * the verdict cache's key. The reference trees PostgreSQL made of the filters are kept here once read
 * ({@link #references}); they are derived from the content and take no part in equality.
 */
public final class CatalogFilters {

    /** No filters: every catalog relation is refused as before. */
    public static final CatalogFilters NONE = new CatalogFilters(Map.of(), VisibleCatalog.NONE, "none");

    /** PostgreSQL's pg_catalog system columns, which {@code *} leaves out; a subquery carries those a statement names. */
    static final List<String> SYSTEM_COLUMNS = List.of("tableoid", "ctid", "xmin", "cmin", "xmax", "cmax");

    /**
     * The filter of one covered catalog.
     *
     * @param condition the WHERE condition ({@link RowFilter#condition})
     * @param roles the visible roles, which ACL columns keep
     * @param computed the select-list item of each column not served as it is (masked ACLs, withheld columns)
     * @param table the catalog is a table, with system columns (pg_roles and pg_user are views)
     */
    record Filter(CoveredCatalog catalog, long relid, List<CatalogColumns.Column> columns, String condition,
                  OidSet roles, Map<String, String> computed, boolean table) {

        /**
         * The subquery, in parentheses: the catalog's columns in order, and after them the system columns the
         * statement names. A column of an object-identifier type is left out unless the statement names it or has a
         * {@code *} (then L3 refuses it, as it refused the catalog before).
         *
         * @param named every identifier of the statement, by value
         * @param star the statement has a {@code *} token
         */
        String subquery(Set<String> named, boolean star) {
            return subquery(named, star, true);
        }

        /** As {@link #subquery(Set, boolean)}; without {@code fenced}, no {@code OFFSET 0} (design 3.3). */
        String subquery(Set<String> named, boolean star, boolean fenced) {
            // A masked ACL column is computed (AclMask): carried only where the statement may read it, so that a
            // statement that does not is not fenced for the mask's functions (QuietQuals).
            return subquery(column -> !column.objectIdentifier() && !column.acl() || star
                            || named.contains(column.name()),
                    system -> named.contains(system), fenced);
        }

        /**
         * The subquery with every column and every system column: each column a statement's subquery may carry is
         * a column of this one, with the same expression.
         */
        String reference() {
            return subquery(column -> true, system -> true, true);
        }

        private String subquery(Predicate<CatalogColumns.Column> carried, Predicate<String> systemCarried,
                                boolean fenced) {
            List<String> items = new ArrayList<>();
            for (CatalogColumns.Column column : columns) {
                if (carried.test(column)) {
                    items.add(item(column));
                }
            }
            if (table) {
                SYSTEM_COLUMNS.stream().filter(systemCarried).map(CatalogFilters::quote).forEach(items::add);
            }
            return "(SELECT " + String.join(", ", items) + " FROM pg_catalog." + catalog.relation() + " WHERE "
                    + condition + (fenced ? FilterFence.TEXT : "") + ")";
        }

        private String item(CatalogColumns.Column column) {
            return computed.getOrDefault(column.name(), quote(column.name()));
        }
    }

    private final Map<String, Filter> byName;
    private final Map<Long, Filter> byRelid;
    private final VisibleCatalog visible;
    private final String fingerprint;
    private final AtomicReference<FilterReferences> references = new AtomicReference<>();

    private CatalogFilters(Map<String, Filter> byName, VisibleCatalog visible, String fingerprint) {
        this.byName = byName;
        this.visible = visible;
        Map<Long, Filter> relids = new LinkedHashMap<>();
        byName.values().forEach(f -> relids.put(f.relid(), f));
        this.byRelid = Collections.unmodifiableMap(relids);
        this.fingerprint = fingerprint;
    }

    /**
     * The filters of {@code visible} for the catalogs {@code columns} describes; a covered catalog the columns lack
     * (or one of whose filtered columns they lack) is left out, and so stays refused.
     */
    public static CatalogFilters of(VisibleCatalog visible, CatalogColumns columns) {
        Objects.requireNonNull(visible, "visible");
        Objects.requireNonNull(columns, "columns");
        Map<String, Filter> filters = new LinkedHashMap<>();
        OidSet roles = visible.oids(VisibleCatalog.Catalog.PG_AUTHID);
        for (CoveredCatalog catalog : CoveredCatalog.values()) {
            List<CatalogColumns.Column> list = columns.columns(catalog.relation());
            long relid = columns.relid(catalog.relation());
            boolean keysPresent = catalog.rows().columns().stream().allMatch(key -> list.stream()
                    .anyMatch(c -> c.name().equals(key) && !c.acl()));
            if (relid != 0 && keysPresent) {
                filters.put(catalog.relation(), new Filter(catalog, relid, list,
                        catalog.rows().condition(visible), roles, computed(catalog, list, visible),
                        columns.table(catalog.relation())));
            }
        }
        return new CatalogFilters(Collections.unmodifiableMap(filters), visible,
                visible.fingerprint() + "/" + columns.hashCode() + "/" + filters.keySet());
    }

    /** The select-list items of the columns of {@code catalog} that are not served as they are. */
    private static Map<String, String> computed(CoveredCatalog catalog, List<CatalogColumns.Column> columns,
                                                VisibleCatalog visible) {
        Map<String, String> items = new LinkedHashMap<>();
        for (CatalogColumns.Column column : columns) {
            String name = quote(column.name());
            CoveredCatalog.Withheld withheld = catalog.withheldColumns().get(column.name());
            if (withheld != null && withheld.shownWith() == null) {
                items.put(column.name(), "NULL::" + withheld.type() + " AS " + name);
            } else if (withheld != null) {
                items.put(column.name(), "CASE WHEN " + withheld.shownWhere().condition(visible) + " THEN " + name
                        + withheld.elseBranch() + " END AS " + name);
            } else if (column.acl()) {
                items.put(column.name(), AclMask.expression(name, visible.oids(VisibleCatalog.Catalog.PG_AUTHID))
                        + " AS " + name);
            }
        }
        return Collections.unmodifiableMap(items);
    }

    /** Every filter, in {@link CoveredCatalog} order. */
    Collection<Filter> all() {
        return byName.values();
    }

    /** The reference trees, once {@link #remember}ed; null before. */
    FilterReferences references() {
        return references.get();
    }

    /** Keeps the reference trees read for these filters (the first reading wins; every reading is the same). */
    FilterReferences remember(FilterReferences read) {
        references.compareAndSet(null, read);
        return references.get();
    }

    /** The visible catalog the filters were made from; what the gated functions' constants are checked against. */
    VisibleCatalog visible() {
        return visible;
    }

    public boolean isEmpty() {
        return byName.isEmpty();
    }

    /** The filter of the pg_catalog relation named {@code relation}, or null when it is not covered. */
    Filter byName(String relation) {
        return byName.get(relation);
    }

    /** The filter of the catalog relation with this OID, or null when it is not covered. */
    Filter byRelid(long relid) {
        return byRelid.get(relid);
    }

    static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CatalogFilters that && fingerprint.equals(that.fingerprint)
                && byName.equals(that.byName);
    }

    @Override
    public int hashCode() {
        return fingerprint.hashCode();
    }

    @Override
    public String toString() {
        return "CatalogFilters" + byName.keySet();
    }
}
