package io.pgward.guard.catalog;

import java.util.List;

/**
 * Proves that a scalar subquery returns at most one row whatever the rows it reads, so that PostgreSQL's "more than
 * one row returned by a subquery used as an expression" cannot depend on a hidden row's values ({@link QuietQuals}).
 * Three shapes, each without set operations or set-returning functions in the target list:
 * <ul>
 *   <li>aggregates without GROUP BY: exactly one row (HAVING may drop it);</li>
 *   <li>{@code LIMIT 1};</li>
 *   <li>a single filter subquery of a covered catalog, without grouping, whose WHERE has the conjunct
 *       {@code x.oid = <expression>} with the oid equality operator: oid is the key of every covered catalog that
 *       has that column (its unique index), so at most one row matches (pgcli's and the drivers'
 *       {@code (SELECT c.relkind = 'c' FROM pg_class c WHERE c.oid = t.typrelid)}).</li>
 * </ul>
 */
final class SingleRow {

    /** pg_operator.dat: {@code =(oid, oid)}, pinned. */
    private static final long OID_EQ = 607;

    private static final long INT8 = 20;
    private static final long INT4 = 23;
    /** pg_proc.dat: int8(int4), pinned. */
    private static final long INT8_OF_INT4 = 481;
    private static final long RTE_RELATION = 0;

    private SingleRow() {
    }

    static boolean proven(TreeValue.Node query, CatalogFilters filters) {
        if (!query.tag().equals("QUERY") || "true".equals(query.scalar("hasTargetSRFs"))
                || !isNull(query, "setOperations")) {
            return false;
        }
        boolean grouped = !items(query, "groupClause").isEmpty() || !items(query, "groupingSets").isEmpty();
        if ("true".equals(query.scalar("hasAggs")) && !grouped) {
            return true;
        }
        return limitOne(query) || !grouped && byOid(query, filters);
    }

    /** {@code LIMIT 1}: an int8 constant 1, or PostgreSQL's int8(int4) cast of the int4 constant 1. */
    private static boolean limitOne(TreeValue.Node query) {
        TreeValue limit = query.field("limitCount").orElse(null);
        if (limit instanceof TreeValue.Node cast && cast.tag().equals("FUNCEXPR") && cast.number("funcid") == INT8_OF_INT4
                && items(cast, "args").size() == 1) {
            return one(items(cast, "args").get(0), INT4, 4);
        }
        return one(limit, INT8, 8);
    }

    private static boolean one(TreeValue value, long type, int length) {
        return value instanceof TreeValue.Node c && c.tag().equals("CONST") && c.number("consttype") == type
                && "false".equals(c.scalar("constisnull"))
                && c.field("constvalue").orElse(null) instanceof TreeValue.Datum d && d.length() == length
                && d.bytes().length >= length && d.bytes()[0] == 1
                && java.util.stream.IntStream.range(1, length).allMatch(i -> d.bytes()[i] == 0);
    }

    private static boolean byOid(TreeValue.Node query, CatalogFilters filters) {
        List<TreeValue> rtable = items(query, "rtable");
        if (rtable.size() != 1 || !(rtable.get(0) instanceof TreeValue.Node rte)
                || rte.number("rtekind") != QuietQuals.RTE_SUBQUERY
                || !(rte.field("subquery").orElse(null) instanceof TreeValue.Node filter)) {
            return false;
        }
        long column = oidColumnOf(filter, filters);
        if (column == 0 || !(query.field("jointree").orElse(null) instanceof TreeValue.Node from)
                || items(from, "fromlist").size() != 1) {
            return false;
        }
        TreeValue quals = from.field("quals").orElse(null);
        List<TreeValue> conjuncts = quals instanceof TreeValue.Node and && and.tag().equals("BOOLEXPR")
                && "and".equals(and.scalar("boolop")) ? items(and, "args") : quals == null ? List.of() : List.of(quals);
        for (TreeValue conjunct : conjuncts) {
            if (conjunct instanceof TreeValue.Node op && op.tag().equals("OPEXPR")
                    && op.number("opno") == OID_EQ
                    && items(op, "args").stream().anyMatch(arg -> arg instanceof TreeValue.Node v
                    && v.tag().equals("VAR") && v.number("varno") == 1 && v.number("varlevelsup") == 0
                    && v.number("varattno") == column)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The output column number of {@code filter} that is its catalog's {@code oid} column, or 0: {@code filter} reads
     * one covered catalog (FilterProof decides separately whether it is the login's filter) and outputs that column
     * as a plain Var.
     */
    private static long oidColumnOf(TreeValue.Node filter, CatalogFilters filters) {
        List<TreeValue> rtable = items(filter, "rtable");
        if (!filter.tag().equals("QUERY") || rtable.size() != 1 || !(rtable.get(0) instanceof TreeValue.Node rte)
                || rte.number("rtekind") != RTE_RELATION || "true".equals(filter.scalar("hasTargetSRFs"))
                || !isNull(filter, "setOperations")) {
            return 0;
        }
        CatalogFilters.Filter catalog = filters.byRelid(rte.number("relid"));
        if (catalog == null) {
            return 0;
        }
        int oidAttnum = catalog.columns().stream().filter(c -> c.name().equals("oid")).mapToInt(
                CatalogColumns.Column::attnum).findFirst().orElse(0);
        if (oidAttnum == 0) {
            return 0;
        }
        List<TreeValue> targets = items(filter, "targetList");
        for (int i = 0; i < targets.size(); i++) {
            if (targets.get(i) instanceof TreeValue.Node entry && entry.field("expr").orElse(null)
                    instanceof TreeValue.Node v && v.tag().equals("VAR") && v.number("varno") == 1
                    && v.number("varlevelsup") == 0 && v.number("varattno") == oidAttnum
                    && entry.number("resno") == i + 1) {
                return i + 1;
            }
        }
        return 0;
    }

    private static List<TreeValue> items(TreeValue.Node node, String field) {
        return node.field(field).orElse(null) instanceof TreeValue.NodeList list ? list.items() : List.of();
    }

    private static boolean isNull(TreeValue.Node node, String field) {
        return node.field(field).orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Null;
    }
}
