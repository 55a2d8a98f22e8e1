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
    /** CmdType CMD_SELECT in nodes.h. */
    private static final long CMD_SELECT = 1;

    private final References refs = new References();
    private final Set<Long> ignoredRelations;
    private final CatalogFilters filters;
    /** QuietQuals proved the statement's conditions cannot observe a hidden row: unfenced filters are proven too. */
    private final boolean quietStatement;
    /** Range table and permission entries of proven filter subqueries (FilterProof); their relation is filtered. */
    private final Set<TreeValue.Node> proven = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    /** regconfig / regdictionary Const nodes recorded as direct arguments; their type is not a plain use. */
    private final Set<TreeValue.Node> directConsts = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    private QueryTreeWalker(Set<Long> ignoredRelations, CatalogFilters filters, boolean quietStatement) {
        this.ignoredRelations = ignoredRelations;
        this.filters = filters;
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
        return walk(tree, ignoredRelations, filters, false);
    }

    /**
     * As {@link #walk(TreeValue, Set, CatalogFilters)}; with {@code quietStatement}, which only a proof of
     * {@link QuietQuals} on this tree may give, a filter subquery without the fence is proven as well.
     */
    static References walk(TreeValue tree, Set<Long> ignoredRelations, CatalogFilters filters,
                           boolean quietStatement) {
        QueryTreeWalker w = new QueryTreeWalker(ignoredRelations, filters, quietStatement);
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
        if (node.tag().equals("QUERY")) {
            query(node);
            proven.addAll(FilterProof.proven(node, filters, quietStatement));
        }
        if (node.tag().equals("FUNCEXPR")) {
            directConstArguments(node);
        }
        if (node.tag().equals("CONST")) {
            long type = node.number("consttype");
            if (type != 0) {
                refs.constTypes.add(type);
            }
        }
        for (Map.Entry<String, TreeValue> field : node.fields().entrySet()) {
            String name = field.getKey();
            TreeValue value = field.getValue();
            Ref ref = oidFields.getOrDefault(name, NodeTags.IGNORED_OID_FIELDS.contains(name) ? Ref.NONE
                    : guess(name));
            boolean typeofResult = name.equals("funcresulttype") && node.tag().equals("FUNCEXPR")
                    && node.number("funcid") == PG_TYPEOF;
            if (ref == Ref.RELATION && proven.contains(node)) {
                // FilterProof read this field as the covered catalog's OID.
                refs.filteredRelations.add(((TreeValue.Scalar) value).asLong());
            } else if (!(ref == Ref.TYPE && directConsts.contains(node)) && !typeofResult) {
                collect(node, name, ref, value);
            }
            visit(value);
        }
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
                    refs.directConstArguments.add(new References.DirectConstArgument(function, type));
                }
            }
        }
    }
}
