package io.pgward.guard.catalog;

/**
 * The Query nodes around a point of a stored parse tree, innermost first: what a Var's {@code varlevelsup} counts
 * up through, and a CTE reference's {@code ctelevelsup}. Immutable, so the walker hands the same value to every
 * call it records inside one Query.
 */
record QueryScope(TreeValue.Node query, QueryScope outer) {

    /** The scope of a Query nested directly in this one (a subquery, CTE, sublink or set-operation branch). */
    QueryScope enter(TreeValue.Node nested) {
        return new QueryScope(nested, this);
    }

    /** The scope {@code levels} Queries out, or null when the tree has fewer. */
    QueryScope up(long levels) {
        QueryScope scope = this;
        for (long i = 0; i < levels && scope != null; i++) {
            scope = scope.outer;
        }
        return scope;
    }
}
