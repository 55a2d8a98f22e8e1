package io.pgward.guard.catalog;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The catalog helper functions a login with a filtered catalog may call on objects it sees (design section 3.2),
 * and what each argument of theirs names. Every other function the selection denies ({@link DeniedBuiltIns}) stays
 * refused, and so does a gated function called with a number of arguments listed nowhere here.
 *
 * <p>A slot is {@link Slot#PLAIN} (a flag, a column number, a privilege text: it names no object), an
 * {@link ObjectKind}, {@link Slot#EXPRESSION} (a stored expression, pg_node_tree, which only a catalog column can
 * hold), {@link Slot#CATALOG_NAME} (obj_description's catalog) and {@link Slot#DESCRIBED} (the object that
 * catalog holds).
 */
final class GatedFunctions {

    /** What one argument position holds. */
    sealed interface Slot permits Plain, Expression, CatalogName, Described, Named {
        Slot PLAIN = new Plain();
        Slot EXPRESSION = new Expression();
        Slot CATALOG_NAME = new CatalogName();
        Slot DESCRIBED = new Described();
    }

    record Plain() implements Slot {
    }

    record Expression() implements Slot {
    }

    record CatalogName() implements Slot {
    }

    /** An object of the kind the {@link CatalogName} argument of the same call says. */
    record Described() implements Slot {
    }

    record Named(ObjectKind kind) implements Slot {
    }

    /** A condition on the visible catalog as a whole, beyond the arguments. */
    enum Condition {
        NONE,
        /** The definitions of visible views read only visible relations (pg_get_viewdef, pg_get_ruledef print them). */
        VIEWS_READ_VISIBLE,
        /** No inheritance or partition link joins a visible relation to a hidden one (the partition functions list them). */
        HIERARCHIES_CLOSED,
        /** Every sequence a visible relation's column owns is visible (pg_get_serial_sequence prints its name). */
        SERIAL_SEQUENCES_VISIBLE
    }

    /**
     * Functions whose text result is the schema-qualified name of a relation: of a visible one when the call is
     * allowed and its spec says {@link Spec#resultVisible}.
     */
    static final Set<String> QUALIFIED_RELATION_NAMES = Set.of("pg_get_serial_sequence");

    /**
     * @param resultVisible an object-identifier result of an allowed call names a visible object: the object the
     *                      argument names (to_regclass, regclass), or a member of a hierarchy whose every member is
     *                      visible (the partition functions under {@link Condition#HIERARCHIES_CLOSED})
     * @param absentIsNull the function answers NULL for a name nothing has (to_regclass and the other to_reg*),
     *                     where a hidden object gets an error: such a name gets the same error, so that the answer
     *                     does not tell a hidden object from an absent one
     */
    record Spec(List<Slot> slots, Condition condition, boolean resultVisible, boolean absentIsNull) {
        Spec(List<Slot> slots, Condition condition, boolean resultVisible) {
            this(slots, condition, resultVisible, false);
        }
    }

    /** obj_description's second argument: the pg_catalog relation whose object the first names. */
    static final Map<String, ObjectKind> DESCRIBED_CATALOGS = Map.ofEntries(Map.entry("pg_class", ObjectKind.RELATION),
            Map.entry("pg_type", ObjectKind.TYPE), Map.entry("pg_namespace", ObjectKind.NAMESPACE),
            Map.entry("pg_constraint", ObjectKind.CONSTRAINT), Map.entry("pg_trigger", ObjectKind.TRIGGER),
            Map.entry("pg_rewrite", ObjectKind.RULE), Map.entry("pg_collation", ObjectKind.COLLATION),
            Map.entry("pg_proc", ObjectKind.FUNCTION), Map.entry("pg_operator", ObjectKind.OPERATOR),
            Map.entry("pg_am", ObjectKind.ACCESS_METHOD), Map.entry("pg_language", ObjectKind.LANGUAGE),
            Map.entry("pg_opclass", ObjectKind.BUILT_IN), Map.entry("pg_opfamily", ObjectKind.BUILT_IN),
            Map.entry("pg_cast", ObjectKind.BUILT_IN), Map.entry("pg_conversion", ObjectKind.BUILT_IN),
            Map.entry("pg_ts_config", ObjectKind.BUILT_IN), Map.entry("pg_ts_dict", ObjectKind.BUILT_IN),
            Map.entry("pg_ts_parser", ObjectKind.BUILT_IN), Map.entry("pg_ts_template", ObjectKind.BUILT_IN));

    /** pg_stat_get_* functions of one relation OID (pgstatfuncs.c, 14 to 18); the database, function,
     *  subscription and backend ones are not here. */
    private static final Set<String> RELATION_STATISTICS = Set.of("numscans", "lastscan", "tuples_returned",
            "tuples_fetched", "tuples_inserted", "tuples_updated", "tuples_deleted", "tuples_hot_updated",
            "tuples_newpage_updated", "live_tuples", "dead_tuples", "mod_since_analyze", "ins_since_vacuum",
            "blocks_fetched", "blocks_hit", "last_vacuum_time", "last_autovacuum_time", "last_analyze_time",
            "last_autoanalyze_time", "vacuum_count", "autovacuum_count", "analyze_count", "autoanalyze_count",
            "total_vacuum_time", "total_autovacuum_time", "total_analyze_time", "total_autoanalyze_time",
            "xact_numscans", "xact_tuples_returned", "xact_tuples_fetched", "xact_tuples_inserted",
            "xact_tuples_updated", "xact_tuples_deleted", "xact_tuples_hot_updated", "xact_tuples_newpage_updated",
            "xact_blocks_fetched", "xact_blocks_hit");

    /** has_X_privilege: the kind of X's object. Those absent (database, parameter, large object, foreign data
     *  wrapper, server) stay refused. */
    private static final Map<String, ObjectKind> PRIVILEGE_OBJECTS = Map.of("table", ObjectKind.RELATION,
            "sequence", ObjectKind.RELATION, "any_column", ObjectKind.RELATION, "schema", ObjectKind.NAMESPACE,
            "type", ObjectKind.TYPE, "function", ObjectKind.FUNCTION, "language", ObjectKind.LANGUAGE,
            "tablespace", ObjectKind.TABLESPACE);

    /**
     * Functions of a relation OID that answer NULL for an OID nothing has (ruleutils.c, namespace.c): an argument the
     * gates cannot prove may be wrapped in the visible set ({@link ListedArguments#wrapAll}), so that a hidden
     * relation's OID answers as an unused one does.
     */
    static final Set<String> NULL_FOR_ABSENT_RELATIONS = Set.of("pg_get_indexdef", "pg_get_partkeydef",
            "pg_get_partition_constraintdef", "pg_table_is_visible");

    private static final Map<String, Map<Integer, Spec>> SPECS = new HashMap<>();

    static {
        Slot p = Slot.PLAIN;
        Slot rel = named(ObjectKind.RELATION);
        gate("pg_get_userbyid", named(ObjectKind.ROLE));
        gate("pg_get_expr", Slot.EXPRESSION, rel);
        gate("pg_get_expr", Slot.EXPRESSION, rel, p);
        gate("pg_get_constraintdef", named(ObjectKind.CONSTRAINT));
        gate("pg_get_constraintdef", named(ObjectKind.CONSTRAINT), p);
        gate("pg_get_indexdef", rel);
        gate("pg_get_indexdef", rel, p, p);
        gate("pg_get_triggerdef", named(ObjectKind.TRIGGER));
        gate("pg_get_triggerdef", named(ObjectKind.TRIGGER), p);
        gate("pg_get_partkeydef", rel);
        gate("pg_get_partition_constraintdef", rel);
        for (String s : List.of("pg_get_statisticsobjdef", "pg_get_statisticsobjdef_columns",
                "pg_get_statisticsobjdef_expressions")) {
            gate(s, named(ObjectKind.STATISTICS));
        }
        for (String f : List.of("pg_get_function_arguments", "pg_get_function_result",
                "pg_get_function_identity_arguments")) {
            gate(f, named(ObjectKind.FUNCTION));
        }
        // Its result, the qualified name of the sequence the column owns, is visible under the condition.
        spec("pg_get_serial_sequence", new Spec(List.of(rel, p), Condition.SERIAL_SEQUENCES_VISIBLE, true));
        // Whether a relation could be published: its kind and persistence, which pg_class shows anyway.
        gate("pg_relation_is_publishable", rel);
        gate("pg_get_keywords");
        gate("format_type", named(ObjectKind.TYPE), p);
        for (int args : new int[] {1, 2}) {
            List<Slot> slots = new ArrayList<>(List.of(rel));
            if (args == 2) {
                slots.add(p);
            }
            spec("pg_get_viewdef", new Spec(List.copyOf(slots), Condition.VIEWS_READ_VISIBLE, false));
            spec("pg_get_ruledef", new Spec(args == 1 ? List.of(named(ObjectKind.RULE))
                    : List.of(named(ObjectKind.RULE), p), Condition.VIEWS_READ_VISIBLE, false));
        }
        Map<String, ObjectKind> visibility = Map.ofEntries(Map.entry("table", ObjectKind.RELATION),
                Map.entry("type", ObjectKind.TYPE), Map.entry("function", ObjectKind.FUNCTION),
                Map.entry("operator", ObjectKind.OPERATOR), Map.entry("opclass", ObjectKind.BUILT_IN),
                Map.entry("opfamily", ObjectKind.BUILT_IN), Map.entry("conversion", ObjectKind.BUILT_IN),
                Map.entry("collation", ObjectKind.COLLATION), Map.entry("ts_parser", ObjectKind.BUILT_IN),
                Map.entry("ts_dict", ObjectKind.BUILT_IN), Map.entry("ts_template", ObjectKind.BUILT_IN),
                Map.entry("ts_config", ObjectKind.BUILT_IN), Map.entry("statistics_obj", ObjectKind.STATISTICS));
        visibility.forEach((object, kind) -> gate("pg_" + object + "_is_visible", named(kind)));
        gate("obj_description", Slot.DESCRIBED, Slot.CATALOG_NAME);
        gate("col_description", rel, p);
        PRIVILEGE_OBJECTS.forEach((object, kind) -> {
            String name = "has_" + object + "_privilege";
            gate(name, named(kind), p);
            gate(name, named(ObjectKind.ROLE), named(kind), p);
        });
        gate("has_column_privilege", rel, p, p);
        gate("has_column_privilege", named(ObjectKind.ROLE), rel, p, p);
        // Role membership reads role names as the privilege functions do; an absent role is an error.
        gate("pg_has_role", named(ObjectKind.ROLE), p);
        gate("pg_has_role", named(ObjectKind.ROLE), named(ObjectKind.ROLE), p);
        // Whether row security applies to a relation: an absent name is an error, an absent OID answers false.
        gate("row_security_active", rel);
        Map<String, ObjectKind> resolvers = Map.of("to_regclass", ObjectKind.RELATION, "to_regtype",
                ObjectKind.TYPE, "to_regnamespace", ObjectKind.NAMESPACE, "to_regrole", ObjectKind.ROLE,
                "to_regproc", ObjectKind.FUNCTION_NAME, "to_regprocedure", ObjectKind.FUNCTION, "to_regoper",
                ObjectKind.OPERATOR_NAME, "to_regoperator", ObjectKind.OPERATOR, "to_regcollation",
                ObjectKind.COLLATION, "to_regtypemod", ObjectKind.TYPE);
        resolvers.forEach((name, kind) -> spec(name, new Spec(List.of(named(kind)), Condition.NONE, true, true)));
        // regclass(text), the cast from text: resolves its argument as regclass input does.
        spec("regclass", new Spec(List.of(rel), Condition.NONE, true));
        Slot data = named(ObjectKind.RELATION_DATA);
        gate("pg_relation_size", data);
        gate("pg_relation_size", data, p);
        for (String size : List.of("pg_total_relation_size", "pg_table_size", "pg_indexes_size")) {
            gate(size, data);
        }
        for (String partition : List.of("pg_partition_tree", "pg_partition_ancestors", "pg_partition_root")) {
            spec(partition, new Spec(List.of(rel), Condition.HIERARCHIES_CLOSED, true));
        }
        RELATION_STATISTICS.forEach(s -> gate("pg_stat_get_" + s, data));
        gate("pg_tablespace_location", named(ObjectKind.TABLESPACE_DIRECTORY));
    }

    private GatedFunctions() {
    }

    /** The spec of a call of the built-in {@code name} with {@code arguments} arguments, or null: not gated. */
    static Spec spec(String name, int arguments) {
        Map<Integer, Spec> byArity = SPECS.get(name);
        return byArity == null ? null : byArity.get(arguments);
    }

    /**
     * Whether {@code name}'s first argument is a relation whose data it reads ({@link ObjectKind#RELATION_DATA}):
     * a column reference there is wrapped in the visible set ({@link ListedArguments}).
     */
    static boolean listsArgument(String name) {
        Map<Integer, Spec> byArity = SPECS.get(name);
        return byArity != null && byArity.values().stream().anyMatch(spec -> !spec.slots().isEmpty()
                && spec.slots().get(0) instanceof Named named && named.kind() == ObjectKind.RELATION_DATA);
    }

    /** Whether {@code name} is gated with some number of arguments. */
    static boolean gated(String name) {
        return SPECS.containsKey(name);
    }

    private static Slot named(ObjectKind kind) {
        return new Named(kind);
    }

    private static void gate(String name, Slot... slots) {
        spec(name, new Spec(List.of(slots), Condition.NONE, false));
    }

    private static void spec(String name, Spec spec) {
        SPECS.computeIfAbsent(name, n -> new HashMap<>()).put(spec.slots().size(), spec);
    }
}
