package io.pgward.guard.catalog;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether an allow the catalog check reached for one statement holds for every statement with the same
 * {@link ConstantShape} key: only when no constant of the statement can change what PostgreSQL resolves or what
 * the check reads. Decided from the statement's own parse tree and dependencies (not from the views and policies
 * it reaches, which no constant of the statement changes). Fail closed: a type or function that cannot be read
 * makes the verdict text-only.
 *
 * <p>Why the rest is sound. The check's verdict is a function of the statement's tokens other than literal values
 * (the risky-domain rule reads names and operators only), of the stored parse tree with Const values and parse
 * locations left aside (the walker reads neither), of the check function's pg_depend rows, and of the
 * catalog. Between two statements with the same key, parse analysis sees the same tokens and every replaced
 * literal in the same class, so it resolves the same relations, functions, operators and types (resolution reads
 * a literal's type, never its value; the key keeps the literals whose value the grammar reads as syntax). What a
 * value can still change:
 * <ol>
 *   <li>A literal read into an object-identifier type (regclass, regtype, regproc, regprocedure, regoper,
 *       regoperator, regnamespace, regrole, regcollation, regconfig, regdictionary): its input function looks the
 *       name up while the statement is analysed, and pg_depend records the object found
 *       ({@code find_expr_references_walker}), so {@code 'orders'::regclass} and {@code 'salaries'::regclass} read
 *       different relations. So is aclitem (role names). Excluded: a statement whose tree uses such a type anywhere
 *       (a Const, a cast's result such as {@code text::regclass}, a call's argument or result; arrays and domains
 *       of them too) is text-only. This also covers {@code pg_relation_size('t')} and {@code nextval('s')}, whose
 *       argument PostgreSQL coerces to regclass while analysing.</li>
 *   <li>A literal read into a composite type ({@code '(..)'::some_table}) runs the input function of each column
 *       type, and a type outside pg_catalog (a range over regclass, an extension's type) may do the same.
 *       Excluded: a Const whose type is not a pg_catalog type, or is a row type, is text-only. Except an enum with
 *       PostgreSQL's own input function ({@code enum_in}): it reads the label among that type's own labels
 *       (pg_enum) and nothing else, and pg_depend records the type whatever the label, so
 *       {@code status = 'paid'} and {@code status = 'shipped'} share (a BI tool's filter on a status column). An
 *       array of an enum ({@code '{paid}'::order_status[]}) is still text-only.</li>
 *   <li>A string a built-in function resolves as a name or runs as a query when the statement executes
 *       (to_regclass, has_table_privilege, pg_get_viewdef, query_to_xml, current_setting, nextval, ts_parse, ...):
 *       the check cannot see a run-time value whatever the key, so the verdict does not depend on it; as defence
 *       in depth a statement calling one of them ({@link DeniedBuiltIns} and {@link #RESOLVES_NAMES}) is
 *       text-only.</li>
 *   <li>Any other value may fail its type's input (a bad date, an integer out of range): then PostgreSQL's
 *       analysis fails, which the check reports as a refusal. Only an allow is shared, never a refusal, so another
 *       value that fails gets PostgreSQL's own error when it runs, as it would without pgward.</li>
 * </ol>
 */
final class ShapeSharing {

    /** Object-identifier types (pg_type.dat) and aclitem: their input functions look names up. */
    static final Set<String> NAME_TYPES = Set.of("regclass", "regproc", "regprocedure", "regoper", "regoperator",
            "regtype", "regnamespace", "regrole", "regcollation", "regconfig", "regdictionary", "aclitem");

    /**
     * Built-in functions that take a name, a query or an XPath as text and resolve or run it when the statement
     * executes, beyond {@link DeniedBuiltIns} (which already lists the has_, to_reg, pg_get_ and size families,
     * query_to_xml and friends, set_config, obj_description, pg_input_is_valid, ...).
     */
    static final Set<String> RESOLVES_NAMES = Set.of("nextval", "currval", "setval", "current_setting",
            "set_config", "pg_has_role", "row_security_active", "pg_settings_get_flags", "ts_parse",
            "ts_token_type", "ts_debug", "xpath", "xpath_exists", "convert", "convert_from", "convert_to",
            "pg_sequence_last_value", "pg_get_serial_sequence", "pg_notify");

    private ShapeSharing() {
    }

    /** Whether an allow for the statement whose references these are may be shared by its key. */
    static boolean shareable(References statement, CatalogReader catalog) throws SQLException {
        // A filtered catalog's proof rests on the value of a constant (the visible OIDs): the same shape with other
        // OIDs would read hidden rows.
        if (!statement.filteredRelations.isEmpty()) {
            return false;
        }
        // So does a gated reg* value: the same shape with another OID may name a hidden object.
        if (!statement.regUses.isEmpty()) {
            return false;
        }
        // The proof of a current_schemas call rests on a constant too: the visible schemas' names.
        if (statement.functions.stream().anyMatch(SchemaPathCalls.FUNCTIONS::contains)) {
            return false;
        }
        if (!statement.functions.isEmpty()) {
            Map<Long, CatalogReader.Function> functions = catalog.functions(statement.functions);
            for (long oid : statement.functions) {
                CatalogReader.Function f = functions.get(oid);
                if (f == null || DeniedBuiltIns.denied(f.name()) || RESOLVES_NAMES.contains(f.name())) {
                    return false;
                }
            }
        }
        Set<Long> used = new HashSet<>(statement.types);
        used.addAll(statement.constTypes);
        statement.directConstArguments.forEach(a -> used.add(a.type()));
        for (long oid : used) {
            if (namesInValue(oid, catalog, statement.constTypes.contains(oid))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a value of this type may look names up: the type, or an element or base type of it, is an
     * object-identifier type; for a Const's type also when one of them is a row type, or is not in pg_catalog and
     * not an enum whose input is PostgreSQL's own.
     */
    private static boolean namesInValue(long type, CatalogReader catalog, boolean constant) throws SQLException {
        Deque<Long> work = new ArrayDeque<>(List.of(type));
        Set<Long> seen = new HashSet<>();
        while (!work.isEmpty()) {
            long oid = work.poll();
            if (!seen.add(oid)) {
                continue;
            }
            CatalogReader.Type t = catalog.types(List.of(oid)).get(oid);
            if (t == null) {
                return true;
            }
            boolean builtIn = t.schema().equals("pg_catalog");
            if (builtIn && NAME_TYPES.contains(t.typname())) {
                return true;
            }
            if (constant && (!builtIn && !t.builtInEnum() || t.relation() != 0)) {
                return true;
            }
            if (t.element() != 0) {
                work.add(t.element());
            }
            if (t.base() != 0) {
                work.add(t.base());
            }
        }
        return false;
    }
}
