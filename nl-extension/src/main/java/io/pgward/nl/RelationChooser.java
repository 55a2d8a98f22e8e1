package io.pgward.nl;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToIntFunction;

/**
 * Turns a ranking into the relations a prompt shows: the top k, each taken together with the join partners the
 * expansion adds for it, while the schema text stays within the character budget.
 *
 * <p>With {@link RetrievalSettings.Expansion#BRIDGES} a relation comes with the relations that join it to each one
 * taken before it that it does not already reach (directly or through relations taken), the best-ranked bridge per
 * pair. A relation and its bridges are taken or left together: the budget can leave out a relation, never the join
 * table between two that are shown. {@link RetrievalSettings.Expansion#NEIGHBOURS} does the same, then adds every
 * other neighbour of the top k, best-ranked first, while the budget lasts; {@link RetrievalSettings.Expansion#NONE}
 * takes the top k alone. The first relation is always shown, even over the budget: a prompt without a relation
 * cannot answer anything.
 */
final class RelationChooser {

    private RelationChooser() {
    }

    static List<Relation> choose(RelationIndex index, String question, int topK, int budgetChars,
                                 ToIntFunction<Relation> size) {
        List<Integer> ranking = index.rank(question);
        int[] rankOf = new int[ranking.size()];
        for (int r = 0; r < ranking.size(); r++) {
            rankOf[ranking.get(r)] = r;
        }
        List<Integer> top = ranking.subList(0, Math.min(topK, ranking.size()));
        Budget budget = new Budget(index.relations(), budgetChars, size);
        RetrievalSettings.Expansion expansion = index.settings().expansion();
        for (int candidate : top) {
            if (expansion == RetrievalSettings.Expansion.NONE) {
                budget.tryTake(List.of(candidate));
            } else if (!budget.chosen.contains(candidate)) {
                budget.tryTake(withBridges(index.joins(), candidate, budget.chosen, rankOf));
            }
        }
        if (expansion == RetrievalSettings.Expansion.NEIGHBOURS) {
            Set<Integer> neighbours = new TreeSet<>(Comparator.comparingInt((Integer i) -> rankOf[i]));
            top.forEach(i -> neighbours.addAll(index.joins().neighbours(i)));
            neighbours.forEach(i -> budget.tryTake(List.of(i)));
        }
        return budget.chosen.stream().map(index.relations()::get).toList();
    }

    /** The candidate, then for each chosen relation it does not reach yet, the best-ranked bridge to it. */
    private static List<Integer> withBridges(JoinGraph joins, int candidate, Set<Integer> chosen, int[] rankOf) {
        Set<Integer> group = new LinkedHashSet<>(List.of(candidate));
        for (int other : chosen) {
            Set<Integer> through = new HashSet<>(chosen);
            through.addAll(group);
            if (connected(joins, candidate, other, through)) {
                continue;
            }
            Integer best = null;
            for (int bridge : joins.neighbours(candidate)) {
                if (bridge != other && joins.joined(bridge, other) && (best == null || rankOf[bridge] < rankOf[best])) {
                    best = bridge;
                }
            }
            if (best != null) {
                group.add(best);
            }
        }
        return List.copyOf(group);
    }

    /** Whether {@code a} reaches {@code b} directly or through the relations of {@code through}. */
    private static boolean connected(JoinGraph joins, int a, int b, Set<Integer> through) {
        Set<Integer> seen = new HashSet<>(List.of(a));
        ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(a));
        while (!queue.isEmpty()) {
            for (int next : joins.neighbours(queue.poll())) {
                if (next == b) {
                    return true;
                }
                if (through.contains(next) && seen.add(next)) {
                    queue.add(next);
                }
            }
        }
        return false;
    }

    /** The relations taken so far, in the order taken, and the characters they use. */
    private static final class Budget {
        final Set<Integer> chosen = new LinkedHashSet<>();
        private final List<Relation> relations;
        private final int limit;
        private final ToIntFunction<Relation> size;
        private int used;

        Budget(List<Relation> relations, int limit, ToIntFunction<Relation> size) {
            this.relations = relations;
            this.limit = limit;
            this.size = size;
        }

        void tryTake(List<Integer> group) {
            List<Integer> fresh = group.stream().filter(i -> !chosen.contains(i)).toList();
            int cost = fresh.stream().mapToInt(i -> size.applyAsInt(relations.get(i))).sum();
            if (chosen.isEmpty() && !fresh.isEmpty()) {
                chosen.add(fresh.getFirst());
                used += size.applyAsInt(relations.get(fresh.getFirst()));
                List<Integer> rest = fresh.subList(1, fresh.size());
                if (!rest.isEmpty()) {
                    tryTake(rest);
                }
                return;
            }
            if (used + cost <= limit) {
                chosen.addAll(fresh);
                used += cost;
            }
        }
    }
}
