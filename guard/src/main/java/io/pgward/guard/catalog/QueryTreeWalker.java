package io.pgward.guard.catalog;

import io.pgward.guard.catalog.NodeTags.Ref;
import java.util.Map;
import java.util.Set;

/**
 * Collects the {@link References} of a stored parse tree (a Query, a list of them, or an expression), at any depth:
 * subqueries, CTEs, sublinks, LATERAL, set operations, function RTEs, VALUES lists, window and sort clauses.
 *
 * <p>Every field of every node is visited, whatever its name, so a nested tree cannot be skipped. OID fields are
 * collected from {@link NodeTags}' table; a numeric field the table does not list but whose name reads as an
 * object reference ({@code …typid}, {@code …typeid}, {@code …funcid}, {@code …fnoid}, {@code …opno},
 * {@code relid}) is collected as well, so a field added by a later PostgreSQL release errs on the side of a
 * refusal. Unknown node tags throw {@link NodeTreeException}.
 */
final class QueryTreeWalker {

    /** PostgreSQL's regconfig and regdictionary type OIDs (pg_type.dat; fixed since 8.3). */
    static final long REGCONFIG = 3734;
    static final long REGDICTIONARY = 3769;
    /**
     * pg_catalog.pg_typeof(any), whose result is a regtype (a pinned OID, the same in every release). Its result
     * names the type of a value the statement already has, whose type the rules have seen, so that regtype is not
     * a use of an object-identifier type: it resolves no name the statement gives and reaches no other object.
     */
    static final long PG_TYPEOF = 1619;
    /** The nodes whose value an object-identifier type may be proven for, and the field holding their type. */
    private static final Map<String, String> REG_USE_FIELDS = Map.of("CONST", "consttype", "VAR", "vartype",
            "RELABELTYPE", "resulttype", "FUNCEXPR", "funcresulttype");
    /** RTEKind RTE_VALUES and RTE_CTE in parsenodes.h; ParamKind PARAM_SUBLINK in primnodes.h. */
    private static final long RTE_VALUES = 5;
    private static final long RTE_CTE = 6;
    private static final long PARAM_SUBLINK = 2;
    /** CmdType CMD_SELECT in nodes.h. */
    private static final long CMD_SELECT = 1;

    private final References refs = new References();
    /** The element steps and the array coercions {@link #relabelledElements} recorded, by identity. */
    private final Set<TreeValue.Node> elementSteps = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    private final Set<TreeValue.Node> arrayUses = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    private final Set<Long> ignoredRelations;
    private final CatalogFilters filters;
    private final ViewFilters views;
    /** QuietQuals proved the statement's conditions cannot observe a hidden row: unfenced filters are proven too. */
    private final boolean quietStatement;
    /** Range table and permission entries of proven filter subqueries (FilterProof); their relation is filtered. */
    private final Set<TreeValue.Node> proven = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    /** regconfig / regdictionary Const nodes recorded as direct arguments; their type is not a plain use. */
    private final Set<TreeValue.Node> directConsts = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    /** The Queries around the node being visited, innermost first; null outside every Query. */
    private QueryScope scope;

    private QueryTreeWalker(Set<Long> ignoredRelations, CatalogFilters filters, ViewFilters views,
                            boolean quietStatement) {
        this.ignoredRelations = ignoredRelations;
        this.filters = filters;
        this.views = views;
        this.quietStatement = quietStatement;
    }

    /**
     * @param ignoredRelations relations not to count as read: a view's own OID, which PostgreSQL 14 and 15 keep in
     *                         the range table of the view's query as its OLD and NEW entries
     */
    static References walk(TreeValue tree, Set<Long> ignoredRelations) {
        return walk(tree, ignoredRelations, CatalogFilters.NONE);
    }

    /**
     * As {@link #walk(TreeValue, Set)}, and a covered catalog read by a Query that {@link FilterProof} proves to be
     * this login's filter subquery goes to {@link References#filteredRelations}, not {@link References#relations}.
     * Everything else in that Query is walked as usual.
     */
    static References walk(TreeValue tree, Set<Long> ignoredRelations, CatalogFilters filters) {
        return walk(tree, ignoredRelations, filters, ViewFilters.NONE, false);
    }

    /**
     * As {@link #walk(TreeValue, Set, CatalogFilters)}, and a filtered system view read by a Query that
     * {@link ViewFilterProof} proves to be this login's filter subquery goes to {@link References#filteredRelations}
     * as well.
     */
    static References walk(TreeValue tree, Set<Long> ignoredRelations, CatalogFilters filters, ViewFilters views) {
        return walk(tree, ignoredRelations, filters, views, false);
    }

    /**
     * As {@link #walk(TreeValue, Set, CatalogFilters)}; with {@code quietStatement}, which only a proof of
     * {@link QuietQuals} on this tree may give, a filter subquery without the fence is proven as well.
     */
    static References walk(TreeValue tree, Set<Long> ignoredRelations, CatalogFilters filters,
                           boolean quietStatement) {
        return walk(tree, ignoredRelations, filters, ViewFilters.NONE, quietStatement);
    }

    static References walk(TreeValue tree, Set<Long> ignoredRelations, CatalogFilters filters, ViewFilters views,
                           boolean quietStatement) {
        QueryTreeWalker w = new QueryTreeWalker(ignoredRelations, filters, views, quietStatement);
        w.visit(tree);
        return w.refs;
    }

    private void visit(TreeValue value) {
        switch (value) {
            case TreeValue.Node node -> node(node);
            case TreeValue.NodeList list -> list.items().forEach(this::visit);
            case TreeValue.Null n -> { }
            case TreeValue.Scalar s -> { }
            case TreeValue.Text t -> { }
            case TreeValue.Datum d -> { }
            case TreeValue.NumberList l -> { }
        }
    }

    private void node(TreeValue.Node node) {
        Map<String, Ref> oidFields = NodeTags.fields(node.tag());
        QueryScope outer = scope;
        if (node.tag().equals("QUERY")) {
            query(node);
            proven.addAll(FilterProof.proven(node, filters, quietStatement));
            proven.addAll(ViewFilterProof.proven(node, views));
            scope = outer == null ? new QueryScope(node, null) : outer.enter(node);
        }
        if (node.tag().equals("FUNCEXPR")) {
            directConstArguments(node);
        }
        if (node.tag().equals("SQLVALUEFUNCTION") && node.number("op") == SchemaPathCalls.SVFOP_CURRENT_SCHEMA) {
            // The keyword current_schema runs current_schema()'s code without naming the function: it is a call of
            // it to the rules, which a table selection holds it to.
            refs.calls.add(new References.Call(SchemaPathCalls.CURRENT_SCHEMA, node, scope));
            refs.functions.add(SchemaPathCalls.CURRENT_SCHEMA);
        }
        if (node.tag().equals("ARRAYCOERCEEXPR") && !filters.isEmpty()) {
            relabelledElements(node);
        }
        if (node.tag().equals("COERCEVIAIO") && AclItems.isAclitem(node.number("resulttype"))
                || readsAclitemFromText(node)) {
            refs.aclitemFromText = true;
        }
        if (node.tag().equals("CONST")) {
            long type = node.number("consttype");
            if (type != 0) {
                refs.constTypes.add(type);
            }
            if (GatedUses.nullText(node)) {
                refs.nullTexts.add(node);
            }
        }
        for (Map.Entry<String, TreeValue> field : node.fields().entrySet()) {
            String name = field.getKey();
            TreeValue value = field.getValue();
            Ref ref = oidFields.get(name);
            if (ref == null) {
                ref = NodeTags.IGNORED_OID_FIELDS.contains(name) ? Ref.NONE : GUESSES.computeIfAbsent(name,
                        QueryTreeWalker::guess);
            }
            boolean typeofResult = name.equals("funcresulttype") && node.tag().equals("FUNCEXPR")
                    && node.number("funcid") == PG_TYPEOF;
            if (ref == Ref.RELATION && proven.contains(node)) {
                // FilterProof read this field as the covered catalog's OID.
                refs.filteredRelations.add(((TreeValue.Scalar) value).asLong());
            } else if (!(ref == Ref.TYPE && directConsts.contains(node)) && !typeofResult
                    && !recordedForGates(node, name, ref, value)) {
                collect(node, name, ref, value);
            }
            visit(value);
        }
        scope = outer;
    }

    /**
     * Notes what the gates need ({@link GatedUses}): every call, every other use of a function, and, when the tree
     * is read with catalog filters, each node whose value is of an object-identifier type (returns true: the type
     * is then not collected as a use, and GatedUses adds it back unless the value is proven). A CTE's and a VALUES
     * list's column types, and a sublink's output Param, are the types of values checked where they are computed
     * (parse analysis coerces each VALUES entry to its column's type), so their object-identifier entries are left
     * out as well, as is a CASE's result type (its results are). A set operation's column type is left out only when every branch outputs that very type
     * ({@link SetOperationColumns}): otherwise PostgreSQL coerces a branch's value when the statement runs, and an
     * integer would become a regclass unseen.
     */
    /**
     * An array coercion to a reg* array whose per-element step is a RelabelType of the element alone
     * ({@code proargtypes::regtype[]}): the coercion is the use of the element type (proven when every element of
     * its input is, {@link ArgumentOrigin.Elements}), and its step, which reads no value but the element's, is none.
     */
    private void relabelledElements(TreeValue.Node coercion) {
        long element = ObjectKind.regArrayElement(coercion.number("resulttype"));
        TreeValue.Node step = coercion.field("elemexpr").orElse(null) instanceof TreeValue.Node n ? n : null;
        if (element != 0 && step != null && step.tag().equals("RELABELTYPE") && step.number("resulttype") == element
                && step.field("arg").orElse(null) instanceof TreeValue.Node input
                && input.tag().equals("CASETESTEXPR")) {
            elementSteps.add(step);
            refs.regUses.add(new References.RegUse(element, coercion, scope));
            arrayUses.add(coercion);
        }
    }

    /**
     * Whether {@code node} reads text as aclitem without a cast: a column definition list
     * ({@code jsonb_to_record(...) AS x(a aclitem)}), an XMLTABLE or JSON_TABLE column, or JSON_VALUE's RETURNING.
     * aclitem's input looks the role up by name, so it tells whether a hidden role exists.
     */
    private static boolean readsAclitemFromText(TreeValue.Node node) {
        String field = switch (node.tag()) {
            case "RANGETBLFUNCTION" -> "funccoltypes";
            case "TABLEFUNC" -> "coltypes";
            case "JSONRETURNING" -> "typid";
            default -> null;
        };
        if (field == null) {
            return false;
        }
        TreeValue types = node.field(field).orElse(TreeValue.Null.INSTANCE);
        if (types instanceof TreeValue.NumberList list) {
            return list.values().stream().anyMatch(AclItems::isAclitem);
        }
        return types instanceof TreeValue.Scalar && AclItems.isAclitem(node.number(field));
    }

    private boolean recordedForGates(TreeValue.Node node, String field, Ref ref, TreeValue value) {
        if (ref == Ref.FUNCTION && value instanceof TreeValue.Scalar s && s.isNumber()) {
            if (node.tag().equals("FUNCEXPR") && field.equals("funcid")) {
                refs.calls.add(new References.Call(s.asLong(), node, scope));
            } else if (s.asLong() != 0) {
                refs.otherFunctionUses.add(s.asLong());
            }
            return false;
        }
        if (filters.isEmpty()) {
            return false;
        }
        if (ref == Ref.TYPE && field.equals("resulttype") && (elementSteps.contains(node) || arrayUses.contains(node))) {
            // Recorded with the array coercion (relabelledElements).
            return true;
        }
        if (ref == Ref.TYPE && (node.tag().equals("COALESCEEXPR") || node.tag().equals("COALESCE"))
                && field.equals("coalescetype") && value instanceof TreeValue.Scalar s && s.isNumber()
                && ObjectKind.regArrayElement(s.asLong()) != 0) {
            // A reg* array, as a CASE's reg* type: COALESCE yields one of its arguments, which parse analysis coerced
            // to this type, each a node of the type itself, checked as a use (a constant, an array coercion of
            // relabelled elements) or refused for its type. (A scalar reg* COALESCE stays refused for its type.)
            return true;
        }
        if (ref == Ref.TYPE && value instanceof TreeValue.Scalar s && s.isNumber()
                && ObjectKind.ofRegType(s.asLong()) != null && REG_USE_FIELDS.get(node.tag()) != null
                && REG_USE_FIELDS.get(node.tag()).equals(field)) {
            if (!setOperationOutput(node, s.asLong())) {
                refs.regUses.add(new References.RegUse(s.asLong(), node, scope));
            }
            return true;
        }
        if (ref == Ref.TYPE && node.tag().equals("CASETESTEXPR") && field.equals("typeId")
                && value instanceof TreeValue.Scalar s && s.isNumber() && ObjectKind.ofRegType(s.asLong()) != null) {
            // A placeholder for a value computed by another node of the tree (an array coercion's source element,
            // a CASE's argument), whose type is checked there: a reg* array is proven only as a constant.
            return true;
        }
        if (ref == Ref.TYPE && node.tag().equals("CONST") && field.equals("consttype")
                && value instanceof TreeValue.Scalar s && s.isNumber() && ObjectKind.regArrayElement(s.asLong()) != 0) {
            // A constant array of object identifiers ('{int,int8}'::regtype[]): a use of its element type, proven
            // when every element is (ArgumentOrigin reads the array).
            refs.regUses.add(new References.RegUse(ObjectKind.regArrayElement(s.asLong()), node, scope));
            return true;
        }
        if (ref == Ref.TYPE && node.tag().equals("PARAM") && field.equals("paramtype")
                && node.number("paramkind") == PARAM_SUBLINK && value instanceof TreeValue.Scalar s
                && s.isNumber() && ObjectKind.ofRegType(s.asLong()) != null) {
            // The output of a sublink's query, each value of which is checked where that query computes it.
            return true;
        }
        if (ref == Ref.TYPE && (node.tag().equals("CASEEXPR") || node.tag().equals("CASE"))
                && field.equals("casetype")
                && value instanceof TreeValue.Scalar s && s.isNumber() && ObjectKind.ofRegType(s.asLong()) != null) {
            // A CASE (tagged CASE before PostgreSQL 16) yields one of its results, which parse analysis coerced to this type: each is a node of the
            // type itself (a Const, Var, RelabelType or call checked as a use, or a coercion refused for its type).
            return true;
        }
        boolean rte = node.tag().equals("RTE") || node.tag().equals("RANGETBLENTRY");
        boolean derived = node.tag().equals("COMMONTABLEEXPR") && field.equals("ctecoltypes")
                || rte && field.equals("coltypes")
                && (node.number("rtekind") == RTE_CTE || node.number("rtekind") == RTE_VALUES);
        if (ref == Ref.TYPE_LIST && derived && value instanceof TreeValue.NumberList list) {
            list.values().stream().filter(oid -> ObjectKind.ofRegType(oid) == null).forEach(oid -> add(Ref.TYPE, oid));
            return true;
        }
        if (ref == Ref.TYPE_LIST && node.tag().equals("SETOPERATIONSTMT") && field.equals("colTypes")
                && value instanceof TreeValue.NumberList list && scope != null) {
            for (int i = 0; i < list.values().size(); i++) {
                long type = list.values().get(i);
                if (ObjectKind.ofRegType(type) == null || !SetOperationColumns.everyBranchIs(scope.query(), node, i,
                        type)) {
                    add(Ref.TYPE, type);
                }
            }
            return true;
        }
        return false;
    }

    private void collect(TreeValue.Node node, String field, Ref ref, TreeValue value) {
        switch (ref) {
            case NONE -> { }
            case TYPE_LIST, OPERATOR_LIST -> {
                if (value instanceof TreeValue.NumberList list) {
                    for (long oid : list.values()) {
                        add(ref == Ref.TYPE_LIST ? Ref.TYPE : Ref.OPERATOR, oid);
                    }
                } else if (!(value instanceof TreeValue.Null)) {
                    throw new NodeTreeException(node.tag() + " :" + field + " is not an OID list");
                }
            }
            default -> {
                if (value instanceof TreeValue.Scalar s && s.isNumber()) {
                    add(ref, s.asLong());
                } else if (!(value instanceof TreeValue.Null)) {
                    throw new NodeTreeException(node.tag() + " :" + field + " is not an OID");
                }
            }
        }
    }

    private void add(Ref ref, long oid) {
        if (oid == 0) {
            return;
        }
        switch (ref) {
            case RELATION -> {
                if (!ignoredRelations.contains(oid)) {
                    refs.relations.add(oid);
                }
            }
            case FUNCTION -> refs.functions.add(oid);
            case OPERATOR -> refs.operators.add(oid);
            case TYPE -> refs.types.add(oid);
            default -> throw new IllegalArgumentException(ref.name());
        }
    }

    /**
     * {@link #guess} of each field name met, once: the names are the few hundred that PostgreSQL's node types
     * have, and every node of every tree asks.
     */
    private static final Map<String, Ref> GUESSES = new java.util.concurrent.ConcurrentHashMap<>();

    /** The second net: a field the table does not list whose name reads as an object reference. */
    private static Ref guess(String field) {
        String f = field.toLowerCase(java.util.Locale.ROOT);
        if (f.endsWith("typid") || f.endsWith("typeid")) {
            return Ref.TYPE;
        }
        if (f.endsWith("funcid") || f.endsWith("fnoid")) {
            return Ref.FUNCTION;
        }
        if (f.endsWith("opno")) {
            return Ref.OPERATOR;
        }
        if (f.equals("relid") || f.endsWith("relid") && !f.endsWith("varrelid")) {
            return Ref.RELATION;
        }
        return Ref.NONE;
    }

    /**
     * Whether {@code node} is a Var of a set operation's own target list (the only place such a Query has Vars of
     * its own level) for a column whose every branch outputs a value of {@code type}: each of those values is
     * recorded and checked in its branch, so the Var, which reads the leftmost branch only, adds nothing.
     */
    private boolean setOperationOutput(TreeValue.Node node, long type) {
        if (!node.tag().equals("VAR") || node.number("varlevelsup") != 0 || scope == null) {
            return false;
        }
        TreeValue operation = scope.query().field("setOperations").orElse(TreeValue.Null.INSTANCE);
        long attno = node.number("varattno");
        return operation instanceof TreeValue.Node op && attno >= 1
                && SetOperationColumns.everyBranchIs(scope.query(), op, (int) attno - 1, type);
    }

    /** A Query that does more than read is refused here too, whatever L2 concluded. */
    private void query(TreeValue.Node query) {
        if (query.number("commandType") != CMD_SELECT) {
            refs.nonReading.add("a statement that is not a SELECT");
        }
        if (!(query.field("utilityStmt").orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Null)) {
            refs.nonReading.add("a utility statement");
        }
        if ("true".equals(query.scalar("hasModifyingCTE"))) {
            refs.nonReading.add("a data-modifying WITH query");
        }
        if ("true".equals(query.scalar("hasForUpdate"))) {
            refs.nonReading.add("FOR UPDATE or FOR SHARE");
        }
        TreeValue marks = query.field("rowMarks").orElse(TreeValue.Null.INSTANCE);
        if (marks instanceof TreeValue.NodeList l && !l.items().isEmpty()) {
            refs.nonReading.add("FOR UPDATE or FOR SHARE");
        }
        TreeValue into = query.field("intoClause").orElse(TreeValue.Null.INSTANCE);
        if (!(into instanceof TreeValue.Null)) {
            refs.nonReading.add("SELECT INTO");
        }
    }

    /** Records regconfig / regdictionary constants that are direct arguments of this call. */
    private void directConstArguments(TreeValue.Node funcExpr) {
        TreeValue args = funcExpr.field("args").orElse(TreeValue.Null.INSTANCE);
        if (!(args instanceof TreeValue.NodeList list)) {
            return;
        }
        long function = funcExpr.number("funcid");
        for (TreeValue arg : list.items()) {
            if (arg instanceof TreeValue.Node c && c.tag().equals("CONST")) {
                long type = c.number("consttype");
                if (type == REGCONFIG || type == REGDICTIONARY) {
                    directConsts.add(c);
                    refs.directConstArguments.add(new References.DirectConstArgument(function, type,
                            ArgumentOrigin.fourBytes(c)));
                }
            }
        }
    }
}
