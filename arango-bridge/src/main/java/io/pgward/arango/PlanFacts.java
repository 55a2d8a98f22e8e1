package io.pgward.arango;

import java.util.Optional;
import java.util.Set;

/**
 * What a read-only login needs to know about one EXPLAIN plan, independent of which login asks: whether it may
 * run for any read-only login at all, and which data sources it touches, so each login's selection can be
 * checked against the same facts without asking ArangoDB again.
 *
 * @param refusal     why no read-only login may run it (a write, a user-defined function, a node or expression
 *                    pgward does not know); empty when it only reads
 * @param dataSources every collection and view the plan names: the plan's {@code collections}, the collection
 *                    or view of each node, the edge and vertex collections of traversals and path searches, and
 *                    collections named inside expressions (a named graph is walked through its collections,
 *                    which are what a selection names)
 */
record PlanFacts(Optional<String> refusal, Set<String> dataSources) {

    PlanFacts {
        dataSources = Set.copyOf(dataSources);
    }

    static PlanFacts refused(String why) {
        return new PlanFacts(Optional.of(why), Set.of());
    }
}
