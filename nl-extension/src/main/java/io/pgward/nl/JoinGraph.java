package io.pgward.nl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Which relations join which, by position in the reflected list: declared foreign keys in both directions and,
 * when asked for, join keys inferred from column names between relations of one schema that have no foreign key at
 * all (a warehouse loaded without constraints, views). Neighbours are kept sorted, so every walk over the graph is
 * deterministic.
 *
 * <p>An inferred key is a column name both relations have (compared without case and separators) that looks like a
 * key: part of either primary key, or ending in id, code, key, no or num; a bare {@code id} is left out, since it
 * would join every table with every other. Or a column named after the other relation plus id
 * ({@code customer_id} beside {@code customers.id}).
 *
 * <p>A relation that takes part in a declared foreign key gets no inferred join: where a schema declares its keys,
 * the declaration is the better evidence.
 */
final class JoinGraph {

    private static final List<String> KEY_ENDINGS = List.of("id", "code", "key", "no", "num");

    /**
     * Above this many relations sharing a key column, only the relations whose primary key holds it (the
     * dimension) are joined to the others, not every pair of the others: the edges stay linear in the schema's size.
     */
    private static final int MANY = 50;

    private final List<TreeSet<Integer>> neighbours;

    private JoinGraph(List<TreeSet<Integer>> neighbours) {
        this.neighbours = neighbours;
    }

    static JoinGraph build(List<Relation> relations, boolean inferKeys) {
        List<TreeSet<Integer>> neighbours = new ArrayList<>();
        Map<Long, Integer> position = new HashMap<>();
        for (int i = 0; i < relations.size(); i++) {
            neighbours.add(new TreeSet<>());
            position.put(relations.get(i).ref().oid(), i);
        }
        Set<Integer> withForeignKeys = new HashSet<>();
        for (int i = 0; i < relations.size(); i++) {
            for (Relation.ForeignKey key : relations.get(i).foreignKeys()) {
                Integer target = position.get(key.target().oid());
                if (target != null && target != i) {
                    neighbours.get(i).add(target);
                    neighbours.get(target).add(i);
                    withForeignKeys.add(i);
                    withForeignKeys.add(target);
                }
            }
        }
        if (inferKeys) {
            inferKeys(relations, withForeignKeys, neighbours);
        }
        return new JoinGraph(List.copyOf(neighbours));
    }

    /**
     * Adds the inferred edges schema by schema through an index of column names, so the work grows with the
     * matches, not with the square of the relations. A column name that more than half of a schema's relations
     * (of five or more) have is an attribute such as a tenant or audit column, not a join key, and joins nothing.
     */
    private static void inferKeys(List<Relation> relations, Set<Integer> withForeignKeys,
                                  List<TreeSet<Integer>> neighbours) {
        Map<String, List<Integer>> bySchema = new HashMap<>();
        for (int i = 0; i < relations.size(); i++) {
            if (!withForeignKeys.contains(i)) {
                bySchema.computeIfAbsent(relations.get(i).ref().schema(), s -> new ArrayList<>()).add(i);
            }
        }
        List<Set<String>> keyColumns = relations.stream().map(JoinGraph::keyish).toList();
        List<Set<String>> columns = relations.stream().map(JoinGraph::normalized).toList();
        List<Set<String>> primaryKeys = relations.stream()
                .map(r -> r.primaryKey().stream().map(JoinGraph::normalize).collect(Collectors.toSet())).toList();
        for (List<Integer> members : bySchema.values()) {
            Map<String, List<Integer>> holders = new HashMap<>();
            Map<String, List<Integer>> havingColumn = new HashMap<>();
            for (int i : members) {
                for (String column : columns.get(i)) {
                    havingColumn.computeIfAbsent(column, c -> new ArrayList<>()).add(i);
                }
            }
            int common = members.size() >= 5 ? members.size() / 2 : members.size();
            for (int a : members) {
                Relation relation = relations.get(a);
                for (String column : keyColumns.get(a)) {
                    List<Integer> others = havingColumn.getOrDefault(column, List.of());
                    if (others.size() > common) {
                        continue;
                    }
                    List<Integer> partners = others.size() <= MANY || primaryKeys.get(a).contains(column) ? others
                            : holders.computeIfAbsent(column, c -> others.stream()
                                    .filter(b -> primaryKeys.get(b).contains(c)).toList());
                    for (int b : partners) {
                        if (b != a && (keyLike(column) || keyColumns.get(b).contains(column))) {
                            link(neighbours, a, b);
                        }
                    }
                }
                if (columns.get(a).contains("id")) {
                    String name = normalize(relation.ref().name());
                    for (String column : new TreeSet<>(List.of(name + "id", Words.stem(name) + "id"))) {
                        for (int b : havingColumn.getOrDefault(column, List.of())) {
                            if (b != a) {
                                link(neighbours, a, b);
                            }
                        }
                    }
                }
            }
        }
    }

    private static void link(List<TreeSet<Integer>> neighbours, int a, int b) {
        neighbours.get(a).add(b);
        neighbours.get(b).add(a);
    }

    /** The relations joined to relation {@code i}, in list order. */
    Set<Integer> neighbours(int i) {
        return neighbours.get(i);
    }

    boolean joined(int a, int b) {
        return neighbours.get(a).contains(b);
    }

    /** Columns that may be a key: key-like names and the primary key's columns, without a bare id. */
    private static Set<String> keyish(Relation relation) {
        Set<String> result = new HashSet<>();
        for (Relation.Column column : relation.columns()) {
            String name = normalize(column.name());
            if (!name.equals("id") && (keyLike(name) || relation.primaryKey().contains(column.name()))) {
                result.add(name);
            }
        }
        return result;
    }

    private static boolean keyLike(String normalized) {
        return !normalized.equals("id") && KEY_ENDINGS.stream().anyMatch(normalized::endsWith)
                && normalized.length() > 2;
    }

    private static Set<String> normalized(Relation relation) {
        Set<String> result = new HashSet<>();
        relation.columns().forEach(c -> result.add(normalize(c.name())));
        return result;
    }

    static String normalize(String name) {
        StringBuilder text = new StringBuilder();
        for (char c : name.toLowerCase(Locale.ROOT).toCharArray()) {
            if (Character.isLetterOrDigit(c)) {
                text.append(c);
            }
        }
        return text.toString();
    }
}
