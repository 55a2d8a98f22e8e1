package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The leaky-view rule, for a login with a table selection. A selected view may read relations the selection leaves
 * out, and reading it is allowed: its filter decides which of their rows the login sees. But PostgreSQL flattens a
 * plain view into the query that reads it, and may then evaluate the statement's conditions before the view's own,
 * on rows the view filters out: {@code WHERE emp::int = 1} fails with the text of a hidden {@code emp} in its error,
 * and a division by a CASE tells one hidden value at a time. PostgreSQL's answer is the security_barrier option: it
 * pushes only leakproof conditions into such a view (the CREATE VIEW reference's "Updatable Views" and "Rules and
 * Privileges" chapters; pg_proc.proleakproof).
 *
 * <p>A view is leaky for a statement when the statement reads it, directly or through other views that are not
 * security barriers, it is no security barrier itself, and its definition reads a relation the selection does not
 * include, directly or through further views that are not security barriers (a selected security-barrier view or a
 * selected materialized view stops the search: nothing of the statement is evaluated inside it). Reading a leaky view
 * is allowed only when the statement's own code could not fail on a row ({@link LeakyCode}); the views' definitions
 * are their owner's and are not held to it.
 */
final class LeakyViews {

    private LeakyViews() {
    }

    /**
     * @param tree the statement's stored query
     * @param statement its own references; every relation it reads is selected (the relation rule has been applied)
     * @param reached every definition reached from the relations it reads ({@code CheckTransaction.reachedCode})
     * @return the refusal when the statement reads a leaky view with code that could fail on a row it filters out
     */
    static Optional<Verdict.Refuse> refusal(TreeValue tree, References statement, List<ReachedDefinition> reached,
                                            TableSelection selection, CatalogReader catalog) throws SQLException {
        List<ReachedDefinition> views = reached.stream().filter(d -> d.kind() == ReachedDefinition.Kind.VIEW)
                .toList();
        // Most statements read no view over unselected relations: no catalog read for them.
        if (views.stream().allMatch(d -> d.code().relations.stream().allMatch(selection::selects))) {
            return Optional.empty();
        }
        Set<Long> barriers = catalog.securityBarrierViews(views.stream().map(ReachedDefinition::relation)
                .collect(Collectors.toSet()));
        // A security barrier stops the walk: nothing of the statement is evaluated inside it.
        DefinitionWalk flattened = new DefinitionWalk(views, d -> !barriers.contains(d.relation()));
        Optional<Long> leaky = statement.relations.stream().filter(oid -> flattened.first(List.of(oid),
                d -> d.code().relations.stream().anyMatch(read -> !selection.selects(read))).isPresent()).findFirst();
        if (leaky.isEmpty()) {
            return Optional.empty();
        }
        Optional<String> leak = firstLeak(LeakyCode.of(tree), catalog);
        if (leak.isEmpty()) {
            return Optional.empty();
        }
        CatalogReader.Relation view = catalog.relations(List.of(leaky.get())).get(leaky.get());
        if (view == null) {
            throw new NodeTreeException("relation " + leaky.get() + " is not in the catalog");
        }
        return Optional.of(CatalogRefusals.leakyView(view.name(), leak.get()));
    }

    /** The first use that is not leakproof, as a refusal names it. */
    private static Optional<String> firstLeak(List<LeakyCode.Use> uses, CatalogReader catalog) throws SQLException {
        Set<Long> operatorOids = new LinkedHashSet<>();
        Set<Long> functionOids = new LinkedHashSet<>();
        for (LeakyCode.Use use : uses) {
            switch (use) {
                case LeakyCode.Use.Function f -> functionOids.add(f.oid());
                case LeakyCode.Use.Operator o -> operatorOids.add(o.oid());
                case LeakyCode.Use.Construct c -> { }
            }
        }
        Map<Long, CatalogReader.Operator> operators = catalog.operators(operatorOids);
        operators.values().forEach(op -> functionOids.add(op.function()));
        Set<Long> leakproof = catalog.leakproofFunctions(functionOids);
        for (LeakyCode.Use use : uses) {
            switch (use) {
                case LeakyCode.Use.Function f -> {
                    if (!leakproof.contains(f.oid())) {
                        CatalogReader.Function row = catalog.functions(List.of(f.oid())).get(f.oid());
                        return Optional.of("function " + (row == null ? String.valueOf(f.oid())
                                : row.qualifiedName()));
                    }
                }
                case LeakyCode.Use.Operator o -> {
                    CatalogReader.Operator op = operators.get(o.oid());
                    if (op == null || !leakproof.contains(op.function())) {
                        return Optional.of("operator " + (op == null ? String.valueOf(o.oid()) : op.qualifiedName()));
                    }
                }
                case LeakyCode.Use.Construct c -> {
                    return Optional.of(c.what());
                }
            }
        }
        return Optional.empty();
    }
}
