package io.pgward.guard.catalog;

import io.pgward.guard.selection.OidSet;
import io.pgward.guard.selection.VisibleCatalog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The filters of one login's visible catalog: for each {@link CoveredCatalog} the subquery that {@link CatalogRewrite}
 * puts in place of a reference to it, and what L3 accepts as that subquery ({@link FilterProof}). Both come from this
 * one value, so the text pgward writes and the tree it accepts cannot drift apart.
 *
 * <p>The filter of a catalog is one condition per key column, ANDed:
 * <pre>
 *   ("k" OPERATOR(pg_catalog.&lt;) '16384'::pg_catalog.oid OR "k" OPERATOR(pg_catalog.=) ANY ('{..}'::pg_catalog.oid[]))
 *                                  -- catalogs whose built-in rows are visible (VisibleCatalog.Catalog.builtInsVisible)
 *   "k" OPERATOR(pg_catalog.=) ANY ('{..}'::pg_catalog.oid[])     -- pg_namespace: only the listed schemas
 * </pre>
 * and the subquery is
 * {@code (SELECT "c1", ..., NULL::pg_catalog.aclitem[] AS "relacl", ..., [system columns] FROM pg_catalog.X WHERE
 * <filter> OFFSET 0)}. ACL columns are NULL: their entries name roles the login may not see (the design's masked
 * ACLs are a later step). {@code OFFSET 0} is the fence: PostgreSQL neither pulls such a subquery up into the
 * statement nor pushes the statement's own conditions down into it (is_simple_subquery, subquery_is_pushdown_safe,
 * 14 to 18), so no condition of the client's ever runs on a hidden row (design section 3.3). It is left out only
 * for a statement whose conditions {@link QuietQuals} proves unable to observe a hidden row.
 *
 * <p>Equal by content (the visible catalog's fingerprint and the columns): part of {@link TableSelection}, hence of
 * the verdict cache's key.
 */
public final class CatalogFilters {

    /** No filters: every catalog relation is refused as before. */
    public static final CatalogFilters NONE = new CatalogFilters(Map.of(), "none");

    /** PostgreSQL's pg_catalog system columns, which {@code *} leaves out; a subquery carries those a statement names. */
    static final List<String> SYSTEM_COLUMNS = List.of("tableoid", "ctid", "xmin", "cmin", "xmax", "cmax");

    /**
     * One key column of a filter.
     *
     * @param builtIns rows whose key is below FirstNormalObjectId are visible
     * @param oids the listed visible OIDs
     */
    record KeyFilter(String column, int attnum, boolean builtIns, OidSet oids) {
    }

    /** The filter of one covered catalog. */
    record Filter(CoveredCatalog catalog, long relid, List<CatalogColumns.Column> columns, List<KeyFilter> keys) {

        /** The WHERE condition. */
        String condition() {
            List<String> parts = new ArrayList<>();
            for (KeyFilter key : keys) {
                String column = quote(key.column());
                String listed = column + " OPERATOR(pg_catalog.=) ANY ('" + key.oids().arrayLiteral()
                        + "'::pg_catalog.oid[])";
                parts.add(key.builtIns() ? "(" + column + " OPERATOR(pg_catalog.<) '"
                        + VisibleCatalog.FIRST_NORMAL_OBJECT_ID + "'::pg_catalog.oid OR " + listed + ")" : listed);
            }
            return String.join(" AND ", parts);
        }

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
            StringBuilder text = new StringBuilder("(SELECT ");
            boolean first = true;
            for (CatalogColumns.Column column : columns) {
                if (column.objectIdentifier() && !star && !named.contains(column.name())) {
                    continue;
                }
                if (!first) {
                    text.append(", ");
                }
                first = false;
                text.append(column.acl() ? "NULL::pg_catalog.aclitem[] AS " + quote(column.name())
                        : quote(column.name()));
            }
            for (String system : SYSTEM_COLUMNS) {
                if (named.contains(system)) {
                    text.append(", ").append(quote(system));
                }
            }
            return text.append(" FROM pg_catalog.").append(catalog.relation()).append(" WHERE ")
                    .append(condition()).append(fenced ? " OFFSET 0)" : ")").toString();
        }

        boolean aclColumn(long attnum) {
            return columns.stream().anyMatch(c -> c.acl() && c.attnum() == attnum);
        }
    }

    private final Map<String, Filter> byName;
    private final Map<Long, Filter> byRelid;
    private final String fingerprint;

    private CatalogFilters(Map<String, Filter> byName, String fingerprint) {
        this.byName = byName;
        Map<Long, Filter> relids = new LinkedHashMap<>();
        byName.values().forEach(f -> relids.put(f.relid(), f));
        this.byRelid = Collections.unmodifiableMap(relids);
        this.fingerprint = fingerprint;
    }

    /**
     * The filters of {@code visible} for the catalogs {@code columns} describes; a covered catalog the columns lack
     * (or whose key column they lack) is left out, and so stays refused.
     */
    public static CatalogFilters of(VisibleCatalog visible, CatalogColumns columns) {
        Objects.requireNonNull(visible, "visible");
        Objects.requireNonNull(columns, "columns");
        Map<String, Filter> filters = new LinkedHashMap<>();
        for (CoveredCatalog catalog : CoveredCatalog.values()) {
            List<CatalogColumns.Column> list = columns.columns(catalog.relation());
            long relid = columns.relid(catalog.relation());
            List<KeyFilter> keys = new ArrayList<>();
            for (CoveredCatalog.Key key : catalog.keys()) {
                list.stream().filter(c -> c.name().equals(key.column()) && !c.acl()).findFirst().ifPresent(c ->
                        keys.add(new KeyFilter(c.name(), c.attnum(),
                                key.catalog() == null || key.catalog().builtInsVisible(),
                                key.catalog() == null ? OidSet.EMPTY : visible.oids(key.catalog()))));
            }
            if (relid != 0 && keys.size() == catalog.keys().size()) {
                filters.put(catalog.relation(), new Filter(catalog, relid, list, List.copyOf(keys)));
            }
        }
        return new CatalogFilters(Collections.unmodifiableMap(filters),
                visible.fingerprint() + "/" + columns.hashCode() + "/" + filters.keySet());
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
