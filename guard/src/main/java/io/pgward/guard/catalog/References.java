package io.pgward.guard.catalog;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What one parse tree uses, as {@link QueryTreeWalker} collected it: the relations it reads, the functions,
 * operators and types it uses, and the regconfig / regdictionary constants passed straight to a function (the
 * only use of those types the seed allows with a table selection). Each set keeps the order of first appearance,
 * so refusals name objects in the order the statement uses them.
 */
final class References {

    /** A Const of type {@code type} that is a direct argument of the function {@code function}. */
    record DirectConstArgument(long function, long type) {
    }

    final Set<Long> relations = new LinkedHashSet<>();
    /** Covered catalogs read only through a proven filter subquery (FilterProof); not in {@link #relations}. */
    final Set<Long> filteredRelations = new LinkedHashSet<>();
    final Set<Long> functions = new LinkedHashSet<>();
    final Set<Long> operators = new LinkedHashSet<>();
    final Set<Long> types = new LinkedHashSet<>();
    final List<DirectConstArgument> directConstArguments = new ArrayList<>();
    /** The type of every Const node, direct arguments included: what a literal's value is read as. */
    final Set<Long> constTypes = new LinkedHashSet<>();
    /** Query nodes that do not only read (not SELECT, a utility statement, FOR UPDATE, a data-modifying CTE). */
    final List<String> nonReading = new ArrayList<>();

    void addAll(References other) {
        relations.addAll(other.relations);
        filteredRelations.addAll(other.filteredRelations);
        functions.addAll(other.functions);
        operators.addAll(other.operators);
        types.addAll(other.types);
        directConstArguments.addAll(other.directConstArguments);
        constTypes.addAll(other.constTypes);
        nonReading.addAll(other.nonReading);
    }
}
