package io.pgward.guard.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * L3's proof that a Query reads a covered catalog only through this login's filter: the Query must be, node for
 * node, the tree PostgreSQL made of pgward's own filter text for that catalog ({@link FilterReferences}), whoever
 * wrote the statement's text. Then every row it yields is a visible row, and nothing of the statement around it runs
 * on the others.
 *
 * <p>Compared with the reference, text positions and permission column sets left out ({@link SameTree}):
 * <ul>
 *   <li>everything but the target list: the range table (the one catalog relation, without alias or sampling),
 *       the jointree and its WHERE (the filter, constants byte for byte, so one OID more or another order is not
 *       the filter), every flag, clause and list (no grouping, sort, DISTINCT, LIMIT, CTE, set operation, row
 *       mark);</li>
 *   <li>the fence, in {@link FilterFence} and nowhere else: required, unless the caller has proven that no
 *       condition of the statement can observe a hidden row ({@link QuietQuals});</li>
 *   <li>each target entry: a plain output column (not junk, not a sort or group key) whose expression equals one of
 *       the reference's. So a subquery may carry fewer columns, in any order and under any name, but never an
 *       unmasked ACL, a whole row, a computed value or a column of another relation.</li>
 * </ul>
 * {@code hasSubLinks} is left to the target list: the reference's masked ACL columns hold sublinks, and a subquery
 * that carries none of them has none; any other sublink would have to sit in a compared field.
 *
 * <p>Anything else is not proven, and the catalog relation is refused by the relation rule as before. Without the
 * references (not read yet, or a catalog without a filter) nothing is proven.
 */
final class FilterProof {

    /** RTEKind RTE_RELATION. */
    private static final long RTE_RELATION = 0;
    /** Query fields compared apart from the rest. */
    private static final Set<String> COMPARED_APART;

    static {
        Set<String> apart = new java.util.HashSet<>(Set.of("targetList", "hasSubLinks"));
        apart.addAll(FilterFence.FIELDS);
        COMPARED_APART = Set.copyOf(apart);
    }

    private FilterProof() {
    }

    /**
     * The nodes of {@code query} that name the filtered catalog (its range table entry and, from PostgreSQL 16, its
     * permission entry) when {@code query} is a proven filter subquery; empty otherwise.
     */
    static List<TreeValue.Node> proven(TreeValue.Node query, CatalogFilters filters) {
        return proven(query, filters, false);
    }

    /**
     * As {@link #proven(TreeValue.Node, CatalogFilters)}; with {@code quietStatement} a filter subquery without the
     * fence is proven as well. Pass true only when {@link QuietQuals} found no condition of the whole statement that
     * can observe a hidden row.
     */
    static List<TreeValue.Node> proven(TreeValue.Node query, CatalogFilters filters, boolean quietStatement) {
        FilterReferences references = filters.references();
        if (references == null || !query.tag().equals("QUERY")) {
            return List.of();
        }
        List<TreeValue> rtable = list(query, "rtable");
        if (rtable.size() != 1 || !(rtable.getFirst() instanceof TreeValue.Node rte)
                || !(rte.tag().equals("RTE") || rte.tag().equals("RANGETBLENTRY"))
                || rte.number("rtekind") != RTE_RELATION) {
            return List.of();
        }
        FilterReferences.Reference reference = references.of(rte.number("relid"));
        if (reference == null
                || !SameTree.equal(query, reference.query(), COMPARED_APART)
                || !FilterFence.holds(query, reference.query(), quietStatement)
                || !targetsAreReferenceColumns(query, reference)) {
            return List.of();
        }
        List<TreeValue.Node> proven = new ArrayList<>();
        proven.add(rte);
        for (TreeValue permission : list(query, "rteperminfos")) {
            proven.add((TreeValue.Node) permission);
        }
        return proven;
    }

    private static boolean targetsAreReferenceColumns(TreeValue.Node query, FilterReferences.Reference reference) {
        for (TreeValue item : list(query, "targetList")) {
            if (!(item instanceof TreeValue.Node entry) || !entry.tag().equals("TARGETENTRY")
                    || !"false".equals(entry.scalar("resjunk")) || entry.number("ressortgroupref") != 0) {
                return false;
            }
            TreeValue expr = entry.field("expr").orElse(TreeValue.Null.INSTANCE);
            if (reference.targets().stream().noneMatch(t -> SameTree.equal(expr, t))) {
                return false;
            }
        }
        return true;
    }

    /** A list field's items; an absent, null or non-list field is empty. */
    private static List<TreeValue> list(TreeValue.Node node, String field) {
        return node.field(field).orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.NodeList l
                ? l.items() : List.of();
    }
}
