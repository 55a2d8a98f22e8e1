package io.pgward.guard.catalog;

import java.util.List;
import java.util.Map;

/**
 * Whether every branch of a set operation outputs a column in exactly its result type. Parse analysis does not
 * coerce a branch's output to the set operation's column type (analyze.c leaves the branch's target list alone;
 * the planner adds the coercion), so an {@code int4} branch of a {@code regclass} column is a regclass value
 * nobody checked. When every branch's expression is a Const, Var, RelabelType or FuncExpr of the column's own type,
 * each value is one the walker records and the gates check where it is computed.
 */
final class SetOperationColumns {

    private static final Map<String, String> TYPE_FIELDS = Map.of("CONST", "consttype", "VAR", "vartype",
            "RELABELTYPE", "resulttype", "FUNCEXPR", "funcresulttype");

    private SetOperationColumns() {
    }

    /**
     * @param query the Query whose {@code setOperations} is (or holds) {@code operation}; its range table holds the
     *              branches
     * @param column the column's index, from 0
     */
    static boolean everyBranchIs(TreeValue.Node query, TreeValue.Node operation, int column, long type) {
        try {
            return branches(query, operation, column, type, 0);
        } catch (NodeTreeException | ClassCastException e) {
            return false;
        }
    }

    private static boolean branches(TreeValue.Node query, TreeValue value, int column, long type, int depth) {
        if (depth > 256 || !(value instanceof TreeValue.Node node)) {
            return false;
        }
        if (node.tag().equals("SETOPERATIONSTMT")) {
            return branches(query, node.field("larg").orElse(null), column, type, depth + 1)
                    && branches(query, node.field("rarg").orElse(null), column, type, depth + 1);
        }
        if (!node.tag().equals("RANGETBLREF")) {
            return false;
        }
        TreeValue.Node rte = item(query, "rtable", node.number("rtindex"));
        TreeValue.Node branch = rte == null ? null : rte.field("subquery").orElse(null) instanceof TreeValue.Node n
                ? n : null;
        if (branch == null) {
            return false;
        }
        if (!(branch.field("setOperations").orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Null)) {
            return branches(branch, branch.field("setOperations").orElse(null), column, type, depth + 1);
        }
        int position = 0;
        for (TreeValue item : list(branch, "targetList")) {
            if (item instanceof TreeValue.Node entry && !"true".equals(entry.scalar("resjunk"))) {
                if (position++ == column) {
                    return entry.field("expr").orElse(null) instanceof TreeValue.Node expr
                            && TYPE_FIELDS.containsKey(expr.tag()) && expr.number(TYPE_FIELDS.get(expr.tag())) == type;
                }
            }
        }
        return false;
    }

    private static TreeValue.Node item(TreeValue.Node node, String field, long oneBased) {
        List<TreeValue> items = list(node, field);
        return oneBased >= 1 && oneBased <= items.size() && items.get((int) oneBased - 1) instanceof TreeValue.Node n
                ? n : null;
    }

    private static List<TreeValue> list(TreeValue.Node node, String field) {
        return node.field(field).orElse(null) instanceof TreeValue.NodeList l ? l.items() : List.of();
    }
}
