package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What the plan of an EXPLAIN shows that its statement's text does not, for a login with a table selection.
 * PostgreSQL's rewriter puts each view's query in the place of the view and adds the row-security policies of each
 * table read, and the planner inlines SQL functions, before the plan is printed; the plan then shows what those
 * read and compute: relations and their indexes, columns, conditions with their constants, functions called, row
 * estimates. A materialized view is scanned as stored: its plan names it and nothing of its query.
 *
 * <p>pgward withholds from a selection login the definitions of views and policies that use what it does not see
 * (pg_get_viewdef, pg_views.definition, pg_policy.polqual) and the bodies of user functions (its catalog shows
 * built-in functions only). Reading such a view, or calling such a function, stays allowed; explaining it is refused
 * when
 * <ul>
 *   <li>a definition the plan prints reads a relation the selection does not include (a built-in catalog too: its
 *       row estimates count hidden rows), calls a function or an operator that initdb did not make, or uses a type
 *       the login's catalog does not show;</li>
 *   <li>the statement calls a user function written in SQL, which the planner may replace by its body;</li>
 *   <li>the statement reads a catalog through its filter subquery: the plan's row estimates follow the whole
 *       catalog's statistics, hidden rows included (which is why EXPLAIN is never rewritten to the filters).</li>
 * </ul>
 */
final class ExplainedPlan {

    private final References statement;
    /** Through the definitions of views and policies; a materialized view's plan shows nothing of its query. */
    private final DefinitionWalk printed;

    private ExplainedPlan(References statement, DefinitionWalk printed) {
        this.statement = statement;
        this.printed = printed;
    }

    /**
     * @param statement the statement's own references; every relation it reads is selected (the relation rule has
     *                  been applied)
     * @param reached every definition reached from the relations it reads ({@code CheckTransaction.reachedCode})
     */
    static ExplainedPlan of(References statement, List<ReachedDefinition> reached) {
        return new ExplainedPlan(statement, new DefinitionWalk(reached,
                d -> d.kind() != ReachedDefinition.Kind.MATERIALIZED_VIEW));
    }

    /** The refusal of the EXPLAIN when its plan would show what the login does not see; empty when it would not. */
    Optional<Verdict.Refuse> withheldFrom(TableSelection selection, CatalogReader catalog) throws SQLException {
        if (!statement.filteredRelations.isEmpty()) {
            Map<Long, CatalogReader.Relation> rows = catalog.relations(statement.filteredRelations);
            return Optional.of(CatalogRefusals.relations(statement.filteredRelations.stream()
                    .map(oid -> rows.containsKey(oid) ? rows.get(oid).name() : String.valueOf(oid)).toList(),
                    selection));
        }
        Optional<Verdict.Refuse> definition = definitionWithheld(selection, catalog);
        if (definition.isPresent()) {
            return definition;
        }
        List<Long> userFunctions = statement.functions.stream().filter(oid -> !SharedRows.builtIn(oid)).toList();
        Map<Long, CatalogReader.Function> functions = catalog.functions(userFunctions);
        for (long oid : userFunctions) {
            CatalogReader.Function f = functions.get(oid);
            if (f == null || f.language().equals("sql")) {
                return Optional.of(CatalogRefusals.explainShowsFunctionBody(f == null ? String.valueOf(oid)
                        : f.qualifiedName()));
            }
        }
        return Optional.empty();
    }

    /**
     * The refusal for the first definition the plan prints that uses what the login does not see, naming the
     * relation the statement reads through which it is reached, never what the definition uses.
     */
    private Optional<Verdict.Refuse> definitionWithheld(TableSelection selection, CatalogReader catalog)
            throws SQLException {
        Optional<ReachedDefinition> unseen = printed.first(statement.relations, d -> usesUnseen(d.code(), selection));
        if (unseen.isEmpty()) {
            return Optional.empty();
        }
        long read = unseen.get().read();
        CatalogReader.Relation through = catalog.relations(List.of(read)).get(read);
        if (through == null) {
            throw new NodeTreeException("relation " + read + " is not in the catalog");
        }
        return Optional.of(CatalogRefusals.explainShowsDefinition(through.name(), through.kind() == 'v'));
    }

    private static boolean usesUnseen(References code, TableSelection selection) {
        return code.relations.stream().anyMatch(oid -> !selection.selects(oid))
                || Stream.of(code.functions, code.otherFunctionUses, code.operators).flatMap(Set::stream)
                        .anyMatch(oid -> !SharedRows.builtIn(oid))
                || code.types.stream().anyMatch(oid -> !typeShown(oid, selection.filters()));
    }

    /** Without catalog filters the login sees no catalog but pgward's answers: only a built-in type is known. */
    private static boolean typeShown(long oid, CatalogFilters filters) {
        return SharedRows.builtIn(oid) || !filters.isEmpty() && filters.visible().type(oid);
    }
}
