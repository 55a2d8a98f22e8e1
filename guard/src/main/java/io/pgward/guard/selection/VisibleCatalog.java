package io.pgward.guard.selection;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.stream.LongStream;

/**
 * What a read-only login with a table selection may see of the system catalogs: per catalog, the OIDs of the
 * user objects it sees, resolved with the selection on the login's control connection and replaced with it after
 * every schema change (a new {@link ResolvedSelection} carries a new value). Used by the catalog rewrite, step 2 of
 * {@code docs/filtered-catalog-design.md}; nothing else consults it yet, and it changes no verdict.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Built-in objects ({@code oid < 16384}, PostgreSQL's FirstNormalObjectId, the same in 14 to 18) are visible
 *       in every catalog except {@link Catalog#PG_NAMESPACE} and {@link Catalog#PG_AUTHID}: schemas and roles are
 *       visible only when listed, so {@code public} (2200) disappears when it holds nothing visible and built-in
 *       roles are not shown unless they own something visible.</li>
 *   <li>The sets list user objects only where built-ins are implicit; {@link #oids} is what a filter writes as its
 *       constant.</li>
 *   <li>Equal contents give equal values and an equal {@link #fingerprint}; later steps key their caches on it, and
 *       a cache so keyed stays right across a schema change that leaves the sets as they were.</li>
 * </ul>
 *
 * <p>What is in each set is decided by {@code VisibleSets} (its class comment lists the rules).
 */
public final class VisibleCatalog {

    /** PostgreSQL's FirstNormalObjectId: every OID below it was assigned by initdb. */
    public static final long FIRST_NORMAL_OBJECT_ID = 16384;

    /** No selection, or one not resolved against a database: built-ins only, and no schema or role. */
    public static final VisibleCatalog NONE = new VisibleCatalog(0, 0, new EnumMap<>(Catalog.class));

    /** The catalogs the visible sets describe; rows of other catalogs are keyed on these (attrelid, enumtypid). */
    public enum Catalog {
        /** Relations: the selection, its indexes, owned sequences, TOAST tables, and composite types' relations. */
        PG_CLASS("pg_class", true),
        /** Schemas: pg_catalog, information_schema and those holding a visible relation, type or collation. */
        PG_NAMESPACE("pg_namespace", false),
        /** Types: the row types of visible relations and the user types their columns use, closed over. */
        PG_TYPE("pg_type", true),
        /** Constraints of visible relations (not a foreign key to a hidden one) and of visible domains. */
        PG_CONSTRAINT("pg_constraint", true),
        /** Column defaults of visible relations. */
        PG_ATTRDEF("pg_attrdef", true),
        /** Rewrite rules of visible relations (a view's or materialized view's {@code _RETURN}). */
        PG_REWRITE("pg_rewrite", true),
        /** Triggers of visible relations whose function is built in and whose constraint, if any, is visible. */
        PG_TRIGGER("pg_trigger", true),
        /** User collations of visible columns and types. */
        PG_COLLATION("pg_collation", true),
        /** Roles (pg_roles, pg_authid): the owners of visible objects and the session's role. */
        PG_AUTHID("pg_authid", false),
        /**
         * Rules of visible relations whose actions read only visible relations: their stored trees, which carry the
         * names and columns of what they read, may be shown. Built-in rules (the system views') are.
         */
        RULE_ACTIONS("pg_rewrite", true),
        /** Policies of visible relations whose expressions read only visible relations: their trees may be shown. */
        POLICY_EXPRESSIONS("pg_policy", false);

        private final String relation;
        private final boolean builtInsVisible;

        Catalog(String relation, boolean builtInsVisible) {
            this.relation = relation;
            this.builtInsVisible = builtInsVisible;
        }

        /** The catalog's name in pg_catalog. */
        public String relation() {
            return relation;
        }

        /** Whether every built-in row ({@code oid < 16384}) is visible without being listed. */
        public boolean builtInsVisible() {
            return builtInsVisible;
        }
    }

    private final int serverVersionNum;
    private final long sessionRole;
    private final Map<Catalog, OidSet> sets;
    private final String fingerprint;

    private VisibleCatalog(int serverVersionNum, long sessionRole, EnumMap<Catalog, OidSet> sets) {
        for (Catalog catalog : Catalog.values()) {
            sets.putIfAbsent(catalog, OidSet.EMPTY);
        }
        this.serverVersionNum = serverVersionNum;
        this.sessionRole = sessionRole;
        this.sets = Collections.unmodifiableMap(sets);
        this.fingerprint = fingerprint(serverVersionNum, sessionRole, sets);
    }

    /**
     * @param serverVersionNum the server's {@code server_version_num}, which decides the filters' column lists
     * @param sessionRole the OID of the role the login's backend sessions run as (also in the roles set)
     * @param sets the listed OIDs per catalog; a catalog left out lists none
     */
    public static VisibleCatalog of(int serverVersionNum, long sessionRole, Map<Catalog, OidSet> sets) {
        EnumMap<Catalog, OidSet> copy = new EnumMap<>(Catalog.class);
        sets.forEach((catalog, oids) -> copy.put(Objects.requireNonNull(catalog), Objects.requireNonNull(oids)));
        OidSet roles = copy.getOrDefault(Catalog.PG_AUTHID, OidSet.EMPTY);
        if (sessionRole != 0 && !roles.contains(sessionRole)) {
            copy.put(Catalog.PG_AUTHID, OidSet.of(LongStream.concat(roles.stream(), LongStream.of(sessionRole))
                    .toArray()));
        }
        return new VisibleCatalog(serverVersionNum, sessionRole, copy);
    }

    /** The server's {@code server_version_num} (170005 for 17.5); 0 for {@link #NONE}. */
    public int serverVersionNum() {
        return serverVersionNum;
    }

    /** The OID of the session's role; 0 for {@link #NONE}. */
    public long sessionRole() {
        return sessionRole;
    }

    /** The listed OIDs of {@code catalog}: user objects, and for schemas and roles every visible one. */
    public OidSet oids(Catalog catalog) {
        return sets.get(catalog);
    }

    /** Whether the row of {@code catalog} with this OID is visible. */
    public boolean visible(Catalog catalog, long oid) {
        return (catalog.builtInsVisible && oid > 0 && oid < FIRST_NORMAL_OBJECT_ID) || sets.get(catalog).contains(oid);
    }

    public boolean relation(long oid) {
        return visible(Catalog.PG_CLASS, oid);
    }

    public boolean namespace(long oid) {
        return visible(Catalog.PG_NAMESPACE, oid);
    }

    public boolean type(long oid) {
        return visible(Catalog.PG_TYPE, oid);
    }

    public boolean constraint(long oid) {
        return visible(Catalog.PG_CONSTRAINT, oid);
    }

    public boolean attributeDefault(long oid) {
        return visible(Catalog.PG_ATTRDEF, oid);
    }

    public boolean rule(long oid) {
        return visible(Catalog.PG_REWRITE, oid);
    }

    public boolean trigger(long oid) {
        return visible(Catalog.PG_TRIGGER, oid);
    }

    public boolean collation(long oid) {
        return visible(Catalog.PG_COLLATION, oid);
    }

    public boolean role(long oid) {
        return visible(Catalog.PG_AUTHID, oid);
    }

    /**
     * A digest of the server version, the session role and every set (SHA-256, hex): the version to key caches of
     * rewritten statements and filter trees on.
     */
    public String fingerprint() {
        return fingerprint;
    }

    private static String fingerprint(int serverVersionNum, long sessionRole, Map<Catalog, OidSet> sets) {
        StringBuilder text = new StringBuilder().append(serverVersionNum).append(';').append(sessionRole);
        sets.forEach((catalog, oids) -> text.append(';').append(catalog.relation).append('=').append(oids));
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.toString().getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof VisibleCatalog that && serverVersionNum == that.serverVersionNum
                && sessionRole == that.sessionRole && sets.equals(that.sets);
    }

    @Override
    public int hashCode() {
        return fingerprint.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("VisibleCatalog[server=").append(serverVersionNum)
                .append(", role=").append(sessionRole);
        sets.forEach((catalog, oids) -> text.append(", ").append(catalog.relation).append('=').append(oids));
        return text.append(']').toString();
    }
}
