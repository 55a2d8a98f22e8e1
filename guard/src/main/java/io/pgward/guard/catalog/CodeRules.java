package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import io.pgward.guard.classify.ReadableSettings;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The seed's function, operator and type rules, applied to the {@link References} of code a statement runs (its
 * own tree, and the definitions of the views and the policies it reaches).
 *
 * <ul>
 *   <li>An operator outside pg_catalog is refused.</li>
 *   <li>A function in pg_catalog is allowed, except, with a table selection, the {@link DeniedBuiltIns}.</li>
 *   <li>A function outside pg_catalog must pass the user-function rule: a plain function (not an aggregate,
 *       window function or procedure), STABLE or IMMUTABLE, not SECURITY DEFINER, no SET clauses, written in SQL
 *       or PL/pgSQL, not owned by a superuser, and a body that does not write, run EXECUTE or read a relation and
 *       calls only functions that pass too (a built-in callee must not be VOLATILE, denied or, with a table
 *       selection, gated, and one that reads a setting by name must be given a constant name). With a table
 *       selection it uses no object-identifier type or aclitem (they print or look up names), directly, through a
 *       domain, an array or a row type's column, neither in its own signature nor in a built-in callee's. Its
 *       parameters' defaults are held to the rule of a body. A SQL-standard body is read as a parse tree; a string
 *       body as text ({@link StringBody}), where every word that names a type counts.</li>
 *   <li>A type is refused when one of its input, output, receive or send functions is outside pg_catalog
 *       (arrays by their element type, domains by their base type, ranges and multiranges by their subtype too).
 *       With a table selection, the object-identifier types are refused, except a regconfig or regdictionary
 *       constant passed directly to one of the text-search functions that take it.</li>
 *   <li>With a filtered catalog, the gated functions and the other object-identifier types are allowed where
 *       {@link GatedUses} proves that they name visible objects only.</li>
 *   <li>With a table selection, current_schema and current_schemas are allowed only where {@link SchemaPathProof}
 *       proves the call pgward's rewrite of them: PostgreSQL's own answer names the hidden schemas on search_path.
 *       A user function that calls them fails the user-function rule.</li>
 * </ul>
 *
 * One instance serves one check: what it reads from the catalog is kept only for that transaction.
 */
final class CodeRules {

    private static final Set<String> OBJECT_IDENTIFIER_TYPES = Set.of("regclass", "regproc", "regprocedure",
            "regoper", "regoperator", "regtype", "regnamespace", "regrole", "regcollation", "regconfig",
            "regdictionary");
    private static final Set<String> TEXT_SEARCH_FUNCTIONS = Set.of("to_tsvector", "to_tsquery", "plainto_tsquery",
            "phraseto_tsquery", "websearch_to_tsquery", "ts_headline", "ts_lexize");

    private final CatalogReader catalog;
    private final boolean selection;
    /** The gates of a login with a filtered catalog; null without one (every gated function is then denied). */
    private final GatedUses gates;
    /** The proof of current_schemas calls of a login with a table selection; null refuses every call. */
    private final SchemaPathProof schemaPath;
    private final Map<Long, CatalogReader.Function> functions = new HashMap<>();
    private final Map<Long, Boolean> userFunctionVerdicts = new HashMap<>();

    CodeRules(CatalogReader catalog, boolean selection) {
        this(catalog, selection, null);
    }

    CodeRules(CatalogReader catalog, boolean selection, GatedUses gates) {
        this(catalog, selection, gates, null);
    }

    CodeRules(CatalogReader catalog, boolean selection, GatedUses gates, SchemaPathProof schemaPath) {
        this.catalog = catalog;
        this.selection = selection;
        this.gates = gates;
        this.schemaPath = schemaPath;
    }

    Optional<Verdict.Refuse> check(References code) throws SQLException {
        Map<Long, CatalogReader.Operator> operators = catalog.operators(code.operators);
        Set<Long> functionOids = new LinkedHashSet<>();
        for (long oid : code.operators) {
            CatalogReader.Operator op = required(operators, oid, "operator");
            if (!op.builtIn()) {
                return Optional.of(CatalogRefusals.operator(op.qualifiedName()));
            }
            functionOids.add(op.function());
        }
        functionOids.addAll(code.functions);
        code.directConstArguments.forEach(a -> functionOids.add(a.function()));
        prefetch(functionOids);
        for (long oid : functionOids) {
            CatalogReader.Function f = function(oid);
            if (f.builtIn()) {
                if (selection && SchemaPathCalls.FUNCTIONS.contains(oid)) {
                    if (schemaPath == null || !schemaPath.allows(f, code)) {
                        return Optional.of(CatalogRefusals.deniedBuiltIn(f.name()));
                    }
                } else if (selection && DeniedBuiltIns.denied(f.name()) && !(gates != null && gates.allows(f, code))) {
                    return Optional.of(CatalogRefusals.deniedBuiltIn(f.name()));
                }
            } else if (!userFunctionPasses(f)) {
                return Optional.of(CatalogRefusals.function(f.qualifiedName()));
            }
        }
        if (selection && code.aclitemFromText) {
            return Optional.of(CatalogRefusals.aclitemFromText());
        }
        Set<Long> used = new LinkedHashSet<>(code.types);
        if (gates != null) {
            used.addAll(gates.unprovenTypes(code));
        } else {
            code.regUses.forEach(use -> used.add(use.type()));
        }
        for (References.DirectConstArgument arg : code.directConstArguments) {
            CatalogReader.Function f = function(arg.function());
            if (!(f.builtIn() && TEXT_SEARCH_FUNCTIONS.contains(f.name()))) {
                used.add(arg.type());
            }
        }
        return types(used);
    }

    /** The type rules; the first type that fails, in order of use. */
    private Optional<Verdict.Refuse> types(Set<Long> used) throws SQLException {
        List<CatalogReader.Type> ordered = withElementsAndBases(used);
        for (CatalogReader.Type t : ordered) {
            if (!t.builtInIo()) {
                return Optional.of(CatalogRefusals.type(t.name()));
            }
        }
        return objectIdentifierType(ordered).map(t -> CatalogRefusals.objectIdentifierType(t.name()));
    }

    /**
     * {@code used} with the element types of arrays, the base types of domains and the subtypes of ranges and
     * multiranges, in order of use.
     */
    private List<CatalogReader.Type> withElementsAndBases(Collection<Long> used) throws SQLException {
        return withElementsAndBases(used, false);
    }

    /**
     * {@code used} with the element types of arrays, the base types of domains, the subtypes of ranges and
     * multiranges and, when {@code columns}, the types of the columns of row types, in order of use.
     */
    private List<CatalogReader.Type> withElementsAndBases(Collection<Long> used, boolean columns) throws SQLException {
        Deque<Long> work = new ArrayDeque<>(used);
        Set<Long> seen = new LinkedHashSet<>();
        List<CatalogReader.Type> ordered = new ArrayList<>();
        List<Long> rows = new ArrayList<>();
        List<Long> ranges = new ArrayList<>();
        while (!work.isEmpty()) {
            List<Long> batch = new ArrayList<>();
            while (!work.isEmpty()) {
                long oid = work.poll();
                if (seen.add(oid)) {
                    batch.add(oid);
                }
            }
            Map<Long, CatalogReader.Type> found = catalog.types(batch);
            for (long oid : batch) {
                CatalogReader.Type t = required(found, oid, "type");
                ordered.add(t);
                if (t.element() != 0) {
                    work.add(t.element());
                }
                if (t.base() != 0) {
                    work.add(t.base());
                }
                if (columns && t.relation() != 0) {
                    rows.add(t.relation());
                }
                if (t.kind() == 'r' || t.kind() == 'm') {
                    ranges.add(t.oid());
                }
            }
            work.addAll(catalog.columnTypes(rows));
            rows.clear();
            // A range over regclass prints its bounds as regclass does ('[16536,16536]'::regrange).
            work.addAll(catalog.rangeSubtypes(ranges));
            ranges.clear();
        }
        return ordered;
    }

    /** With a table selection, the first object-identifier type among {@code types}: it prints names by OID. */
    private Optional<CatalogReader.Type> objectIdentifierType(List<CatalogReader.Type> types) {
        if (!selection) {
            return Optional.empty();
        }
        return types.stream().filter(t -> t.schema().equals("pg_catalog")
                && OBJECT_IDENTIFIER_TYPES.contains(t.typname())).findFirst();
    }

    /** Reads the functions not read yet in one round trip. */
    private void prefetch(Set<Long> oids) throws SQLException {
        List<Long> missing = oids.stream().filter(oid -> !functions.containsKey(oid)).toList();
        functions.putAll(catalog.functions(missing));
    }

    private CatalogReader.Function function(long oid) throws SQLException {
        CatalogReader.Function f = functions.get(oid);
        if (f == null) {
            functions.putAll(catalog.functions(List.of(oid)));
            f = required(functions, oid, "function");
        }
        return f;
    }

    /**
     * Whether a domain CHECK expression can run other code or change data: a VOLATILE function, a function or
     * operator outside pg_catalog, a denied built-in, or a type the type rules refuse. Judged as if a selection
     * were set, for every login.
     */
    String riskInDomainCheck(References check) throws SQLException {
        Map<Long, CatalogReader.Operator> operators = catalog.operators(check.operators);
        Set<Long> called = new LinkedHashSet<>(check.functions);
        for (long oid : check.operators) {
            CatalogReader.Operator op = required(operators, oid, "operator");
            if (!op.builtIn()) {
                return "operator " + op.qualifiedName();
            }
            called.add(op.function());
        }
        prefetch(called);
        for (long oid : called) {
            CatalogReader.Function f = function(oid);
            if (!f.builtIn() || f.volatility() == 'v' || DeniedBuiltIns.denied(f.name())) {
                return "function " + f.qualifiedName();
            }
        }
        Set<Long> types = new LinkedHashSet<>(check.types);
        check.directConstArguments.forEach(a -> types.add(a.type()));
        CodeRules strict = new CodeRules(catalog, true);
        return strict.types(types).map(Verdict.Refuse::message).orElse(null);
    }

    boolean userFunctionPasses(CatalogReader.Function f) throws SQLException {
        Boolean known = userFunctionVerdicts.get(f.oid());
        if (known != null) {
            return known;
        }
        // A recursive function calls itself: assume it passes while its body is read, so the cycle ends.
        userFunctionVerdicts.put(f.oid(), true);
        boolean passes = userFunctionAttributesPass(f) && signaturesPass(List.of(f.oid())) && defaultsPass(f)
                && bodyPasses(f);
        userFunctionVerdicts.put(f.oid(), passes);
        return passes;
    }

    /**
     * Whether the defaults of {@code f}'s parameters pass as a SQL-standard body does: the planner adds them to a
     * call that leaves them out after the statement's tree is stored, so the statement's check never sees them
     * ({@code DEFAULT query_to_xml(...)} read a hidden table).
     */
    private boolean defaultsPass(CatalogReader.Function f) throws SQLException {
        String defaults = catalog.argumentDefaults(f.oid());
        if (defaults == null) {
            return true;
        }
        References code = QueryTreeWalker.walk(NodeTreeParser.parse(defaults), Set.of());
        return code.relations.isEmpty() && code.nonReading.isEmpty() && calleesPass(code);
    }

    private static boolean userFunctionAttributesPass(CatalogReader.Function f) {
        return f.kind() == 'f' && (f.volatility() == 's' || f.volatility() == 'i') && !f.securityDefiner()
                && !f.hasSettings() && (f.language().equals("sql") || f.language().equals("plpgsql"))
                && !f.ownerIsSuperuser();
    }

    private boolean bodyPasses(CatalogReader.Function f) throws SQLException {
        if (f.sqlBody() != null) {
            References body = QueryTreeWalker.walk(NodeTreeParser.parse(f.sqlBody()), Set.of());
            if (!body.relations.isEmpty() || !body.nonReading.isEmpty()) {
                return false;
            }
            return calleesPass(body);
        }
        StringBody body = StringBody.read(f.source(), f.language());
        if (!body.passes() || catalog.operatorOutsideCatalogNamed(body.operators())) {
            return false;
        }
        // A text names types only by words: any type so named counts ('o::regclass', a domain over regclass), and a
        // row type by its columns ('pg_sequences.data_type%TYPE' is regtype; a relation's name is its row type's).
        if (namesByLookup(withElementsAndBases(catalog.typesNamed(body.words()), true))) {
            return false;
        }
        List<Long> builtIns = new ArrayList<>();
        for (CatalogReader.Function callee : catalog.functionsNamed(body.calledNames())) {
            functions.putIfAbsent(callee.oid(), callee);
            if (!calleePasses(callee) || readsSetting(callee) && body.callsWithComputedFirstArgument(callee.name())) {
                return false;
            }
            if (callee.builtIn()) {
                builtIns.add(callee.oid());
            }
        }
        // Every overload of a called name: the text does not say which one PostgreSQL picks.
        return signaturesPass(builtIns);
    }

    /**
     * With a table selection, whether none of {@code functions} takes or returns an object-identifier type, alone or
     * as a column of a row type: a
     * body's {@code regclassout(o)} prints a name by OID without naming the type, and a user function declared
     * {@code RETURNS regclass} or with such a parameter converts what its body computes. A user callee's own
     * signature is checked when its rule is.
     */
    private boolean signaturesPass(Collection<Long> functions) throws SQLException {
        return !selection || functions.isEmpty()
                || !namesByLookup(withElementsAndBases(catalog.signatureTypes(functions), true));
    }

    /**
     * With a table selection, whether a body's {@code types} include one whose input or output looks objects up by
     * name or OID: the object-identifier types, and aclitem, whose input tells whether a role exists and whose output
     * prints roles' names (the statement's own aclitem from text is refused as well).
     */
    private boolean namesByLookup(List<CatalogReader.Type> types) {
        return selection && (objectIdentifierType(types).isPresent() || types.stream()
                .anyMatch(t -> t.schema().equals("pg_catalog") && t.typname().equals("aclitem")));
    }

    /**
     * Whether {@code f} reads a setting by a name it is given ({@link ReadableSettings#FUNCTIONS}). In a function's
     * body its name must be a constant, the body's owner's choice: a name the caller passes in would read a setting
     * SHOW refuses ({@code current_setting(n)} with {@code 'port'}).
     */
    private static boolean readsSetting(CatalogReader.Function f) {
        return f.builtIn() && ReadableSettings.FUNCTIONS.contains(f.name());
    }

    /** Whether every call in {@code body} of a function that reads a setting by name names a constant. */
    private boolean settingNamesConstant(References body) throws SQLException {
        for (References.Call call : body.calls) {
            if (readsSetting(function(call.function()))
                    && !(call.expression().field("args").orElse(null) instanceof TreeValue.NodeList args
                         && !args.items().isEmpty() && args.items().get(0) instanceof TreeValue.Node first
                         && first.tag().equals("CONST"))) {
                return false;
            }
        }
        for (long oid : body.otherFunctionUses) {
            if (readsSetting(function(oid))) {
                return false;
            }
        }
        return true;
    }

    private boolean calleesPass(References body) throws SQLException {
        Map<Long, CatalogReader.Operator> operators = catalog.operators(body.operators);
        Set<Long> callees = new LinkedHashSet<>(body.functions);
        for (long oid : body.operators) {
            CatalogReader.Operator op = required(operators, oid, "operator");
            if (!op.builtIn()) {
                return false;
            }
            callees.add(op.function());
        }
        prefetch(callees);
        for (long oid : callees) {
            if (!calleePasses(function(oid))) {
                return false;
            }
        }
        if (!settingNamesConstant(body)
                || !signaturesPass(callees.stream().filter(oid -> functions.get(oid).builtIn()).toList())) {
            return false;
        }
        Set<Long> types = new LinkedHashSet<>(body.types);
        body.directConstArguments.forEach(a -> types.add(a.type()));
        body.regUses.forEach(use -> types.add(use.type()));
        return !(selection && body.aclitemFromText) && types(types).isEmpty()
                && !namesByLookup(withElementsAndBases(types, true));
    }

    private boolean calleePasses(CatalogReader.Function callee) throws SQLException {
        if (callee.builtIn()) {
            // A gated built-in is allowed in a statement only where its arguments are proven to name visible
            // objects; nothing proves what a caller passes to a body (format_type(o, NULL) of a hidden row type).
            // The session's schema path is answered with hidden schemas left out only in the statement itself.
            return callee.volatility() != 'v' && !DeniedBuiltIns.denied(callee.name())
                    && !(selection && (GatedFunctions.gated(callee.name())
                                       || SchemaPathCalls.FUNCTIONS.contains(callee.oid())));
        }
        return userFunctionPasses(callee);
    }

    private static <T> T required(Map<Long, T> found, long oid, String what) {
        T row = found.get(oid);
        if (row == null) {
            throw new NodeTreeException(what + " " + oid + " is not in the catalog");
        }
        return row;
    }
}
