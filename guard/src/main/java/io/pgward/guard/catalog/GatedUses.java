package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import io.pgward.guard.classify.ReadableSettings;
import io.pgward.guard.catalog.ArgumentOrigin.Proof;
import io.pgward.guard.catalog.GatedFunctions.Slot;
import io.pgward.guard.selection.VisibleCatalog;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The gates of a login with a filtered catalog (design section 3.2): which calls of the gated catalog functions
 * ({@link GatedFunctions}) and which object-identifier values ({@code reg*}) of one checked statement name only
 * objects the login sees. An argument or value is proven when it is
 * <ul>
 *   <li>a constant OID (oid, int4 or reg*; a reg* literal is resolved by PostgreSQL while the statement is
 *       analysed, so its OID is in the tree) of a visible object,</li>
 *   <li>a constant name (to_regclass('x'), has_table_privilege('x', ...)), resolved here with the session's
 *       search_path to an absent or a visible object, or</li>
 *   <li>a column of a filter subquery that holds, in every visible row, a visible object of the kind the argument
 *       names ({@link ArgumentOrigin}, {@link ObjectColumns});</li>
 *   <li>such a relation column's regclass text, as the text argument of a function that resolves a relation name
 *       ({@link ArgumentOrigin.RelationText});</li>
 *   <li>the result of a gated call that names a visible object (a to_reg* call of a visible name, the qualified
 *       name pg_get_serial_sequence returns); or</li>
 *   <li>pgward's wrapping of a column in the visible set ({@link ArgumentOrigin.Listed}, {@link ListedArguments}):
 *       a column of pg_class's key, which holds built-in catalogs too, for the size and statistics functions.</li>
 * </ul>
 * Anything else is not: a gated function so called is refused with the selection's text, and an unproven reg* value
 * with seed 003's (a name read into a reg* type at run time, {@code c.relname::regclass}, could reach a hidden
 * relation of the same name earlier on search_path).
 *
 * <p>A constant naming a hidden object gets PostgreSQL's error for an absent object, before anything runs: by name
 * ({@code relation "hr.salaries" does not exist}, 42P01) when the statement spells it in a string, by OID
 * ({@code relation with OID 16455 does not exist}, the text of PostgreSQL's privilege checks for an OID that names
 * nothing) otherwise. By name, that is what a database without the object answers for a reg* literal,
 * has_*_privilege and pg_get_viewdef of a name; where PostgreSQL would answer NULL instead (to_regclass, and the
 * deparse, size and privilege functions of an absent OID), the error is the closest pgward can give without
 * changing the statement: answering NULL means running a rewritten call, a later step. Every OID that is not
 * visible gets the error, whether hidden or unused, so that the answer does not tell them apart. For the same reason a to_reg* call
 * with a name nothing has gets that error too: PostgreSQL would answer NULL, and an error for hidden objects
 * beside a NULL for absent ones would tell them apart.
 *
 * <p>One instance serves one check.
 */
final class GatedUses {

    /** Resolves a name as the session would, to an OID, or 0 when nothing has that name. */
    @FunctionalInterface
    interface NameResolver {
        long resolve(ObjectKind kind, byte[] name) throws SQLException;
    }

    /** The pg_node_tree columns of covered catalogs: pg_get_expr's first argument. */
    private static final Set<String> EXPRESSION_COLUMNS = Set.of("adbin", "conbin", "indexprs", "indpred",
            "relpartbound", "typdefaultbin", "polqual", "polwithcheck", "proargdefaults");

    /** How many of a statement's strings are resolved to find the one that names a hidden object. */
    private static final int MAX_LITERALS_SEARCHED = 32;
    /** How many names one check resolves; a name beyond them is not proven (the call is refused). */
    private static final int MAX_NAMES = 256;
    /** Not an OID (OIDs are unsigned 32-bit): a name left unresolved. */
    private static final long UNRESOLVED = -1;
    private static final long TEXT = 25;

    private final VisibleCatalog visible;
    private final CatalogReader catalog;
    private final NameResolver names;
    private final List<NameLiterals.Literal> literals;
    /** The server's major version: where a name in a schema the login does not see fails differently. */
    private final int serverMajor;
    private final ArgumentOrigin origins;
    private final ObjectColumns columns;
    private final Map<Long, CatalogReader.Function> functions = new HashMap<>();
    private final Map<ObjectKind, Map<String, Long>> resolved = new EnumMap<>(ObjectKind.class);
    private final Map<GatedFunctions.Condition, Boolean> conditions = new EnumMap<>(GatedFunctions.Condition.class);
    private final Map<VisibleConstant, Set<Long>> visibleConstants = new EnumMap<>(VisibleConstant.class);
    private int resolvedNames;
    /** The types of the statement's parameters: a NULL constant of one of them may be a parameter's value. */
    private final Set<Long> parameterTypes;
    /** The client's own parameters include one of a text type (or of a type not told). */
    private final boolean textParameters;

    /**
     * @param literals the values of the statement's string literals, in order: where a hidden object's name is
     *                 looked for, to word the error as PostgreSQL would
     * @param parameterTypes the types of the statement's {@code $n} parameters, which the check analyses as typed
     *                       NULLs: a NULL constant of one of these types (or of any type, when one is unknown) may
     *                       be a parameter's value, and proves nothing
     * @param textParameters the client's parameters include one of a text type, or one whose type is not known
     * @param quietStatement the statement's filters were proven without the fence ({@link QuietQuals})
     */
    GatedUses(CatalogFilters filters, CatalogReader catalog, NameResolver names, List<NameLiterals.Literal> literals,
              Set<Long> parameterTypes, boolean textParameters, boolean quietStatement, int serverMajor) {
        this(filters, ViewFilters.NONE, catalog, names, literals, parameterTypes, textParameters, quietStatement,
                serverMajor);
    }

    /** @param views the login's filtered system views, whose key columns prove names ({@link ViewKeys}) */
    GatedUses(CatalogFilters filters, ViewFilters views, CatalogReader catalog, NameResolver names,
              List<NameLiterals.Literal> literals, Set<Long> parameterTypes, boolean textParameters,
              boolean quietStatement, int serverMajor) {
        this.serverMajor = serverMajor;
        this.parameterTypes = Set.copyOf(parameterTypes);
        this.textParameters = textParameters;
        this.visible = filters.visible();
        this.catalog = catalog;
        this.names = names;
        this.literals = literals;
        this.origins = new ArgumentOrigin(filters, views, quietStatement);
        this.columns = new ObjectColumns(visible, catalog);
    }

    /**
     * The first constant of the statement that names a hidden object, as PostgreSQL's error for an absent one: a
     * reg* constant anywhere, or an object argument of a gated call. Also notes the reg* constants that name
     * visible objects ({@link #visibleConstants}).
     */
    Optional<Verdict.Refuse> absent(References statement) throws SQLException {
        for (References.RegUse use : statement.regUses) {
            if (use.node().tag().equals("FUNCEXPR")) {
                continue;
            }
            ObjectKind kind = ObjectKind.ofRegType(use.type());
            Proof proof = origins.of(use.node(), use.scope());
            for (Proof one : proof instanceof ArgumentOrigin.Each each ? each.proofs() : List.of(proof)) {
                if (one instanceof ArgumentOrigin.Constant c) {
                    if (!kind.visible(visible, c.oid())) {
                        return Optional.of(absentObject(kind, c.oid()));
                    }
                    VisibleConstant.of(kind).ifPresent(catalog ->
                            visibleConstants.computeIfAbsent(catalog, k -> new LinkedHashSet<>()).add(c.oid()));
                }
            }
        }
        for (References.DirectConstArgument argument : statement.directConstArguments) {
            // A text search configuration or dictionary someone made is hidden, as pg_ts_config shows it (built-in
            // ones only): PostgreSQL's answer is the one for a name nothing has, not a refusal that confirms it.
            ObjectKind kind = ObjectKind.ofTextSearchType(argument.type());
            if (kind != null && argument.named() > 0 && !kind.visible(visible, argument.named())) {
                return Optional.of(absentObject(kind, argument.named()));
            }
        }
        if (statement.constTypes.stream().anyMatch(AclItems::isAclitem)) {
            Optional<Verdict.Refuse> role = hiddenRoleInAclitem();
            if (role.isPresent()) {
                return role;
            }
        }
        prefetch(statement.calls);
        for (References.Call call : statement.calls) {
            GatedFunctions.Spec spec = spec(call);
            if (spec == null) {
                continue;
            }
            List<TreeValue> args = arguments(call);
            for (int i = 0; i < args.size(); i++) {
                ObjectKind kind = kindAt(spec, args, i, call.scope());
                if (kind == null) {
                    continue;
                }
                Proof proof = origins.of(args.get(i), call.scope());
                if (proof instanceof ArgumentOrigin.Listed listed) {
                    proof = listed.column();
                }
                ObjectKind shown = kind.existence();
                if (proof instanceof ArgumentOrigin.Constant c && kind.provableByConstant()
                        && !shown.visible(visible, c.oid())) {
                    return Optional.of(absentObject(shown, c.oid()));
                }
                if (proof instanceof ArgumentOrigin.Name n && kind.resolver() != null) {
                    boolean exact = readsExactName(call, kind);
                    long oid = resolve(shown, exact ? quoted(n.bytes()) : n.bytes());
                    if (oid == UNRESOLVED) {
                        continue;
                    }
                    // A schema's message quotes the name as parsed: the quoted text parses to the name itself.
                    String named = exact && kind == ObjectKind.NAMESPACE
                            ? new String(quoted(n.bytes()), StandardCharsets.UTF_8) : n.text();
                    boolean hiddenSchema = !exact && hiddenSchema(shown, n.text());
                    if (spec.absentIsNull() && (oid == 0 || hiddenSchema || !shown.visible(visible, oid))) {
                        // Hidden and absent alike: served as NULL where the call can be rewritten (NullNames).
                        return Optional.of(CatalogRefusals.nullName(kind.sqlState(), kind.absentByName(named, oid),
                                functions.get(call.function()).name(), n.text()));
                    }
                    if (hiddenSchema) {
                        // The function looks the name up when it runs: PostgreSQL's error for a schema it lacks,
                        // whether or not the hidden schema holds the object.
                        return Optional.of(CatalogRefusals.absentObject(ObjectKind.NAMESPACE.sqlState(),
                                ObjectKind.NAMESPACE.absentByName(qualifier(shown, n.text()), 0), 0));
                    }
                    if (!shown.visible(visible, oid)) {
                        return Optional.of(CatalogRefusals.absentObject(kind.sqlState(),
                                kind.absentByName(named, oid), 0));
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The refusal of the first call in the statement's own code of a function that reads a setting by name
     * ({@link ReadableSettings#FUNCTIONS}) whose name is not proven one the login may read: a constant SHOW may show
     * ({@link ReadableSettings#readable}), a NULL that is no parameter, or a column of the filtered pg_settings,
     * whose rows are the settings it shows. L2 judged the string literals written as the argument; a name computed,
     * bound or taken from a subquery reaches only this check. The definitions of views and policies the statement
     * reaches are not searched: a policy's {@code current_setting('app.tenant')} shows nothing to the login.
     */
    Optional<Verdict.Refuse> unreadableSettings(References statement) throws SQLException {
        prefetch(statement.calls);
        for (References.Call call : statement.calls) {
            CatalogReader.Function f = functions.get(call.function());
            if (f == null || !f.builtIn() || !ReadableSettings.FUNCTIONS.contains(f.name())) {
                continue;
            }
            List<TreeValue> args = arguments(call);
            if (args.isEmpty() || !readableSetting(origins.of(args.get(0), call.scope()))) {
                return Optional.of(CatalogRefusals.deniedBuiltIn(f.name()));
            }
        }
        if (!statement.otherFunctionUses.isEmpty()) {
            for (CatalogReader.Function f : catalog.functions(List.copyOf(statement.otherFunctionUses)).values()) {
                if (f.builtIn() && ReadableSettings.FUNCTIONS.contains(f.name())) {
                    return Optional.of(CatalogRefusals.deniedBuiltIn(f.name()));
                }
            }
        }
        return Optional.empty();
    }

    private boolean readableSetting(Proof proof) {
        return switch (proof) {
            case ArgumentOrigin.Name n -> ReadableSettings.readable(n.text());
            case ArgumentOrigin.NullConstant n -> !parameter(n);
            case ArgumentOrigin.ViewColumn v -> ViewKeys.visibleSetting(v.filter(), v.attnum());
            case ArgumentOrigin.Each each -> each.proofs().stream().allMatch(this::readableSetting);
            default -> false;
        };
    }

    /** The catalogs whose objects a reg* constant records a dependency on (find_expr_references_walker). */
    enum VisibleConstant {
        RELATION, TYPE, FUNCTION;

        static Optional<VisibleConstant> of(ObjectKind kind) {
            return switch (kind) {
                case RELATION -> Optional.of(RELATION);
                case TYPE -> Optional.of(TYPE);
                case FUNCTION, FUNCTION_NAME -> Optional.of(FUNCTION);
                default -> Optional.empty();
            };
        }
    }

    /**
     * OIDs of reg* constants of {@code catalog} found visible by {@link #absent}: a dependency on one of them is not
     * a read.
     */
    Set<Long> visibleConstants(VisibleConstant catalog) {
        return visibleConstants.getOrDefault(catalog, Set.of());
    }

    /**
     * Whether every use of the built-in {@code function} in {@code code} is a call the gates prove: it is gated
     * with that many arguments, each argument that names an object is proven, and the call's condition holds.
     */
    boolean allows(CatalogReader.Function function, References code) throws SQLException {
        if (code.otherFunctionUses.contains(function.oid())) {
            return false;
        }
        functions.putIfAbsent(function.oid(), function);
        boolean called = false;
        for (References.Call call : code.calls) {
            if (call.function() == function.oid()) {
                called = true;
                if (!proven(call) && !matchesVisibleKey(call)) {
                    return false;
                }
            }
        }
        return called;
    }

    /** The object-identifier types of the values among {@code code}'s that are not proven; the type rules refuse them. */
    Set<Long> unprovenTypes(References code) throws SQLException {
        Set<Long> unproven = new LinkedHashSet<>();
        prefetch(code.calls);
        for (References.RegUse use : code.regUses) {
            if (!proven(use)) {
                unproven.add(use.type());
            }
        }
        return unproven;
    }

    private boolean proven(References.RegUse use) throws SQLException {
        if (use.node().tag().equals("FUNCEXPR")) {
            References.Call call = new References.Call(use.node().number("funcid"), use.node(), use.scope());
            prefetch(List.of(call));
            GatedFunctions.Spec spec = spec(call);
            return spec != null && spec.resultVisible() && (proven(call) || matchesVisibleKey(call));
        }
        return proven(origins.of(use.node(), use.scope()), ObjectKind.ofRegType(use.type()));
    }

    /**
     * A to_reg* call, whatever its argument, whose result is only compared with a column of visible objects of its
     * kind in a WHERE conjunct ({@link KeyMatch}): it cannot tell a hidden object from an absent one.
     */
    private boolean matchesVisibleKey(References.Call call) throws SQLException {
        GatedFunctions.Spec spec = spec(call);
        ObjectKind kind = ObjectKind.ofRegType(call.expression().number("funcresulttype"));
        if (spec == null || !spec.absentIsNull() || kind == null || arguments(call).size() != 1
                || !boundTypeName(arguments(call).get(0))) {
            return false;
        }
        TreeValue other = KeyMatch.otherOperand(call.expression(), call.scope());
        return other != null && origins.of(other, call.scope()) instanceof ArgumentOrigin.Column column
                && proven(column, kind);
    }

    /**
     * Whether a to_reg* call's argument is the stand-in for a parameter that takes type names: a regtype one
     * ({@code to_regtype(NULL::text)}, {@link QueryText}) or a text one ({@link TypeNameTexts}), whose bound values
     * the session resolves before each Bind, a hidden type's name as an absent one's. Any other argument may carry,
     * at run time, a name that the lookup finds and then fails on (a type modifier on a type that takes none,
     * {@code %TYPE}), where an absent name gives NULL: an existence test. The stand-in looks like any text
     * parameter's, so no other parameter of a text type may be in the statement, and a text one's stand-in must be
     * nowhere else ({@link #keyedTypeNameTexts}).
     */
    private boolean boundTypeName(TreeValue argument) {
        return !textParameters && KeyMatch.unwrapped(argument) instanceof TreeValue.Node constant
                && nullText(constant);
    }

    /** A NULL constant of text or varchar: a stand-in for a text parameter, or the client's own NULL. */
    static boolean nullText(TreeValue.Node node) {
        return node.tag().equals("CONST") && "true".equals(node.scalar("constisnull"))
                && TypeNameTexts.TYPES.contains(node.number("consttype"));
    }

    /**
     * For a statement with text parameters that take type names ({@link TypeNameTexts}): whether every NULL text
     * constant in it, their stand-ins among them, is the argument of a to_reg* call that only matches visible keys
     * ({@link #matchesVisibleKey}). A stand-in anywhere else (the argument of a user's function that the name
     * {@code to_regtype} resolved to, a coercion to name) would carry the value pgward binds in place of a hidden
     * type's name where the statement can show it.
     */
    boolean keyedTypeNameTexts(References statement) throws SQLException {
        prefetch(statement.calls);
        Set<TreeValue> keyed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (References.Call call : statement.calls) {
            if (matchesVisibleKey(call)) {
                keyed.add(KeyMatch.unwrapped(arguments(call).get(0)));
            }
        }
        return keyed.containsAll(statement.nullTexts);
    }

    private boolean proven(References.Call call) throws SQLException {
        GatedFunctions.Spec spec = spec(call);
        if (spec == null) {
            return false;
        }
        List<TreeValue> args = arguments(call);
        for (int i = 0; i < args.size(); i++) {
            Slot slot = spec.slots().get(i);
            if (slot instanceof GatedFunctions.Plain) {
                continue;
            }
            Proof proof = origins.of(args.get(i), call.scope());
            if (slot instanceof GatedFunctions.Named named && proof instanceof ArgumentOrigin.Name n
                    && readsExactName(call, named.kind())) {
                proof = new ArgumentOrigin.Name(quoted(n.bytes()));
            }
            boolean ok = switch (slot) {
                case GatedFunctions.Expression e -> proof instanceof ArgumentOrigin.NullConstant n && !parameter(n)
                        || proof instanceof ArgumentOrigin.Column c && expressionColumn(c);
                case GatedFunctions.CatalogName n -> kindAt(spec, args, 0, call.scope()) != null;
                case GatedFunctions.Described d -> {
                    ObjectKind kind = kindAt(spec, args, i, call.scope());
                    yield kind != null && proven(proof, kind);
                }
                case GatedFunctions.Named named -> proven(proof, named.kind())
                        && !(spec.absentIsNull() && proof instanceof ArgumentOrigin.Name n
                        && resolve(named.kind(), n.bytes()) == 0);
                case GatedFunctions.Plain p -> true;
            };
            if (!ok) {
                return false;
            }
        }
        return condition(spec.condition());
    }

    private boolean proven(Proof proof, ObjectKind kind) throws SQLException {
        return switch (proof) {
            case ArgumentOrigin.NullConstant n -> !parameter(n);
            case ArgumentOrigin.Assumed a -> true;
            case ArgumentOrigin.Constant c -> kind.visible(visible, c.oid());
            case ArgumentOrigin.Name n -> {
                long oid = kind.resolver() == null ? UNRESOLVED : resolve(kind, n.bytes());
                yield oid != UNRESOLVED && kind.visible(visible, oid);
            }
            case ArgumentOrigin.Column c -> c.filter() != null && noRows(c.filter())
                    || columns.names(c.filter(), c.attnum(), kind);
            case ArgumentOrigin.Each each -> {
                for (Proof row : each.proofs()) {
                    if (!proven(row, kind)) {
                        yield false;
                    }
                }
                yield true;
            }
            case ArgumentOrigin.FunctionResult r -> functionResult(r, kind);
            case ArgumentOrigin.RelationText t -> kind == ObjectKind.RELATION && proven(t.relation(), kind);
            case ArgumentOrigin.Listed l -> listed(l, kind);
            case ArgumentOrigin.ViewColumn v -> kind == ObjectKind.NAMESPACE && visibleSchemas(v);
            case ArgumentOrigin.QualifiedName q -> kind == ObjectKind.RELATION
                    && ViewKeys.relationPair(q.filter(), q.schemaAttnum(), q.nameAttnum());
            case ArgumentOrigin.CurrentRole r -> kind == ObjectKind.ROLE;
            case ArgumentOrigin.Elements e -> elements(e.array(), kind);
            case ArgumentOrigin.Unproven u -> false;
        };
    }

    /**
     * Whether a call yields, in every row, a visible object of {@code kind}: it is a gated call whose result is
     * visible once its arguments are proven, and its result type (a reg* type, or the text of a call that returns a
     * name, {@link GatedFunctions#QUALIFIED_RELATION_NAMES}) names that kind.
     */
    private boolean functionResult(ArgumentOrigin.FunctionResult result, ObjectKind kind) throws SQLException {
        References.Call call = new References.Call(result.call().number("funcid"), result.call(), result.scope());
        prefetch(List.of(call));
        long type = result.call().number("funcresulttype");
        boolean ofKind = ObjectKind.ofRegType(type) == kind
                || type == TEXT && kind == ObjectKind.RELATION && qualifiedRelationName(call);
        GatedFunctions.Spec spec = spec(call);
        return ofKind && spec != null && spec.resultVisible() && proven(call);
    }

    /**
     * A call whose text result is a relation's schema-qualified name (pg_get_serial_sequence): it resolves to that
     * relation whatever the search_path.
     */
    private boolean qualifiedRelationName(References.Call call) {
        CatalogReader.Function f = functions.get(call.function());
        return f != null && f.builtIn() && GatedFunctions.QUALIFIED_RELATION_NAMES.contains(f.name());
    }

    /**
     * pgward's wrapping of a column in the visible set of {@code kind}'s catalog ({@link ArgumentOrigin.Listed}):
     * proven when the list is exactly that set (its user objects: a size function may read user relations of the
     * selection only, and a deparse function of a built-in one answers NULL, as for an object nothing has), whatever
     * the column holds: {@code pg_class.oid}, or numbers from generate_series.
     */
    private boolean listed(ArgumentOrigin.Listed listed, ObjectKind kind) throws SQLException {
        if (kind.catalog() == null) {
            return false;
        }
        io.pgward.guard.selection.OidSet set = visible.oids(kind.catalog());
        // The wrapping yields the column's value where it is in the set and NULL elsewhere, whatever the column
        // holds (ArgumentOrigin.Listed reads one column, the same in both places).
        return set.size() == listed.oids().size() && listed.oids().stream().allMatch(set::contains);
    }

    /**
     * Whether every value a column of a filtered view may hold, by its filter's keys, is the name of a visible schema,
     * as has_schema_privilege reads a name: exactly, without folding or quotes ({@link ViewKeys#values}). Each name
     * is resolved quoted, so that it is read as that very name.
     */
    private boolean visibleSchemas(ArgumentOrigin.ViewColumn column) throws SQLException {
        Set<String> values = ViewKeys.values(column.filter(), column.attnum());
        if (values == null) {
            return false;
        }
        for (String schema : values) {
            long oid = resolve(ObjectKind.NAMESPACE, quoted(schema.getBytes(StandardCharsets.UTF_8)));
            if (oid == UNRESOLVED || oid == 0 || !ObjectKind.NAMESPACE.visible(visible, oid)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether every element of an array names a visible object of {@code kind}: a column of a filter subquery whose
     * every visible row holds only such elements ({@link ObjectColumns#namesEach}), or a NULL that is no parameter.
     */
    private boolean elements(Proof array, ObjectKind kind) throws SQLException {
        return switch (array) {
            case ArgumentOrigin.NullConstant n -> !parameter(n);
            case ArgumentOrigin.Column c -> c.filter() != null && (noRows(c.filter())
                    || columns.namesEach(c.filter(), c.attnum(), kind));
            case ArgumentOrigin.Each each -> {
                for (Proof one : each.proofs()) {
                    if (!elements(one, kind)) {
                        yield false;
                    }
                }
                yield true;
            }
            default -> false;
        };
    }

    /**
     * Whether the call reads a name of {@code kind} as it is, where the to_reg* function that resolves names of the
     * kind parses it as an identifier (folding case, removing quotes): has_*_privilege's and pg_has_role's role
     * names and has_schema_privilege's schema names (get_role_oid, get_namespace_oid). {@code has_schema_privilege('PUBLIC', ...)} asks for a schema named
     * PUBLIC, not for public: resolving it as to_regnamespace does would prove the visible public and let the call
     * answer for a hidden "PUBLIC" where an absent one gives an error.
     */
    private boolean readsExactName(References.Call call, ObjectKind kind) {
        CatalogReader.Function f = functions.get(call.function());
        return (kind == ObjectKind.NAMESPACE || kind == ObjectKind.ROLE) && f != null && f.builtIn()
                && (f.name().startsWith("has_") && f.name().endsWith("_privilege") || f.name().equals("pg_has_role"));
    }

    /** {@code name} as a quoted identifier, which the to_reg* functions read as exactly that name. */
    private static byte[] quoted(byte[] name) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(name.length + 2);
        out.write('"');
        for (byte b : name) {
            if (b == '"') {
                out.write('"');
            }
            out.write(b);
        }
        out.write('"');
        return out.toByteArray();
    }

    /** Whether a NULL constant may stand for a parameter (see the constructor). */
    private boolean parameter(ArgumentOrigin.NullConstant constant) {
        return parameterTypes.contains(constant.type()) || parameterTypes.contains(0L);
    }

    /** What argument {@code i} of a call names, or null when it names nothing (or nothing pgward can tell). */
    private ObjectKind kindAt(GatedFunctions.Spec spec, List<TreeValue> args, int i, QueryScope scope) {
        Slot slot = spec.slots().get(i);
        if (slot instanceof GatedFunctions.Named named) {
            return named.kind();
        }
        if (slot instanceof GatedFunctions.Described) {
            int at = spec.slots().indexOf(Slot.CATALOG_NAME);
            if (at >= 0 && at < args.size() && origins.of(args.get(at), scope) instanceof ArgumentOrigin.Name n) {
                return GatedFunctions.DESCRIBED_CATALOGS.get(n.text());
            }
        }
        return null;
    }

    /**
     * A pg_node_tree column pg_get_expr may print: one of a visible row's own expressions (polqual and polwithcheck
     * arrive masked, {@code CoveredCatalog.Withheld}), or any column of a catalog served with no rows.
     */
    private boolean expressionColumn(ArgumentOrigin.Column column) {
        return column.filter() != null && (noRows(column.filter()) || column.filter().columns().stream()
                .anyMatch(c -> c.attnum() == column.attnum() && EXPRESSION_COLUMNS.contains(c.name())));
    }

    /** A catalog served with no rows: a column of it never carries a value, so it names nothing. */
    private static boolean noRows(CatalogFilters.Filter filter) {
        return filter.catalog().rows() instanceof RowFilter.NoRows;
    }

    private GatedFunctions.Spec spec(References.Call call) {
        CatalogReader.Function f = functions.get(call.function());
        if (f == null || !f.builtIn()) {
            return null;
        }
        return GatedFunctions.spec(f.name(), arguments(call).size());
    }

    private static List<TreeValue> arguments(References.Call call) {
        return call.expression().field("args").orElse(null) instanceof TreeValue.NodeList list ? list.items()
                : List.of();
    }

    private void prefetch(List<References.Call> calls) throws SQLException {
        List<Long> missing = calls.stream().map(References.Call::function).filter(f -> !functions.containsKey(f))
                .distinct().toList();
        if (!missing.isEmpty()) {
            functions.putAll(catalog.functions(missing));
        }
    }

    /**
     * The OID {@code name} resolves to, 0 when nothing has it, or {@link #UNRESOLVED} once the check has resolved
     * {@link #MAX_NAMES} names (one round trip each): a statement may hold any number of them.
     */
    private long resolve(ObjectKind kind, byte[] name) throws SQLException {
        String key = Arrays.toString(name);
        Map<String, Long> byName = resolved.computeIfAbsent(kind, k -> new HashMap<>());
        Long oid = byName.get(key);
        if (oid == null) {
            if (resolvedNames >= MAX_NAMES) {
                return UNRESOLVED;
            }
            resolvedNames++;
            oid = names.resolve(kind, name);
            byName.put(key, oid);
        }
        return oid;
    }

    /**
     * The error for a reg* constant naming a hidden object: by the name the statement spells it with in a string, at
     * that string (PostgreSQL reads a literal it coerces to a reg* type, by a cast or as a function's argument, while
     * it analyses the statement, and points at it), else by OID without a position (an OID is never looked up while
     * the statement is analysed).
     */
    private Verdict.Refuse absentObject(ObjectKind kind, long oid) throws SQLException {
        if (kind.resolver() != null) {
            List<NameLiterals.Literal> searched = literals.subList(0, Math.min(literals.size(), MAX_LITERALS_SEARCHED));
            // A literal written as a reg* input first, then one that is a call's argument (coerced to the
            // parameter's reg* type), then any: the constant PostgreSQL would point at.
            for (int rank = 0; rank <= 2; rank++) {
                for (NameLiterals.Literal literal : searched) {
                    if (literal.rank() != rank) {
                        continue;
                    }
                    // One round trip per string: a bounded number, however many the statement has.
                    for (String name : names(literal.value())) {
                        // Digits are the OID itself to every reg* input, never a name (regproc.c); from PostgreSQL 16
                        // on the to_reg* functions read them so too, and would make the OID look like a name.
                        if (isOidText(name)) {
                            continue;
                        }
                        if (resolve(kind, name.getBytes(StandardCharsets.UTF_8)) == oid) {
                            return absentByName(kind, name, oid, literal.position());
                        }
                    }
                }
            }
        }
        return CatalogRefusals.absentObject(kind.sqlState(), kind.absentByOid(oid), 0);
    }

    /**
     * An aclitem constant naming a hidden role: PostgreSQL read its text while it analysed the statement, and its
     * answer for a role nothing has is an error at that string. Each string of the statement is read as aclitems;
     * the first hidden role, grantee before grantor, is the one PostgreSQL would have stopped at.
     */
    private Optional<Verdict.Refuse> hiddenRoleInAclitem() throws SQLException {
        for (NameLiterals.Literal literal : literals.subList(0, Math.min(literals.size(), MAX_LITERALS_SEARCHED))) {
            for (String item : names(literal.value())) {
                for (String role : AclItems.roleNames(item)) {
                    long oid = resolve(ObjectKind.ROLE, quoted(role.getBytes(StandardCharsets.UTF_8)));
                    if (oid > 0 && !ObjectKind.ROLE.visible(visible, oid)) {
                        return Optional.of(CatalogRefusals.absentObject(ObjectKind.ROLE.sqlState(),
                                ObjectKind.ROLE.absentByName(role, oid), literal.position()));
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static boolean isOidText(String name) {
        return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /**
     * PostgreSQL's error for a reg* literal of a name nothing has, where the name's schema is not one the login
     * sees: up to PostgreSQL 15 every reg* input but regoperator's fails on the schema first, and regtype's still
     * does (regproc.c, namespace.c); from 16 on the others answer for the object.
     */
    private Verdict.Refuse absentByName(ObjectKind kind, String name, long oid, int position) throws SQLException {
        boolean schemaFirst = kind == ObjectKind.TYPE || serverMajor <= 15 && kind != ObjectKind.OPERATOR;
        if (schemaFirst && hiddenSchema(kind, name)) {
            return CatalogRefusals.absentObject(ObjectKind.NAMESPACE.sqlState(),
                    ObjectKind.NAMESPACE.absentByName(qualifier(kind, name), 0), position);
        }
        return CatalogRefusals.absentObject(kind.sqlState(), kind.absentByName(name, oid), position);
    }

    /**
     * Whether {@code name} is qualified with a schema the login does not see, hidden or absent: PostgreSQL's answer
     * for it is the one for a schema that does not exist, whatever the schema holds.
     */
    private boolean hiddenSchema(ObjectKind kind, String name) throws SQLException {
        String schema = qualifier(kind, name);
        if (schema == null) {
            return false;
        }
        long oid = resolve(ObjectKind.NAMESPACE, schema.getBytes(StandardCharsets.UTF_8));
        return oid != UNRESOLVED && (oid == 0 || !ObjectKind.NAMESPACE.visible(visible, oid));
    }

    /** The schema part of a qualified name of {@code kind}, as written, or null ({@link QualifiedName}). */
    private static String qualifier(ObjectKind kind, String name) {
        return QualifiedName.schema(kind, name);
    }

    /**
     * The names a string may spell: itself, or, for an array literal ({@code '{int,hr.t}'::regtype[]}), each element,
     * so that a hidden element gets the by-name error an absent one gets from PostgreSQL. (The array literal itself is
     * no name: to_regtype would fail on its syntax and end the check.)
     */
    static List<String> names(String literal) {
        String body = literal.strip();
        if (body.length() < 2 || body.charAt(0) != '{' || body.charAt(body.length() - 1) != '}') {
            return List.of(literal);
        }
        List<String> names = new ArrayList<>();
        StringBuilder element = new StringBuilder();
        boolean quoted = false;
        for (int i = 1; i < body.length() - 1; i++) {
            char c = body.charAt(i);
            if (c == '\\' && i + 1 < body.length() - 1) {
                element.append(body.charAt(++i));
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                names.add(element.toString().strip());
                element.setLength(0);
            } else {
                element.append(c);
            }
        }
        names.add(element.toString().strip());
        return names;
    }

    private boolean condition(GatedFunctions.Condition condition) throws SQLException {
        if (condition == GatedFunctions.Condition.NONE) {
            return true;
        }
        Boolean known = conditions.get(condition);
        if (known == null) {
            String relations = "'" + visible.oids(VisibleCatalog.Catalog.PG_CLASS).arrayLiteral()
                    + "'::pg_catalog.oid[]";
            known = !catalog.answers(switch (condition) {
                case VIEWS_READ_VISIBLE -> viewsReadHidden(relations);
                case SERIAL_SEQUENCES_VISIBLE -> serialSequenceHidden(relations);
                case HIERARCHIES_CLOSED -> "SELECT EXISTS (SELECT FROM pg_catalog.pg_inherits i WHERE (i.inhrelid "
                        + "OPERATOR(pg_catalog.=) ANY (" + relations + ")) OPERATOR(pg_catalog.<>) (i.inhparent "
                        + "OPERATOR(pg_catalog.=) ANY (" + relations + ")))";
                case NONE -> throw new IllegalStateException();
            });
            conditions.put(condition, known);
        }
        return known;
    }

    /**
     * Whether a sequence that a column of a visible relation (a built-in catalog too) owns, as pg_get_serial_sequence
     * finds it (pg_depend, deptype {@code a} for serial, {@code i} for identity), is not visible: its name would be
     * printed.
     */
    private static String serialSequenceHidden(String relations) {
        return "SELECT EXISTS (SELECT FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s "
                + "ON s.oid OPERATOR(pg_catalog.=) d.objid AND s.relkind OPERATOR(pg_catalog.=) 'S' "
                + "WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
                + "AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
                + "AND d.deptype OPERATOR(pg_catalog.=) ANY ('{a,i}'::pg_catalog.\"char\"[]) "
                + "AND (d.refobjid OPERATOR(pg_catalog.<) '" + VisibleCatalog.FIRST_NORMAL_OBJECT_ID
                + "'::pg_catalog.oid OR d.refobjid OPERATOR(pg_catalog.=) ANY (" + relations + ")) "
                + "AND NOT d.objid OPERATOR(pg_catalog.=) ANY (" + relations + "))";
    }

    /**
     * Whether a visible view's or rule's definition depends on a user relation, type or function the login does not
     * see: pg_get_viewdef and pg_get_ruledef would print its name.
     */
    private String viewsReadHidden(String relations) {
        String types = "'" + visible.oids(VisibleCatalog.Catalog.PG_TYPE).arrayLiteral() + "'::pg_catalog.oid[]";
        return "SELECT EXISTS (SELECT FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_depend d "
                + "ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass "
                + "AND d.objid OPERATOR(pg_catalog.=) r.oid "
                + "WHERE r.ev_class OPERATOR(pg_catalog.=) ANY (" + relations + ") "
                + "AND d.refobjid OPERATOR(pg_catalog.>=) '" + VisibleCatalog.FIRST_NORMAL_OBJECT_ID
                + "'::pg_catalog.oid AND ("
                + "d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
                + "AND NOT d.refobjid OPERATOR(pg_catalog.=) ANY (" + relations + ") "
                + "OR d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass "
                + "AND NOT d.refobjid OPERATOR(pg_catalog.=) ANY (" + types + ") "
                + "OR d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass))";
    }
}
