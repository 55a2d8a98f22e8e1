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

    /**
     * A Const of type {@code type} that is a direct argument of the function {@code function}, naming the object
     * {@code named} (its OID; -1 for NULL).
     */
    record DirectConstArgument(long function, long type, long named) {
    }

    /** A FuncExpr calling {@code function}, and the Queries around it, for the gates ({@link GatedUses}). */
    record Call(long function, TreeValue.Node expression, QueryScope scope) {
    }

    /**
     * A node whose value is of the object-identifier type {@code type} (a Const, Var, RelabelType or FuncExpr),
     * recorded instead of a use of the type when the statement is read with catalog filters: {@link GatedUses}
     * decides whether its value is proven to name a visible object.
     */
    record RegUse(long type, TreeValue.Node node, QueryScope scope) {
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
    /** Every FuncExpr call, in order. */
    final List<Call> calls = new ArrayList<>();
    /** Functions named by a node other than a FuncExpr's funcid (an aggregate, an operator's function, ...). */
    final Set<Long> otherFunctionUses = new LinkedHashSet<>();
    final List<RegUse> regUses = new ArrayList<>();
    /** Every NULL constant of text or varchar ({@link GatedUses#nullText}), for {@link GatedUses#keyedTypeNameTexts}. */
    final List<TreeValue.Node> nullTexts = new ArrayList<>();
    /**
     * A value read as an aclitem (or an array of them) from text while the statement runs: the input looks up the
     * role names the text holds.
     */
    boolean aclitemFromText;
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
        calls.addAll(other.calls);
        otherFunctionUses.addAll(other.otherFunctionUses);
        regUses.addAll(other.regUses);
        nullTexts.addAll(other.nullTexts);
        aclitemFromText |= other.aclitemFromText;
    }
}
