package io.pgward.guard.selection;

import io.pgward.guard.selection.VisibleCatalog.Catalog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The names under which a login's {@link VisibleCatalog} shows in the system views and information_schema, which
 * expose names rather than OIDs: read with the selection, in the same snapshot, so a rename gives a new resolution and
 * new names.
 *
 * <ul>
 *   <li>{@link #relations}: per schema, the names of the visible user relations (the selection, its indexes and
 *       owned sequences) in visible schemas. A relation name is unique in its schema, so a (schema, name) pair names
 *       exactly one relation.</li>
 *   <li>{@link #schemas}: the visible schemas' names.</li>
 *   <li>{@link #constraints}: per schema, the names of the visible constraints (built-in check constraints, those of
 *       information_schema's domains, and those of the visible set) that no hidden constraint shares: constraint names are unique per table, not per schema, and the views
 *       that show a constraint without its table ({@code referential_constraints}, {@code check_constraints}) must not
 *       show a hidden one under a visible one's name. Before PostgreSQL 18, information_schema also shows each NOT NULL
 *       column as a constraint named {@code <schema oid>_<table oid>_<attnum>_not_null}; those of visible relations
 *       are listed too.</li>
 *   <li>{@link #types}: per schema, the names of the visible user types and of the built-in domains
 *       (information_schema's cardinal_number, sql_identifier, ...). A type name is unique in its schema.</li>
 *   <li>{@link #policies}: per schema and table, the names of the row-security policies pg_policies may show: those
 *       whose expressions may be shown ({@link Catalog#POLICY_EXPRESSIONS}) and whose roles are all visible or
 *       PUBLIC. pg_policies prints a policy's role names and its deparsed expressions, so a policy naming a hidden
 *       role is not shown at all. A policy name is unique per table, not per schema.</li>
 * </ul>
 */
public final class VisibleNames {

    /** No names: every name-keyed view shows nothing. */
    public static final VisibleNames NONE = new VisibleNames(new TreeMap<>(), new TreeSet<>(), new TreeMap<>(),
            new TreeMap<>(), new TreeMap<>());

    static final String SQL = """
            SELECT 'r', n.nspname::pg_catalog.text, c.relname::pg_catalog.text
              FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE c.oid = ANY (?::pg_catalog.oid[]) AND n.oid = ANY (?::pg_catalog.oid[])
            UNION ALL
            SELECT 's', n.nspname::pg_catalog.text, '' FROM pg_catalog.pg_namespace n WHERE n.oid = ANY (?::pg_catalog.oid[])
            UNION ALL
            SELECT 'c', n.nspname::pg_catalog.text, k.conname::pg_catalog.text
              FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_namespace n ON n.oid = k.connamespace
             WHERE ((k.oid < 16384 AND k.contype = 'c') OR k.oid = ANY (?::pg_catalog.oid[]))
               AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint h
                                WHERE h.connamespace = k.connamespace AND h.conname = k.conname
                                  AND NOT (h.oid < 16384 OR h.oid = ANY (?::pg_catalog.oid[])))
            UNION ALL
            SELECT 't', n.nspname::pg_catalog.text, t.typname::pg_catalog.text
              FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
             WHERE t.oid = ANY (?::pg_catalog.oid[]) OR (t.oid < 16384 AND t.typtype = 'd')
            UNION ALL
            SELECT 'c', n.nspname::pg_catalog.text,
                   n.oid::pg_catalog.text || '_' || c.oid::pg_catalog.text || '_' || a.attnum::pg_catalog.text
                   || '_not_null'
              FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE pg_catalog.current_setting('server_version_num')::pg_catalog.int4 < 180000
               AND c.oid = ANY (?::pg_catalog.oid[]) AND n.oid = ANY (?::pg_catalog.oid[])
               AND a.attnum > 0 AND NOT a.attisdropped AND a.attnotnull""";

    /** The policies of {@link #policies}: role 0 in polroles is PUBLIC. */
    static final String POLICY_SQL = """
            SELECT n.nspname::pg_catalog.text, c.relname::pg_catalog.text, p.polname::pg_catalog.text
              FROM pg_catalog.pg_policy p JOIN pg_catalog.pg_class c ON c.oid = p.polrelid
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE p.oid = ANY (?::pg_catalog.oid[]) AND c.oid = ANY (?::pg_catalog.oid[])
               AND n.oid = ANY (?::pg_catalog.oid[])
               AND p.polroles OPERATOR(pg_catalog.<@) (?::pg_catalog.oid[] OPERATOR(pg_catalog.||) '{0}'::pg_catalog.oid[])""";

    private final SortedMap<String, SortedSet<String>> relations;
    private final SortedSet<String> schemas;
    private final SortedMap<String, SortedSet<String>> constraints;
    private final SortedMap<String, SortedSet<String>> types;
    private final SortedMap<String, SortedMap<String, SortedSet<String>>> policies;

    private VisibleNames(SortedMap<String, SortedSet<String>> relations, SortedSet<String> schemas,
                         SortedMap<String, SortedSet<String>> constraints, SortedMap<String, SortedSet<String>> types,
                         SortedMap<String, SortedMap<String, SortedSet<String>>> policies) {
        this.relations = frozen(relations);
        this.schemas = Collections.unmodifiableSortedSet(schemas);
        this.constraints = frozen(constraints);
        this.types = frozen(types);
        SortedMap<String, SortedMap<String, SortedSet<String>>> copy = new TreeMap<>();
        policies.forEach((schema, tables) -> copy.put(schema, frozen(tables)));
        this.policies = Collections.unmodifiableSortedMap(copy);
    }

    /** Names given by hand (tests). */
    public static VisibleNames of(Map<String, Set<String>> relations, Set<String> schemas,
                                  Map<String, Set<String>> constraints, Map<String, Set<String>> types) {
        return new VisibleNames(sorted(relations), new TreeSet<>(schemas), sorted(constraints), sorted(types),
                new TreeMap<>());
    }

    /** These names with the policies given by hand (tests): schema, then table, then policy names. */
    public VisibleNames withPolicies(Map<String, Map<String, Set<String>>> byTable) {
        SortedMap<String, SortedMap<String, SortedSet<String>>> copy = new TreeMap<>();
        byTable.forEach((schema, tables) -> copy.put(Objects.requireNonNull(schema), sorted(tables)));
        return new VisibleNames(relations, new TreeSet<>(schemas), constraints, types, copy);
    }

    /** Reads the names of {@code visible}'s relations, schemas and constraints. */
    public static VisibleNames read(Connection connection, VisibleCatalog visible) throws SQLException {
        String relations = visible.oids(Catalog.PG_CLASS).arrayLiteral();
        String namespaces = visible.oids(Catalog.PG_NAMESPACE).arrayLiteral();
        String constraints = visible.oids(Catalog.PG_CONSTRAINT).arrayLiteral();
        String types = visible.oids(Catalog.PG_TYPE).arrayLiteral();
        SortedMap<String, SortedSet<String>> relationNames = new TreeMap<>();
        SortedSet<String> schemaNames = new TreeSet<>();
        SortedMap<String, SortedSet<String>> constraintNames = new TreeMap<>();
        SortedMap<String, SortedSet<String>> typeNames = new TreeMap<>();
        try (PreparedStatement ps = connection.prepareStatement(SQL)) {
            int p = 1;
            for (String array : new String[] {relations, namespaces, namespaces, constraints, constraints, types,
                    relations, namespaces}) {
                ps.setString(p++, array);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    switch (rs.getString(1)) {
                        case "r" -> relationNames.computeIfAbsent(rs.getString(2), k -> new TreeSet<>())
                                .add(rs.getString(3));
                        case "s" -> schemaNames.add(rs.getString(2));
                        case "t" -> typeNames.computeIfAbsent(rs.getString(2), k -> new TreeSet<>())
                                .add(rs.getString(3));
                        default -> constraintNames.computeIfAbsent(rs.getString(2), k -> new TreeSet<>())
                                .add(rs.getString(3));
                    }
                }
            }
        }
        return new VisibleNames(relationNames, schemaNames, constraintNames, typeNames,
                policies(connection, visible, relations, namespaces));
    }

    private static SortedMap<String, SortedMap<String, SortedSet<String>>> policies(Connection connection,
            VisibleCatalog visible, String relations, String namespaces) throws SQLException {
        SortedMap<String, SortedMap<String, SortedSet<String>>> policies = new TreeMap<>();
        try (PreparedStatement ps = connection.prepareStatement(POLICY_SQL)) {
            ps.setString(1, visible.oids(Catalog.POLICY_EXPRESSIONS).arrayLiteral());
            ps.setString(2, relations);
            ps.setString(3, namespaces);
            ps.setString(4, visible.oids(Catalog.PG_AUTHID).arrayLiteral());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    policies.computeIfAbsent(rs.getString(1), k -> new TreeMap<>())
                            .computeIfAbsent(rs.getString(2), k -> new TreeSet<>()).add(rs.getString(3));
                }
            }
        }
        return policies;
    }

    /** Per schema, the names of its visible user relations; schemas without one are absent. */
    public SortedMap<String, SortedSet<String>> relations() {
        return relations;
    }

    public SortedSet<String> schemas() {
        return schemas;
    }

    /** Per schema, the names of the visible constraints no hidden constraint shares. */
    public SortedMap<String, SortedSet<String>> constraints() {
        return constraints;
    }

    /** Per schema, the names of the visible user types and of the built-in domains (information_schema's). */
    public SortedMap<String, SortedSet<String>> types() {
        return types;
    }

    /** Per schema and table, the names of the policies pg_policies shows; tables without one are absent. */
    public SortedMap<String, SortedMap<String, SortedSet<String>>> policies() {
        return policies;
    }

    private static SortedMap<String, SortedSet<String>> sorted(Map<String, Set<String>> names) {
        SortedMap<String, SortedSet<String>> copy = new TreeMap<>();
        names.forEach((schema, set) -> copy.put(Objects.requireNonNull(schema), new TreeSet<>(set)));
        return copy;
    }

    private static SortedMap<String, SortedSet<String>> frozen(SortedMap<String, SortedSet<String>> names) {
        SortedMap<String, SortedSet<String>> copy = new TreeMap<>();
        names.forEach((schema, set) -> copy.put(schema, Collections.unmodifiableSortedSet(new TreeSet<>(set))));
        return Collections.unmodifiableSortedMap(copy);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof VisibleNames that && relations.equals(that.relations) && schemas.equals(that.schemas)
                && constraints.equals(that.constraints) && types.equals(that.types)
                && policies.equals(that.policies);
    }

    @Override
    public int hashCode() {
        return Objects.hash(relations, schemas, constraints, types, policies);
    }

    @Override
    public String toString() {
        return "VisibleNames[relations=" + relations + ", schemas=" + schemas + ", constraints=" + constraints
                + ", types=" + types + ", policies=" + policies + "]";
    }
}
