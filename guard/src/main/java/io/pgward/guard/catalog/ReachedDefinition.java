package io.pgward.guard.catalog;

/**
 * The code of a view's definition or of a row-security policy, reached from a relation the statement reads.
 *
 * @param read the relation the statement itself reads through which the definition was reached
 * @param relation the view, or the table of the policy
 * @param definedOn {@code relation}, qualified
 * @param code what the definition uses; its relations leave out {@code relation} itself
 */
record ReachedDefinition(long read, long relation, String definedOn, Kind kind, References code) {

    enum Kind {
        VIEW,
        /** Reading one scans the rows its query stored when it was last refreshed; the query does not run. */
        MATERIALIZED_VIEW,
        POLICY
    }

    boolean policy() {
        return kind == Kind.POLICY;
    }
}
