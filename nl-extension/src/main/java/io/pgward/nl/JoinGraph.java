package io.pgward.nl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which relations join which, by position in the reflected list: declared foreign keys in both directions and,
 * when asked for, join keys inferred from column names between relations of one schema that have no foreign key at
 * all (a warehouse loaded without constraints, views). Neighbours are kept sorted, so every walk over the graph is
 * deterministic.
 *
 * <p>How keys are inferred: {@link InferredKeys}. A relation that takes part in a declared foreign key gets no
 * inferred join: where a schema declares its keys, the declaration is the better evidence.
 */
final class JoinGraph {

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

    /** Adds the joins {@link InferredKeys} finds, schema by schema, between relations without foreign keys. */
    private static void inferKeys(List<Relation> relations, Set<Integer> withForeignKeys,
                                  List<TreeSet<Integer>> neighbours) {
        Map<String, List<Integer>> bySchema = new java.util.LinkedHashMap<>();
        for (int i = 0; i < relations.size(); i++) {
            if (!withForeignKeys.contains(i)) {
                bySchema.computeIfAbsent(relations.get(i).ref().schema(), s -> new ArrayList<>()).add(i);
            }
        }
        for (List<Integer> members : bySchema.values()) {
            InferredKeys.find(relations, members, (a, b) -> link(neighbours, a, b));
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
}
