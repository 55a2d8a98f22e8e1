package io.pgward.guard.catalog;

import io.pgward.guard.selection.OidSet;

/**
 * An ACL column as a login with a selection sees it (design section 3.4): the entries whose grantee is PUBLIC or a
 * visible role and whose grantor is a visible role, in their order; NULL (the default privileges) stays NULL. So
 * {@code \dp} and a driver's {@code n.*} show the grants among the roles the login may see, and never the name or
 * the existence of a grant to a role it may not.
 *
 * <p>{@code aclexplode} turns one entry into a row per privilege with its grantor and grantee OIDs; an entry is
 * kept when none of its rows names a role outside the set.
 */
final class AclMask {

    private AclMask() {
    }

    /** The masked value of the aclitem[] column {@code column} (quoted), for the visible roles {@code roles}. */
    static String expression(String column, OidSet roles) {
        String visible = "ANY ('" + roles.arrayLiteral() + "'::pg_catalog.oid[])";
        return "CASE WHEN " + column + " IS NOT NULL THEN ARRAY(SELECT a.item FROM pg_catalog.unnest(" + column
                + ") WITH ORDINALITY AS a(item, n) WHERE NOT EXISTS (SELECT FROM pg_catalog.aclexplode(ARRAY[a.item])"
                + " AS e WHERE NOT ((e.grantee OPERATOR(pg_catalog.=) '0'::pg_catalog.oid OR e.grantee"
                + " OPERATOR(pg_catalog.=) " + visible + ") AND e.grantor OPERATOR(pg_catalog.=) " + visible
                + ")) ORDER BY a.n) END";
    }
}
