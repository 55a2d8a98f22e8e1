package io.pgward.guard.catalog;

import java.util.Set;

/**
 * The fence of a filter subquery, in one place: the text {@link CatalogFilters} writes and the test
 * {@link FilterProof} applies. With {@code OFFSET 0} PostgreSQL neither pulls the subquery up into the statement nor
 * pushes the statement's own conditions down into it (is_simple_subquery, subquery_is_pushdown_safe, 14 to 18), so
 * none of the client's conditions runs on a hidden row (design section 3.3; the division-by-zero probe of
 * FilteredCatalogPostgresTest). A filter subquery may go without it only in a statement whose conditions
 * {@link QuietQuals} proves unable to observe a hidden row.
 */
final class FilterFence {

    /** Appended to every filter subquery's text, and so to every reference tree. */
    static final String TEXT = " OFFSET 0";

    /** The Query fields the fence sets; {@link FilterProof} compares them here and nowhere else. */
    static final Set<String> FIELDS = Set.of("limitOffset", "limitOption");

    private FilterFence() {
    }

    /**
     * Whether the statement's filter subquery {@code query} is fenced as its reference tree is, or, in a quiet
     * statement, has neither OFFSET nor LIMIT (the reference's other fields, LIMIT's count among them, are compared
     * by {@link FilterProof}).
     */
    static boolean holds(TreeValue.Node query, TreeValue.Node reference, boolean quietStatement) {
        if (quietStatement && query.field("limitOffset").orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Null
                && query.field("limitCount").orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Null) {
            return true;
        }
        for (String field : FIELDS) {
            if (!SameTree.equal(query.field(field).orElse(TreeValue.Null.INSTANCE),
                    reference.field(field).orElse(TreeValue.Null.INSTANCE))) {
                return false;
            }
        }
        return reference.field("limitOffset").orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Node;
    }
}
