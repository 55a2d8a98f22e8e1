package io.pgward.nl;

import io.pgward.guard.selection.RiskyDomains;
import io.pgward.guard.selection.ValueSampler;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Reads from the catalog what a login may read: relations (tables, views, materialized views, foreign tables;
 * partitions only through their parent) outside the system schemas on which the login's role has SELECT on at
 * least one column, the columns it may SELECT, primary keys, foreign keys between such relations, and value
 * samples.
 *
 * <p>With a selection, only selected relations are reflected, and a foreign key to anything else is dropped,
 * so nothing outside the selection is named. Everything runs in one read-only transaction that is rolled back,
 * as the login's role when one is given.
 */
final class SchemaReflector {

    private static final String RELATIONS = """
            SELECT c.oid, n.nspname, c.relname, c.relkind, pg_catalog.obj_description(c.oid, 'pg_class')
            FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
              AND NOT c.relispartition
              AND n.nspname NOT IN ('pg_catalog', 'information_schema')
              AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'
              AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')
              AND pg_catalog.has_any_column_privilege(c.oid, 'SELECT')
            ORDER BY n.nspname, c.relname""";

    private static final String COLUMNS = """
            SELECT a.attrelid, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
                   pg_catalog.col_description(a.attrelid, a.attnum), %s
            FROM pg_catalog.pg_attribute a
            JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            WHERE a.attrelid = ANY (?::pg_catalog.oid[]) AND a.attnum > 0 AND NOT a.attisdropped
              AND pg_catalog.has_column_privilege(a.attrelid, a.attnum, 'SELECT')
            ORDER BY a.attrelid, a.attnum""".formatted(ValueSampler.QUALIFYING_TYPE);

    private static final String KEYS = """
            SELECT con.conrelid, con.contype, con.confrelid,
                   ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY AS k(num, ord)
                         JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num
                         ORDER BY k.ord)::pg_catalog.text[],
                   ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY AS k(num, ord)
                         JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num
                         ORDER BY k.ord)::pg_catalog.text[]
            FROM pg_catalog.pg_constraint con
            WHERE con.contype IN ('p', 'f') AND con.conrelid = ANY (?::pg_catalog.oid[])
            ORDER BY con.conrelid, con.conname""";

    private final JdbcConnections connections;
    private final Optional<String> role;
    private final Optional<Predicate<RelationRef>> selection;
    private final ValueSampler sampler;
    private final Clock clock;

    SchemaReflector(JdbcConnections connections, Optional<String> role, Optional<Predicate<RelationRef>> selection,
                    SqlGuard sampleGuard, Clock clock) {
        this.connections = connections;
        this.role = role;
        this.selection = selection;
        this.sampler = new ValueSampler(RiskyDomains.CATALOG_DEPENDENCIES,
                (connection, sql) -> sampleGuard.refusal(sql).isEmpty());
        this.clock = clock;
    }

    SchemaSnapshot reflect() throws SQLException {
        List<Relation> relations = Transactions.repeatableReadRolledBack(connections, role, this::reflect);
        return new SchemaSnapshot(relations, clock.instant());
    }

    private List<Relation> reflect(Connection connection) throws SQLException {
        Map<Long, RelationHead> heads = relations(connection);
        if (heads.isEmpty()) {
            return List.of();
        }
        Long[] oids = heads.keySet().toArray(Long[]::new);
        Map<Long, List<Relation.Column>> columns = columns(connection, oids);
        Map<Long, Keys> keys = keys(connection, oids, heads);
        List<Relation> relations = new ArrayList<>();
        for (RelationHead head : heads.values()) {
            Keys k = keys.getOrDefault(head.ref.oid(), new Keys());
            relations.add(new Relation(head.ref, head.kind, head.comment,
                    columns.getOrDefault(head.ref.oid(), List.of()), k.primaryKey, k.foreignKeys, Map.of()));
        }
        return withSamples(connection, relations);
    }

    /**
     * The relations with the samples of their text and enum columns ({@link ValueSampler}); a column with nothing
     * but nulls has no sample here.
     */
    private List<Relation> withSamples(Connection connection, List<Relation> relations) throws SQLException {
        Map<String, List<String>> candidates = new LinkedHashMap<>();
        for (Relation relation : relations) {
            candidates.put(relation.qualifiedName(), relation.columns().stream()
                    .filter(Relation.Column::sampled)
                    .map(c -> Identifiers.quote(c.name()))
                    .toList());
        }
        Map<String, Map<String, List<String>>> sampled = sampler.sample(connection, candidates);
        List<Relation> result = new ArrayList<>();
        for (Relation relation : relations) {
            Map<String, List<String>> byQuotedName = sampled.getOrDefault(relation.qualifiedName(), Map.of());
            Map<String, List<String>> samples = new LinkedHashMap<>();
            for (Relation.Column column : relation.columns()) {
                List<String> values = byQuotedName.get(Identifiers.quote(column.name()));
                if (values != null && !values.isEmpty()) {
                    samples.put(column.name(), values);
                }
            }
            result.add(relation.withSamples(samples));
        }
        return result;
    }

    private record RelationHead(RelationRef ref, Relation.Kind kind, Optional<String> comment) {
    }

    private static final class Keys {
        List<String> primaryKey = List.of();
        final List<Relation.ForeignKey> foreignKeys = new ArrayList<>();
    }

    private Map<Long, RelationHead> relations(Connection connection) throws SQLException {
        Map<Long, RelationHead> heads = new LinkedHashMap<>();
        try (PreparedStatement statement = connection.prepareStatement(RELATIONS);
             ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                RelationRef ref = new RelationRef(rows.getLong(1), rows.getString(2), rows.getString(3));
                if (selection.isEmpty() || selection.get().test(ref)) {
                    heads.put(ref.oid(), new RelationHead(ref, Relation.Kind.fromRelkind(rows.getString(4)),
                            Optional.ofNullable(rows.getString(5))));
                }
            }
        }
        return heads;
    }

    private static Map<Long, List<Relation.Column>> columns(Connection connection, Long[] oids)
            throws SQLException {
        Map<Long, List<Relation.Column>> columns = new HashMap<>();
        try (PreparedStatement statement = connection.prepareStatement(COLUMNS)) {
            statement.setArray(1, connection.createArrayOf("int8", oids));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    columns.computeIfAbsent(rows.getLong(1), oid -> new ArrayList<>()).add(new Relation.Column(
                            rows.getString(2), rows.getString(3), rows.getBoolean(4),
                            Optional.ofNullable(rows.getString(5)), rows.getBoolean(6)));
                }
            }
        }
        return columns;
    }

    private static Map<Long, Keys> keys(Connection connection, Long[] oids, Map<Long, RelationHead> heads)
            throws SQLException {
        Map<Long, Keys> keys = new HashMap<>();
        try (PreparedStatement statement = connection.prepareStatement(KEYS)) {
            statement.setArray(1, connection.createArrayOf("int8", oids));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    Keys k = keys.computeIfAbsent(rows.getLong(1), oid -> new Keys());
                    List<String> columns = strings(rows.getArray(4));
                    if (rows.getString(2).equals("p")) {
                        k.primaryKey = columns;
                    } else {
                        RelationHead target = heads.get(rows.getLong(3));
                        if (target != null) {
                            k.foreignKeys.add(new Relation.ForeignKey(columns, target.ref, strings(rows.getArray(5))));
                        }
                    }
                }
            }
        }
        return keys;
    }

    private static List<String> strings(Array array) throws SQLException {
        return array == null ? List.of() : List.of((String[]) array.getArray());
    }
}
