package io.pgward.nl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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
 */
final class JoinGraph {

    private static final List<String> KEY_ENDINGS = List.of("id", "code", "key", "no", "num");

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
            for (int a = 0; a < relations.size(); a++) {
                for (int b = a + 1; b < relations.size(); b++) {
                    if (!withForeignKeys.contains(a) && !withForeignKeys.contains(b)
                            && joinable(relations.get(a), relations.get(b))) {
                        neighbours.get(a).add(b);
                        neighbours.get(b).add(a);
                    }
                }
            }
        }
        return new JoinGraph(List.copyOf(neighbours));
    }

    /** The relations joined to relation {@code i}, in list order. */
    Set<Integer> neighbours(int i) {
        return neighbours.get(i);
    }

    boolean joined(int a, int b) {
        return neighbours.get(a).contains(b);
    }

    static boolean joinable(Relation a, Relation b) {
        if (!a.ref().schema().equals(b.ref().schema())) {
            return false;
        }
        Set<String> keysOfA = keyish(a);
        Set<String> columnsOfB = normalized(b);
        for (String column : keysOfA) {
            if (columnsOfB.contains(column) && (keyLike(column) || keyish(b).contains(column))) {
                return true;
            }
        }
        return namedAfter(a, b) || namedAfter(b, a);
    }

    /** {@code a} has a column {@code <b>id} or {@code <b singular>id} and {@code b} has an {@code id} column. */
    private static boolean namedAfter(Relation a, Relation b) {
        if (!normalized(b).contains("id")) {
            return false;
        }
        String name = normalize(b.ref().name());
        String singular = Words.stem(name);
        Set<String> columns = normalized(a);
        return columns.contains(name + "id") || columns.contains(singular + "id");
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
