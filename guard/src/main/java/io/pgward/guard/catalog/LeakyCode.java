package io.pgward.guard.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a statement's own code evaluates on a row that could fail, and whose error could then show a row a view
 * filters out: PostgreSQL's own test for the conditions it may push into a security-barrier view
 * ({@code contain_leaked_vars} in its planner), applied to the whole statement, since pgward cannot tell which
 * condition the planner will evaluate before a view's own (a subquery's output pulled up into a condition, a HAVING
 * moved to WHERE, a join condition pushed down).
 *
 * <p>A use counts only where its arguments read a row (a column, a parameter, a CASE or array element), as in
 * PostgreSQL: {@code now() - interval '1 day'} shows nothing of any row. Aggregates and window functions, their
 * arguments included, run over the rows that passed every filter, so nothing in them counts unless a subquery inside
 * them reads on its own, except what an aggregate sorts or makes distinct by (since PostgreSQL 16 the planner may sort
 * its input for it, and a sort may run below a join: a Gather Merge over a Sort of one table, on rows the join
 * filters out) and every argument of an aggregate in a query without GROUP BY (min and max over one table, a
 * partitioned one too, may become {@code ORDER BY arg LIMIT 1} with {@code arg IS NOT NULL} among each scan's
 * conditions, where it may run before the view's own). Neither does an output column of the client's statement itself that nothing sorts, groups, makes
 * distinct or partitions by (its target entry's ressortgroupref is 0): it is computed as the last step of the scans
 * and joins, on rows that passed every condition, and never moved below one. A sort or grouping key is not: the
 * planner computes it where it sorts, which may be below the view's join ({@code ORDER BY emp::int LIMIT 5} on a
 * view that filters with EXISTS fails on a filtered row). The select lists of subqueries, CTEs and UNION arms count
 * too: they may be pulled up into a condition, or computed at the scan they read (a PlaceHolderVar under an outer
 * join). (Eager aggregation, planned for PostgreSQL 19, computes partial aggregates below joins: revisit before
 * serving it.)
 *
 * <p>Functions and operators are leakproof or not by the catalog ({@link LeakyViews} asks); the other constructs that
 * can fail on a value are never leakproof: an I/O cast (an input function's error quotes its input), a subquery that
 * must return one row, GREATEST and LEAST, subscripts, XML and SQL/JSON functions, and any node this class does not
 * know.
 */
final class LeakyCode {

    /** One use, in the order met (innermost first). */
    sealed interface Use {
        /** A FuncExpr's function. */
        record Function(long oid) implements Use {
        }

        /** An operator, leakproof when its function is. */
        record Operator(long oid) implements Use {
        }

        /** A construct that is never leakproof, as a refusal names it. */
        record Construct(String what) implements Use {
        }
    }

    /** Nodes that hold or combine values without failing on them themselves (their children are judged). */
    private static final Set<String> HARMLESS = Set.of(
            // Clauses: a sort or grouping operator runs above every filter, as does GROUPING.
            "QUERY", "TARGETENTRY", "FROMEXPR", "JOINEXPR", "RANGETBLREF", "ALIAS", "SORTGROUPCLAUSE", "GROUPINGSET",
            "WINDOWCLAUSE", "COMMONTABLEEXPR", "CTESEARCHCLAUSE", "CTECYCLECLAUSE", "SETOPERATIONSTMT", "RTE",
            "RANGETBLENTRY", "RTEPERMISSIONINFO", "RANGETBLFUNCTION", "ROWMARKCLAUSE", "TABLESAMPLECLAUSE",
            "AGGREF", "WINDOWFUNC", "GROUPINGFUNC",
            // contain_leaked_vars' own list, in both spellings (NodeTags), and COALESCE, which only picks an argument.
            "VAR", "CONST", "PARAM", "NAMEDARGEXPR", "BOOLEXPR", "FIELDSELECT", "FIELDSTORE", "RELABELTYPE",
            "COLLATE", "COLLATEEXPR", "CASE", "CASEEXPR", "WHEN", "CASEWHEN", "CASETESTEXPR", "ARRAY", "ARRAYEXPR",
            "ROW", "ROWEXPR", "COALESCE", "COALESCEEXPR", "SQLVALUEFUNCTION", "NULLTEST", "BOOLEANTEST",
            "SETTODEFAULT", "COERCETODOMAINVALUE",
            // Its per-element step is a node of its own, judged with the element as the row's value.
            "ARRAYCOERCEEXPR");
    private static final Set<String> OPERATORS = Set.of("OPEXPR", "DISTINCTEXPR", "NULLIFEXPR", "SCALARARRAYOPEXPR");
    private static final Set<String> AGGREGATED = Set.of("AGGREF", "WINDOWFUNC", "GROUPINGFUNC");
    /** SubLinkType ROWCOMPARE_SUBLINK, EXPR_SUBLINK, MULTIEXPR_SUBLINK (primnodes.h): more than one row fails. */
    private static final Set<Long> SINGLE_ROW_SUBLINKS = Set.of(3L, 4L, 5L);
    /** No row is read: reach below every level. */
    private static final int NONE = Integer.MIN_VALUE;

    /** PostgreSQL's CMD_SELECT. */
    private static final long SELECT = 1;

    private final List<Use> uses = new ArrayList<>();
    /** For each query being visited, innermost first: whether it has no GROUP BY. */
    private final java.util.Deque<Boolean> ungrouped = new java.util.ArrayDeque<>();
    /** The output columns computed above every filter ({@link #projectedLast}), by identity. */
    private final Set<TreeValue> projected = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    private LeakyCode() {
    }

    /**
     * The uses in {@code check}, the checked query {@code SELECT 1 FROM (client statement) AS pgward_query}
     * ({@link CheckFunctionBody}), that could fail on a row, in the order met.
     */
    static List<Use> of(TreeValue check) {
        LeakyCode code = new LeakyCode();
        code.projectedLast(check);
        code.visit(check, false);
        return code.uses;
    }

    /**
     * Notes the output columns of the client's statement, when it is one plain SELECT (no UNION, INTERSECT or
     * EXCEPT), that nothing sorts, groups or partitions by: those PostgreSQL computes above every filter.
     */
    private void projectedLast(TreeValue check) {
        if (check instanceof TreeValue.Node wrapper && items(wrapper, "rtable").size() == 1
                && items(wrapper, "rtable").get(0) instanceof TreeValue.Node rte
                && rte.number("rtekind") == QuietQuals.RTE_SUBQUERY
                && rte.field("subquery").orElse(null) instanceof TreeValue.Node client
                && client.tag().equals("QUERY") && client.number("commandType") == SELECT
                && client.field("setOperations").orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Null) {
            for (TreeValue entry : items(client, "targetList")) {
                if (entry instanceof TreeValue.Node target && target.number("ressortgroupref") == 0) {
                    projected.add(target);
                }
            }
        }
    }

    private static List<TreeValue> items(TreeValue.Node node, String field) {
        return node.field(field).orElse(null) instanceof TreeValue.NodeList list ? list.items() : List.of();
    }

    /**
     * Visits {@code value} and returns how many query levels above its own it reads a row of, at most; 0 for its
     * own level, {@link #NONE} when it reads no row. A subquery that reads only its own rows reads none of the level
     * it sits in; the walk is one pass, so a deep tree costs no more than a wide one.
     */
    private int visit(TreeValue value, boolean aggregated) {
        return switch (value) {
            case TreeValue.Node node -> node(node, aggregated);
            case TreeValue.NodeList list -> {
                int reach = NONE;
                for (TreeValue item : list.items()) {
                    reach = Math.max(reach, visit(item, aggregated));
                }
                yield reach;
            }
            case TreeValue.Null n -> NONE;
            case TreeValue.Scalar s -> NONE;
            case TreeValue.Text t -> NONE;
            case TreeValue.Datum d -> NONE;
            case TreeValue.NumberList l -> NONE;
        };
    }

    private int node(TreeValue.Node node, boolean aggregated) {
        String tag = node.tag();
        boolean query = tag.equals("QUERY");
        if (query) {
            // GROUP BY () has grouping sets but no grouping clause, and PostgreSQL optimises min and max under it.
            ungrouped.push(items(node, "groupClause").isEmpty());
        }
        try {
            return node(node, tag, query, aggregated);
        } finally {
            if (query) {
                ungrouped.pop();
            }
        }
    }

    private int node(TreeValue.Node node, String tag, boolean query, boolean aggregated) {
        boolean inside = !query && (aggregated || AGGREGATED.contains(tag) || projected.contains(node));
        int reach = switch (tag) {
            case "VAR" -> (int) node.number("varlevelsup");
            case "PARAM", "CASETESTEXPR", "COERCETODOMAINVALUE" -> 0;
            default -> NONE;
        };
        for (Map.Entry<String, TreeValue> field : node.fields().entrySet()) {
            if (tag.equals("AGGREF") && field.getKey().equals("args")
                    && field.getValue() instanceof TreeValue.NodeList arguments) {
                // Without GROUP BY, min and max over one table may become ORDER BY arg LIMIT 1 with "arg IS NOT
                // NULL" added to each scan's conditions (an index on the expression makes it the cheaper plan).
                boolean early = ungrouped.isEmpty() || ungrouped.peek() || node.number("agglevelsup") != 0;
                for (TreeValue argument : arguments.items()) {
                    // What it sorts or makes distinct by may be computed where the planner sorts its input.
                    boolean sortKey = argument instanceof TreeValue.Node target
                            && target.number("ressortgroupref") != 0;
                    reach = Math.max(reach, visit(argument, inside && !sortKey && !early));
                }
            } else {
                reach = Math.max(reach, visit(field.getValue(), inside));
            }
        }
        if (query) {
            return reach == NONE ? NONE : reach - 1;
        }
        if (reach >= 0 && !inside) {
            judge(node);
        }
        return reach;
    }

    private void judge(TreeValue.Node node) {
        String tag = node.tag();
        if (tag.equals("FUNCEXPR")) {
            uses.add(new Use.Function(node.number("funcid")));
        } else if (OPERATORS.contains(tag)) {
            uses.add(new Use.Operator(node.number("opno")));
        } else if (tag.equals("ROWCOMPARE") || tag.equals("ROWCOMPAREEXPR")) {
            if (node.field("opnos").orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.NumberList opnos) {
                opnos.values().forEach(oid -> uses.add(new Use.Operator(oid)));
            } else {
                uses.add(new Use.Construct("a row comparison"));
            }
        } else if (tag.equals("SUBLINK")) {
            if (SINGLE_ROW_SUBLINKS.contains(node.number("subLinkType"))) {
                uses.add(new Use.Construct("a subquery that must return one row"));
            }
        } else if (!HARMLESS.contains(tag)) {
            uses.add(new Use.Construct(construct(tag)));
        }
    }

    private static String construct(String tag) {
        return switch (tag) {
            case "COERCEVIAIO" -> "a cast through text";
            case "COERCETODOMAIN" -> "a cast to a domain";
            case "MINMAX", "MINMAXEXPR" -> "GREATEST or LEAST";
            case "SUBSCRIPTINGREF" -> "a subscript";
            case "XMLEXPR" -> "an XML function";
            case "TABLEFUNC" -> "XMLTABLE or JSON_TABLE";
            case "CONVERTROWTYPEEXPR" -> "a row type conversion";
            default -> tag.startsWith("JSON") ? "a SQL/JSON function" : "an expression not known to be leakproof";
        };
    }
}
