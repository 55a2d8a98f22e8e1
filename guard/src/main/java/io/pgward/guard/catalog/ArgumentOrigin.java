package io.pgward.guard.catalog;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the value of an expression in a stored parse tree comes from, as far as it can be proven to name one
 * object: a constant (an OID, or a name PostgreSQL will resolve at run time), or a column of a proven filter
 * subquery ({@link FilterProof}), whose every row is visible. Follows a Var as PostgreSQL's
 * {@code markTargetListOrigins} does: through subquery and CTE target lists, join alias Vars, the grouping step of
 * PostgreSQL 18 and {@code varlevelsup} to outer Queries. Expressions that only ever yield one of their operands are
 * followed to all of them ({@link Each}): a CASE's results, a COALESCE's arguments, a set operation's branches, a
 * recursive CTE's branches (its own columns read by its recursive branch add nothing: {@link Assumed}), a scalar
 * subquery's output, a VALUES list's rows. RelabelType, which never changes a value's bits, is looked through; besides,
 * two narrow shapes are read: a relation column's text through regclass ({@link RelationText}) and pgward's own
 * wrapping of a column in its visible set ({@link Listed}, read before a CASE's results). A function call is a
 * {@link FunctionResult}, which {@link GatedUses} proves only for gated calls; every other expression (another cast
 * through text, arithmetic, an aggregate, a function in FROM other than a gated one) is {@link Unproven}. asyncpg's
 * type introspection reads its types this way.
 */
final class ArgumentOrigin {

    /** What an expression is proven to be. */
    sealed interface Proof {
    }

    /** A constant object identifier (an oid, int4 or reg* Const, as PostgreSQL reads it as an oid). */
    record Constant(long oid) implements Proof {
    }

    /** A constant string a function resolves as a name at run time; its bytes in the server's encoding. */
    record Name(byte[] bytes) implements Proof {
        String text() {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /**
     * A NULL constant of type {@code type}: the function describes nothing, unless it stands for a parameter of that
     * type (the check analyses each {@code $n} as a typed NULL).
     */
    record NullConstant(long type) implements Proof {
    }

    /** A column of a proven filter subquery of {@code filter}'s catalog: its value comes from a visible row. */
    record Column(CatalogFilters.Filter filter, int attnum) implements Proof {
    }

    /**
     * Every value the expression may take: the rows of a VALUES list, the results of a CASE, the arguments of a
     * COALESCE, the branches of a set operation. Proven when every one is; never nested.
     */
    record Each(List<Proof> proofs) implements Proof {

        static Proof of(List<Proof> proofs) {
            List<Proof> flat = new java.util.ArrayList<>();
            for (Proof p : proofs) {
                if (p instanceof Each each) {
                    flat.addAll(each.proofs());
                } else if (!(p instanceof Assumed)) {
                    flat.add(p);
                }
            }
            if (flat.size() > 1 && flat.stream().anyMatch(p -> p instanceof Name)) {
                // A name is resolved when it is checked, and one that names a hidden object must get the answer an
                // absent one gets (GatedUses.absent): among other values it would not.
                return UNPROVEN;
            }
            return flat.isEmpty() ? new Assumed() : flat.size() == 1 ? flat.get(0) : new Each(List.copyOf(flat));
        }
    }

    /**
     * A column of a recursive CTE read by that CTE's own recursive branch while the column is being proven: the
     * values of the previous iteration, which the proof under way covers (by induction on the iteration, the
     * non-recursive branch being the base). Adds no obligation of its own.
     */
    record Assumed() implements Proof {
    }

    /**
     * The result of a function in FROM ({@code pg_partition_ancestors(x) AS a(relid)}) or of a call that returns one
     * value ({@code pg_get_serial_sequence(..)}): proven when the call is a gated one whose result names visible
     * objects once its arguments are proven ({@link GatedUses}).
     */
    record FunctionResult(TreeValue.Node call, QueryScope scope) implements Proof {
    }

    /**
     * {@code x::regclass::text} for a proven {@code x}: regclassout's text for that relation, which qualifies the name
     * whenever it is not the first of its name on search_path, so a function that resolves a relation name with the
     * same search_path in the same statement (pg_get_serial_sequence, regclass(text), has_table_privilege) finds
     * that very relation again.
     */
    record RelationText(Proof relation) implements Proof {
    }

    /**
     * {@code CASE WHEN x = ANY ('{oids}'::oid[]) THEN x END} for one column reference {@code x}: the value of
     * {@code x} where it is one of {@code oids}, NULL elsewhere. pgward writes it around a gated call's argument
     * whose rows include objects the call must not describe ({@link CatalogRewrite}); {@code x} is evaluated
     * twice, so only a plain column reference, the same in both places, is read so.
     */
    record Listed(Proof column, java.util.Set<Long> oids) implements Proof {
    }

    /**
     * A column of a proven filter subquery of a system view ({@link ViewFilterProof}): its value comes from a row
     * that the view's keys admit. What the column proves is the keys' business ({@link GatedUses}).
     */
    record ViewColumn(ViewFilters.Filter filter, int attnum) implements Proof {
    }

    /**
     * The text {@link QualifiedNames} reads: a relation's schema and name, each quoted as an identifier and joined
     * with a dot, both taken from one and the same row of a filtered view ({@code schemaAttnum} and
     * {@code nameAttnum} are columns of the view). A function that reads a relation name from text finds exactly
     * the relation of that (schema, name), whatever the search_path.
     */
    record QualifiedName(ViewFilters.Filter filter, int schemaAttnum, int nameAttnum) implements Proof {
    }

    /**
     * {@code current_user} (also spelled {@code current_role} and {@code user}): the role the statement runs as,
     * which is the login's own. {@code session_user} is not read so: it need not be the role in effect.
     */
    record CurrentRole() implements Proof {
    }

    /**
     * The elements of an array, each converted by a RelabelType alone ({@code proargtypes::regtype[]}): the value of
     * each element is the element of {@code array} at that place.
     */
    record Elements(Proof array) implements Proof {
    }

    record Unproven() implements Proof {
    }

    static final Proof UNPROVEN = new Unproven();

    /** RTEKind in parsenodes.h, the same in 14 to 18 (18 adds RTE_GROUP). */
    private static final long RTE_RELATION = 0;
    private static final long RTE_SUBQUERY = 1;
    private static final long RTE_JOIN = 2;
    private static final long RTE_FUNCTION = 3;
    private static final long RTE_VALUES = 5;
    private static final long RTE_CTE = 6;
    private static final long RTE_GROUP = 9;
    /** Deeper than any tree pgward reads whole; a bound against a cycle the tree format cannot express anyway. */
    private static final int MAX_DEPTH = 256;
    private static final long OID = 26;
    /** SubLinkType EXPR_SUBLINK (primnodes.h): a scalar subquery, whose value is its one row's first column. */
    private static final long EXPR_SUBLINK = 4;
    private static final long INT4 = 23;
    private static final long NAME = 19;
    private static final long TEXT = 25;
    private static final long VARCHAR = 1043;
    private static final long REGCLASS = 2205;
    private static final long OID_ARRAY = 1028;
    /** oideq, pg_operator.dat. */
    private static final long OID_EQUALS = 607;

    /** name_text, the cast from name to text: the same characters (pg_proc.dat). */
    private static final long NAME_TO_TEXT = 406;
    /** current_user(), which PostgreSQL 16 and later may write for the SQL keyword (pg_proc.dat). */
    private static final long CURRENT_USER_FUNCTION = 745;
    /** SQLValueFunctionOp (primnodes.h, 14 to 18): SVFOP_CURRENT_ROLE, SVFOP_CURRENT_USER, SVFOP_USER. */
    private static final java.util.Set<Long> CURRENT_ROLE_OPS = java.util.Set.of(9L, 10L, 11L);
    private static final long NAME_TYPE = 19;

    private final CatalogFilters filters;
    private final ViewFilters views;
    private final Map<TreeValue.Node, List<TreeValue.Node>> proven = new IdentityHashMap<>();
    private final Map<TreeValue.Node, List<TreeValue.Node>> provenViews = new IdentityHashMap<>();
    /** The columns of recursive CTEs being proven, by CTE node (identity) and attno. */
    private final Map<TreeValue.Node, java.util.Set<Long>> assumed = new IdentityHashMap<>();

    private final boolean quietStatement;

    /**
     * @param quietStatement {@link QuietQuals} proved that no condition of the statement can observe a hidden row,
     *                       so an unfenced filter subquery is a filter too (as in {@link FilterProof})
     */
    ArgumentOrigin(CatalogFilters filters, boolean quietStatement) {
        this(filters, ViewFilters.NONE, quietStatement);
    }

    /** @param views the login's filtered system views, whose proven filter subqueries' columns are read too */
    ArgumentOrigin(CatalogFilters filters, ViewFilters views, boolean quietStatement) {
        this.filters = filters;
        this.views = views;
        this.quietStatement = quietStatement;
    }

    /** What {@code expression}, found in {@code scope}'s Query, is proven to be. */
    Proof of(TreeValue expression, QueryScope scope) {
        try {
            return of(expression, scope, 0);
        } catch (NodeTreeException | ClassCastException | NumberFormatException e) {
            return UNPROVEN;
        }
    }

    private Proof of(TreeValue expression, QueryScope scope, int depth) {
        if (depth > MAX_DEPTH || scope == null || !(expression instanceof TreeValue.Node node)) {
            return UNPROVEN;
        }
        return switch (node.tag()) {
            case "CONST" -> constant(node);
            case "RELABELTYPE" -> of(node.field("arg").orElse(null), scope, depth + 1);
            case "VAR" -> var(node, scope, depth);
            case "COERCEVIAIO" -> relationText(node, scope, depth);
            case "CASE", "CASEEXPR" -> {
                Proof listed = listed(node, scope, depth);
                yield listed instanceof Unproven ? caseResults(node, scope, depth) : listed;
            }
            case "COALESCE", "COALESCEEXPR" -> each(items(node, "args"), scope, depth);
            case "SUBLINK" -> node.number("subLinkType") == EXPR_SUBLINK
                    ? output(node(node.field("subselect").orElse(null)), 1, scope, depth) : UNPROVEN;
            case "SQLVALUEFUNCTION" -> CURRENT_ROLE_OPS.contains(node.number("op"))
                    && node.number("type") == NAME_TYPE ? new CurrentRole() : UNPROVEN;
            case "ARRAYCOERCEEXPR" -> elements(node, scope, depth);
            case "FUNCEXPR" -> function(node, scope, depth);
            case "OPEXPR" -> qualifiedName(node, scope, depth);
            default -> UNPROVEN;
        };
    }

    private Proof function(TreeValue.Node call, QueryScope scope, int depth) {
        if ("true".equals(call.scalar("funcretset"))) {
            return UNPROVEN;
        }
        List<TreeValue> args = items(call, "args");
        long id = call.number("funcid");
        if (id == NAME_TO_TEXT && args.size() == 1) {
            return of(args.get(0), scope, depth + 1);
        }
        if (id == CURRENT_USER_FUNCTION && args.isEmpty()) {
            return new CurrentRole();
        }
        Proof name = qualifiedName(call, scope, depth);
        return name instanceof Unproven ? new FunctionResult(call, scope) : name;
    }

    /** A quoted qualified name built from one row's (schema, name) columns ({@link QualifiedNames}). */
    private Proof qualifiedName(TreeValue.Node expression, QueryScope scope, int depth) {
        QualifiedNames.Parts parts = QualifiedNames.parts(expression);
        return parts == null ? UNPROVEN : samePair(parts.schema(), parts.name(), scope, depth + 1);
    }

    /**
     * Two expressions that read columns of one and the same row of a filtered view: two Vars of the same range table
     * entry (the same row whenever the expression is evaluated), followed together through subqueries, CTEs, joins
     * and set operations (whose every row is one row of one branch). Anything else is unproven.
     */
    private Proof samePair(TreeValue schema, TreeValue name, QueryScope scope, int depth) {
        TreeValue.Node a = node(stripRelabel(schema));
        TreeValue.Node b = node(stripRelabel(name));
        if (depth > MAX_DEPTH || scope == null || a == null || b == null || !a.tag().equals("VAR")
                || !b.tag().equals("VAR") || a.number("varno") != b.number("varno")
                || a.number("varlevelsup") != b.number("varlevelsup")) {
            return UNPROVEN;
        }
        QueryScope at = scope.up(a.number("varlevelsup"));
        long attA = a.number("varattno");
        long attB = b.number("varattno");
        TreeValue.Node rte = at == null ? null : item(at.query(), "rtable", a.number("varno"));
        if (rte == null || attA <= 0 || attB <= 0) {
            return UNPROVEN;
        }
        long kind = rte.number("rtekind");
        if (kind == RTE_RELATION) {
            ViewFilters.Filter view = views.byRelid(rte.number("relid"));
            return view != null && provenViews(at.query()).contains(rte)
                    ? new QualifiedName(view, (int) attA, (int) attB) : UNPROVEN;
        }
        if (kind == RTE_SUBQUERY) {
            return pairedOutput(node(rte.field("subquery").orElse(null)), attA, attB, at, depth);
        }
        if (kind == RTE_JOIN) {
            return samePair(entry(rte, "joinaliasvars", attA), entry(rte, "joinaliasvars", attB), at, depth + 1);
        }
        if (kind == RTE_CTE) {
            QueryScope owner = at.up(rte.number("ctelevelsup"));
            TreeValue.Node cte = owner == null ? null : cte(owner.query(), rte.scalar("ctename"));
            if (cte == null || "true".equals(cte.scalar("cterecursive"))) {
                return UNPROVEN;
            }
            return pairedOutput(node(cte.field("ctequery").orElse(null)), attA, attB, owner, depth);
        }
        return UNPROVEN;
    }

    /** Output columns {@code attA} and {@code attB} of one row of {@code query}: see {@link #samePair}. */
    private Proof pairedOutput(TreeValue.Node query, long attA, long attB, QueryScope outer, int depth) {
        if (query == null || !query.tag().equals("QUERY") || depth > MAX_DEPTH) {
            return UNPROVEN;
        }
        TreeValue operations = query.field("setOperations").orElse(TreeValue.Null.INSTANCE);
        if (!(operations instanceof TreeValue.Null)) {
            List<TreeValue.Node> leaves = new java.util.ArrayList<>();
            if (!leaves(node(operations), query, leaves, depth)) {
                return UNPROVEN;
            }
            List<Proof> branches = new java.util.ArrayList<>();
            for (TreeValue.Node leaf : leaves) {
                Proof p = pairedOutput(node(leaf.field("subquery").orElse(null)), attA, attB, outer.enter(query),
                        depth + 1);
                if (p instanceof Unproven) {
                    return UNPROVEN;
                }
                branches.add(p);
            }
            return Each.of(branches);
        }
        TreeValue.Node first = targetEntry(query, attA);
        TreeValue.Node second = targetEntry(query, attB);
        if (first == null || second == null) {
            return UNPROVEN;
        }
        return samePair(first.field("expr").orElse(null), second.field("expr").orElse(null), outer.enter(query),
                depth + 1);
    }

    /** The subquery range table entries of a set operation's branches; false when one is not a subquery. */
    private static boolean leaves(TreeValue.Node operation, TreeValue.Node query, List<TreeValue.Node> into,
                                  int depth) {
        if (operation == null || depth > MAX_DEPTH) {
            return false;
        }
        if (operation.tag().equals("RANGETBLREF")) {
            TreeValue.Node rte = item(query, "rtable", operation.number("rtindex"));
            if (rte == null || rte.number("rtekind") != RTE_SUBQUERY) {
                return false;
            }
            into.add(rte);
            return true;
        }
        return operation.tag().equals("SETOPERATIONSTMT")
                && leaves(node(operation.field("larg").orElse(null)), query, into, depth + 1)
                && leaves(node(operation.field("rarg").orElse(null)), query, into, depth + 1);
    }

    private static TreeValue.Node targetEntry(TreeValue.Node query, long resno) {
        for (TreeValue item : items(query, "targetList")) {
            TreeValue.Node entry = node(item);
            if (entry != null && entry.number("resno") == resno && !"true".equals(entry.scalar("resjunk"))) {
                return entry;
            }
        }
        return null;
    }

    /** Looks through RelabelTypes and casts from name to text, which keep a value's characters. */
    private static TreeValue stripRelabel(TreeValue value) {
        TreeValue at = value;
        for (int i = 0; i < MAX_DEPTH && at instanceof TreeValue.Node n; i++) {
            if (n.tag().equals("RELABELTYPE")) {
                at = n.field("arg").orElse(null);
            } else if (n.tag().equals("FUNCEXPR") && n.number("funcid") == NAME_TO_TEXT
                    && items(n, "args").size() == 1) {
                at = items(n, "args").get(0);
            } else {
                break;
            }
        }
        return at;
    }

    /** A text constant's value as a {@link Name}, or what else {@link #constant} makes of it. */
    static Proof textConstant(TreeValue.Node constant) {
        return constant(constant);
    }

    /**
     * An array coercion whose per-element step is a RelabelType of the element alone ({@code oid[]} or
     * {@code oidvector} to {@code regtype[]}): each element keeps its value.
     */
    private Proof elements(TreeValue.Node coercion, QueryScope scope, int depth) {
        TreeValue.Node step = node(coercion.field("elemexpr").orElse(null));
        TreeValue.Node input = step == null ? null : node(step.field("arg").orElse(null));
        if (step == null || !step.tag().equals("RELABELTYPE") || input == null
                || !input.tag().equals("CASETESTEXPR")
                || ObjectKind.regArrayElement(coercion.number("resulttype")) != step.number("resulttype")) {
            return UNPROVEN;
        }
        Proof array = of(coercion.field("arg").orElse(null), scope, depth + 1);
        return array instanceof Unproven ? UNPROVEN : new Elements(array);
    }

    /**
     * {@code x::regclass::text}: an I/O conversion to text whose input is a RelabelType to regclass over a proven
     * column, or a regclass constant.
     */
    private Proof relationText(TreeValue.Node coercion, QueryScope scope, int depth) {
        TreeValue.Node input = node(coercion.field("arg").orElse(null));
        if (coercion.number("resulttype") != TEXT || input == null) {
            return UNPROVEN;
        }
        if (input.tag().equals("CONST") && input.number("consttype") == REGCLASS) {
            Proof constant = of(input, scope, depth + 1);
            return constant instanceof Constant ? new RelationText(constant) : UNPROVEN;
        }
        if (!input.tag().equals("RELABELTYPE") || input.number("resulttype") != REGCLASS) {
            return UNPROVEN;
        }
        Proof relation = of(input.field("arg").orElse(null), scope, depth + 1);
        return relation instanceof Column ? new RelationText(relation) : UNPROVEN;
    }

    /** pgward's wrapping {@code CASE WHEN x = ANY ('{...}'::oid[]) THEN x END}, nothing more or less. */
    private Proof listed(TreeValue.Node caseExpr, QueryScope scope, int depth) {
        List<TreeValue> whens = items(caseExpr, "args");
        TreeValue.Node otherwise = node(caseExpr.field("defresult").orElse(null));
        TreeValue.Node when = whens.size() == 1 ? node(whens.get(0)) : null;
        if (!(caseExpr.field("arg").orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Null)
                || caseExpr.number("casetype") != OID || when == null || otherwise == null
                || !otherwise.tag().equals("CONST") || !"true".equals(otherwise.scalar("constisnull"))) {
            return UNPROVEN;
        }
        TreeValue.Node test = node(when.field("expr").orElse(null));
        TreeValue.Node result = node(when.field("result").orElse(null));
        if (test == null || result == null || !test.tag().equals("SCALARARRAYOPEXPR")
                || !"true".equals(test.scalar("useOr")) || test.number("opno") != OID_EQUALS) {
            return UNPROVEN;
        }
        List<TreeValue> operands = items(test, "args");
        TreeValue.Node tested = operands.size() == 2 ? node(operands.get(0)) : null;
        TreeValue.Node array = operands.size() == 2 ? node(operands.get(1)) : null;
        if (tested == null || array == null || !sameColumn(tested, result) || !array.tag().equals("CONST")
                || array.number("consttype") != OID_ARRAY || "true".equals(array.scalar("constisnull"))
                || !(array.field("constvalue").orElse(null) instanceof TreeValue.Datum datum)) {
            return UNPROVEN;
        }
        java.util.Set<Long> oids = OidArray.elements(datum);
        Proof column = of(result, scope, depth + 1);
        return oids != null ? new Listed(column, oids) : UNPROVEN;
    }

    /**
     * Two references to the same column of type oid, or the same column relabeled to oid ({@code (i)::oid} of an
     * integer): the same value, evaluated twice. A Var reads its row's value, which does not change between the two
     * reads; PostgreSQL does not pull a subquery up into the query when its output has volatile functions.
     */
    private static boolean sameColumn(TreeValue.Node a, TreeValue.Node b) {
        boolean relabeled = a.tag().equals("RELABELTYPE");
        if (relabeled != b.tag().equals("RELABELTYPE")) {
            return false;
        }
        TreeValue.Node x = a;
        TreeValue.Node y = b;
        if (relabeled) {
            if (a.number("resulttype") != OID || b.number("resulttype") != OID) {
                return false;
            }
            x = node(a.field("arg").orElse(null));
            y = node(b.field("arg").orElse(null));
            if (x == null || y == null) {
                return false;
            }
        }
        if (!x.tag().equals("VAR") || !y.tag().equals("VAR")) {
            return false;
        }
        for (String field : List.of("varno", "varattno", "varlevelsup", "vartype", "vartypmod")) {
            if (!java.util.Objects.equals(x.scalar(field), y.scalar(field))) {
                return false;
            }
        }
        return relabeled || x.number("vartype") == OID;
    }

    /** A CASE yields one of its results (parse analysis coerced each to the CASE's type, as nodes of their own). */
    private Proof caseResults(TreeValue.Node caseExpr, QueryScope scope, int depth) {
        List<TreeValue> results = new java.util.ArrayList<>();
        for (TreeValue when : items(caseExpr, "args")) {
            TreeValue.Node w = node(when);
            if (w == null || !w.field("result").isPresent()) {
                return UNPROVEN;
            }
            results.add(w.field("result").get());
        }
        results.add(caseExpr.field("defresult").orElse(null));
        return each(results, scope, depth);
    }

    private Proof each(List<TreeValue> values, QueryScope scope, int depth) {
        List<Proof> proofs = new java.util.ArrayList<>();
        for (TreeValue value : values) {
            Proof p = of(value, scope, depth + 1);
            if (p instanceof Unproven) {
                return UNPROVEN;
            }
            proofs.add(p);
        }
        return proofs.isEmpty() ? UNPROVEN : Each.of(proofs);
    }

    /**
     * The value of a non-null constant of a four-byte type passed by value (an OID, an int4), as an unsigned number;
     * -1 when it is NULL or not such a constant.
     */
    static long fourBytes(TreeValue.Node constant) {
        if ("true".equals(constant.scalar("constisnull")) || !"true".equals(constant.scalar("constbyval"))
                || !(constant.field("constvalue").orElse(null) instanceof TreeValue.Datum datum)
                || datum.length() != 4 || datum.bytes().length < 4) {
            return -1;
        }
        byte[] b = datum.bytes();
        return (b[0] & 0xFFL) | (b[1] & 0xFFL) << 8 | (b[2] & 0xFFL) << 16 | (b[3] & 0xFFL) << 24;
    }

    private static Proof constant(TreeValue.Node constant) {
        if ("true".equals(constant.scalar("constisnull"))) {
            return new NullConstant(constant.number("consttype"));
        }
        long type = constant.number("consttype");
        if (!(constant.field("constvalue").orElse(null) instanceof TreeValue.Datum datum)) {
            return UNPROVEN;
        }
        byte[] b = datum.bytes();
        if (type == OID || type == INT4 || ObjectKind.ofRegType(type) != null) {
            long oid = fourBytes(constant);
            return oid < 0 ? UNPROVEN : new Constant(oid);
        }
        if (ObjectKind.regArrayElement(type) != 0) {
            return oidArray(b, datum.length(), ObjectKind.regArrayElement(type));
        }
        if (type == TEXT || type == VARCHAR) {
            return varlena(b, datum.length());
        }
        if (type == NAME) {
            int end = 0;
            while (end < b.length && b[end] != 0) {
                end++;
            }
            return new Name(java.util.Arrays.copyOf(b, end));
        }
        return UNPROVEN;
    }

    /**
     * A one-dimensional array of 4-byte object identifiers without NULLs (array.h: int32 vl_len_, int32 ndim, int32
     * dataoffset, Oid elemtype, int dims[ndim], int lbound[ndim], the elements), each element a {@link Constant};
     * any other layout is unproven.
     */
    private static Proof oidArray(byte[] b, int length, long elementType) {
        if (length < 16 || b.length < length || (uint32(b, 0) & 3) != 0 || uint32(b, 0) >>> 2 != length
                || uint32(b, 8) != 0 || uint32(b, 12) != elementType) {
            return UNPROVEN;
        }
        long ndim = uint32(b, 4);
        if (ndim == 0) {
            return length == 16 ? new Each(List.of()) : UNPROVEN;
        }
        if (ndim != 1 || length < 24) {
            return UNPROVEN;
        }
        long count = uint32(b, 16);
        if (count > (length - 24) / 4 || 24 + count * 4 != length) {
            return UNPROVEN;
        }
        List<Proof> elements = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            elements.add(new Constant(uint32(b, 24 + 4 * i)));
        }
        return new Each(List.copyOf(elements));
    }

    private static long uint32(byte[] b, int at) {
        return (b[at] & 0xFFL) | (b[at + 1] & 0xFFL) << 8 | (b[at + 2] & 0xFFL) << 16 | (b[at + 3] & 0xFFL) << 24;
    }

    /** A varlena datum with a 4-byte or 1-byte header (postgres.h); compressed or external ones are not read. */
    private static Proof varlena(byte[] b, int length) {
        if (length < 1 || b.length < length) {
            return UNPROVEN;
        }
        if ((b[0] & 1) == 1) {
            int total = (b[0] & 0xFF) >>> 1;
            return total >= 1 && total <= length ? new Name(java.util.Arrays.copyOfRange(b, 1, total)) : UNPROVEN;
        }
        if ((b[0] & 3) != 0 || length < 4) {
            return UNPROVEN;
        }
        long total = ((b[0] & 0xFFL) | (b[1] & 0xFFL) << 8 | (b[2] & 0xFFL) << 16 | (b[3] & 0xFFL) << 24) >>> 2;
        return total >= 4 && total <= length ? new Name(java.util.Arrays.copyOfRange(b, 4, (int) total)) : UNPROVEN;
    }

    private Proof var(TreeValue.Node var, QueryScope scope, int depth) {
        QueryScope at = scope.up(var.number("varlevelsup"));
        long attno = var.number("varattno");
        if (at == null || attno <= 0) {
            return UNPROVEN;
        }
        TreeValue.Node rte = item(at.query(), "rtable", var.number("varno"));
        if (rte == null) {
            return UNPROVEN;
        }
        long kind = rte.number("rtekind");
        if (kind == RTE_RELATION) {
            if (provenFilters(at.query()).contains(rte)) {
                return new Column(filters.byRelid(rte.number("relid")), (int) attno);
            }
            ViewFilters.Filter view = views.byRelid(rte.number("relid"));
            return view != null && provenViews(at.query()).contains(rte) ? new ViewColumn(view, (int) attno)
                    : UNPROVEN;
        }
        if (kind == RTE_SUBQUERY) {
            return output(node(rte.field("subquery").orElse(null)), attno, at, depth);
        }
        if (kind == RTE_JOIN) {
            return of(entry(rte, "joinaliasvars", attno), at, depth + 1);
        }
        if (kind == RTE_VALUES) {
            List<Proof> rows = new java.util.ArrayList<>();
            for (TreeValue row : items(rte, "values_lists")) {
                if (!(row instanceof TreeValue.NodeList values) || attno > values.items().size()) {
                    return UNPROVEN;
                }
                rows.add(of(values.items().get((int) attno - 1), at, depth + 1));
            }
            return rows.isEmpty() ? UNPROVEN : Each.of(rows);
        }
        if (kind == RTE_FUNCTION) {
            return functionResult(rte, attno, at);
        }
        if (kind == RTE_GROUP) {
            return of(entry(rte, "groupexprs", attno), at, depth + 1);
        }
        if (kind == RTE_CTE) {
            QueryScope owner = at.up(rte.number("ctelevelsup"));
            TreeValue.Node cte = owner == null ? null : cte(owner.query(), rte.scalar("ctename"));
            if (cte == null) {
                return UNPROVEN;
            }
            if (!"true".equals(cte.scalar("cterecursive"))) {
                return output(node(cte.field("ctequery").orElse(null)), attno, owner, depth);
            }
            java.util.Set<Long> underWay = assumed.computeIfAbsent(cte, c -> new java.util.HashSet<>());
            if (underWay.contains(attno)) {
                return new Assumed();
            }
            underWay.add(attno);
            try {
                return output(node(cte.field("ctequery").orElse(null)), attno, owner, depth);
            } finally {
                underWay.remove(attno);
            }
        }
        return UNPROVEN;
    }

    /**
     * Output column {@code attno} of {@code query}, a Query nested in {@code outer}; of a set operation, the column of
     * every branch (UNION, INTERSECT and EXCEPT only ever return rows of their branches).
     */
    private Proof output(TreeValue.Node query, long attno, QueryScope outer, int depth) {
        if (query == null || !query.tag().equals("QUERY")) {
            return UNPROVEN;
        }
        TreeValue operations = query.field("setOperations").orElse(TreeValue.Null.INSTANCE);
        if (!(operations instanceof TreeValue.Null)) {
            List<Proof> branches = new java.util.ArrayList<>();
            if (!branches(node(operations), query, attno, outer, depth, branches)) {
                return UNPROVEN;
            }
            return Each.of(branches);
        }
        for (TreeValue item : items(query, "targetList")) {
            TreeValue.Node entry = node(item);
            if (entry != null && entry.number("resno") == attno && !"true".equals(entry.scalar("resjunk"))) {
                Proof withheld = withheldColumn(query, entry);
                return withheld != null ? withheld
                        : of(entry.field("expr").orElse(null), outer.enter(query), depth + 1);
            }
        }
        return UNPROVEN;
    }

    /** Collects column {@code attno} of each branch under a set operation node; false when one is not a subquery. */
    private boolean branches(TreeValue.Node operation, TreeValue.Node query, long attno, QueryScope outer, int depth,
                             List<Proof> into) {
        if (operation == null || depth > MAX_DEPTH) {
            return false;
        }
        if (operation.tag().equals("RANGETBLREF")) {
            TreeValue.Node rte = item(query, "rtable", operation.number("rtindex"));
            if (rte == null || rte.number("rtekind") != RTE_SUBQUERY) {
                return false;
            }
            Proof p = output(node(rte.field("subquery").orElse(null)), attno, outer.enter(query), depth + 1);
            if (p instanceof Unproven) {
                return false;
            }
            into.add(p);
            return true;
        }
        if (!operation.tag().equals("SETOPERATIONSTMT")) {
            return false;
        }
        return branches(node(operation.field("larg").orElse(null)), query, attno, outer, depth + 1, into)
                && branches(node(operation.field("rarg").orElse(null)), query, attno, outer, depth + 1, into);
    }

    /**
     * Column {@code attno} of a function in FROM: its first column when it is one function returning one value (a
     * later column is WITH ORDINALITY's number, or a column of a row, which names nothing pgward can prove).
     */
    private static Proof functionResult(TreeValue.Node rte, long attno, QueryScope at) {
        List<TreeValue> functions = items(rte, "functions");
        TreeValue.Node function = functions.size() == 1 ? node(functions.get(0)) : null;
        if (function == null || attno != 1 || function.number("funccolcount") != 1) {
            return UNPROVEN;
        }
        TreeValue.Node call = node(function.field("funcexpr").orElse(null));
        return call != null && call.tag().equals("FUNCEXPR") ? new FunctionResult(call, at) : UNPROVEN;
    }

    /**
     * A withheld column ({@code CoveredCatalog.Withheld}) of a proven filter subquery: {@code query} is the filter,
     * so the entry is pgward's own mask, which yields the catalog's value where it may be shown and NULL elsewhere.
     * Null when {@code query} is not a proven filter or the entry is not a withheld column.
     */
    private Proof withheldColumn(TreeValue.Node query, TreeValue.Node entry) {
        List<TreeValue> rtable = items(query, "rtable");
        TreeValue.Node rte = rtable.size() == 1 ? node(rtable.get(0)) : null;
        if (rte == null || rte.number("rtekind") != RTE_RELATION || !provenFilters(query).contains(rte)) {
            return null;
        }
        CatalogFilters.Filter filter = filters.byRelid(rte.number("relid"));
        String name = entry.scalar("resname");
        if (filter == null || name == null || !filter.catalog().withheldColumns().containsKey(name)) {
            return null;
        }
        return filter.columns().stream().filter(c -> c.name().equals(name)).findFirst()
                .<Proof>map(c -> new Column(filter, c.attnum())).orElse(null);
    }

    private List<TreeValue.Node> provenViews(TreeValue.Node query) {
        return provenViews.computeIfAbsent(query, q -> ViewFilterProof.proven(q, views));
    }

    private List<TreeValue.Node> provenFilters(TreeValue.Node query) {
        return proven.computeIfAbsent(query, q -> FilterProof.proven(q, filters, quietStatement));
    }

    private static TreeValue.Node cte(TreeValue.Node query, String name) {
        if (name == null) {
            return null;
        }
        for (TreeValue item : items(query, "cteList")) {
            TreeValue.Node cte = node(item);
            if (cte != null && name.equals(cte.scalar("ctename"))) {
                return cte;
            }
        }
        return null;
    }

    /** Item {@code oneBased} of a list field, or null. */
    private static TreeValue.Node item(TreeValue.Node node, String field, long oneBased) {
        return node(entry(node, field, oneBased));
    }

    private static TreeValue entry(TreeValue.Node node, String field, long oneBased) {
        List<TreeValue> list = items(node, field);
        return oneBased >= 1 && oneBased <= list.size() ? list.get((int) oneBased - 1) : null;
    }

    private static List<TreeValue> items(TreeValue.Node node, String field) {
        return node.field(field).orElse(null) instanceof TreeValue.NodeList list ? list.items() : List.of();
    }

    private static TreeValue.Node node(TreeValue value) {
        return value instanceof TreeValue.Node n ? n : null;
    }
}
