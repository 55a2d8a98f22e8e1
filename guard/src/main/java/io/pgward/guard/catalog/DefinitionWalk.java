package io.pgward.guard.catalog;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The definitions reached from relations a statement reads, walked breadth first through the definitions a rule
 * follows: the views PostgreSQL flattens into the statement for the leaky-view rule ({@link LeakyViews}), every view
 * and policy a plan prints for EXPLAIN ({@link ExplainedPlan}). The rules differ only in what they follow and what
 * they look for; each relation is visited once, so a cycle or a diamond of views costs one visit.
 */
final class DefinitionWalk {

    private final Map<Long, List<ReachedDefinition>> followed;

    /**
     * @param reached every definition reached from the statement's relations ({@code CheckTransaction.reachedCode})
     * @param follows the definitions whose relations the walk goes on into
     */
    DefinitionWalk(List<ReachedDefinition> reached, Predicate<ReachedDefinition> follows) {
        this.followed = reached.stream().filter(follows).collect(Collectors.groupingBy(ReachedDefinition::relation));
    }

    /** The first followed definition, reached from {@code from}, that {@code wanted} accepts. */
    Optional<ReachedDefinition> first(Collection<Long> from, Predicate<ReachedDefinition> wanted) {
        Deque<Long> work = new ArrayDeque<>(from);
        Set<Long> seen = new HashSet<>();
        while (!work.isEmpty()) {
            long relation = work.poll();
            if (!seen.add(relation)) {
                continue;
            }
            for (ReachedDefinition d : followed.getOrDefault(relation, List.of())) {
                if (wanted.test(d)) {
                    return Optional.of(d);
                }
                work.addAll(d.code().relations);
            }
        }
        return Optional.empty();
    }
}
