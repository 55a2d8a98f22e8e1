package io.pgward.guard.catalog;

import io.pgward.guard.selection.VisibleCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * L3's proof that a Query reads a covered catalog only through this login's filter: the Query must be, node for
 * node, the subquery {@link CatalogFilters.Filter#subquery} writes, whoever wrote its text. Then every row it yields
 * is a visible row, and nothing of the statement around it runs on the others.
 *
 * <p>The Query must be a plain SELECT whose range table is the one catalog relation and whose jointree is that
 * relation alone with the filter as its WHERE; its target list holds only plain columns of that relation (no ACL
 * column, no whole row) and constants, so nothing is computed from a row; it has no grouping, window, sort,
 * DISTINCT, LIMIT, CTE, set operation, sublink, row mark or any other {@code has*} flag, and it has an OFFSET (the
 * fence: with one, PostgreSQL keeps the subquery apart and pushes no outer condition into it) unless the caller has
 * proven that no condition of the statement can observe a hidden row ({@link QuietQuals}). The WHERE must be:
 * <pre>
 *   per key column k, ANDed in the filter's order when there are two:
 *     BoolExpr(or, [OpExpr(oid &lt; oid, Var k, Const oid 16384), SAOP])      -- built-ins visible
 *     SAOP                                                               -- pg_namespace
 *   SAOP = ScalarArrayOpExpr(oid = oid, useOr, [Var k, Const oid[] holding exactly the visible set])
 * </pre>
 * Anything else is not proven, and the catalog relation is refused by the relation rule as before. Constants are
 * compared by value (the array as a set), so a hand-written copy of the exact filter is the filter; one OID more is
 * not.
 */
final class FilterProof {

    /** pg_operator.dat: {@code =(oid, oid)} and {@code <(oid, oid)}, pinned. */
    static final long OID_EQ = 607;
    static final long OID_LT = 609;
    private static final long OID = 26;
    private static final long OID_ARRAY = 1028;
    private static final long BOOL = 16;
    /** CmdType CMD_SELECT, RTEKind RTE_RELATION. */
    private static final long CMD_SELECT = 1;
    private static final long RTE_RELATION = 0;

    private FilterProof() {
    }

    /**
     * The nodes of {@code query} that name the filtered catalog (its range table entry and, from PostgreSQL 16, its
     * permission entry) when {@code query} is a proven filter subquery; empty otherwise.
     */
    static List<TreeValue.Node> proven(TreeValue.Node query, CatalogFilters filters) {
        return proven(query, filters, false);
    }

    /**
     * As {@link #proven(TreeValue.Node, CatalogFilters)}; with {@code quietStatement} a filter subquery without the
     * fence is proven as well. Pass true only when {@link QuietQuals} found no condition of the whole statement that
     * can observe a hidden row.
     */
    static List<TreeValue.Node> proven(TreeValue.Node query, CatalogFilters filters, boolean quietStatement) {
        if (filters.isEmpty() || !query.tag().equals("QUERY")) {
            return List.of();
        }
        try {
            return provenOrThrow(query, filters, quietStatement);
        } catch (NotProven | NodeTreeException e) {
            return List.of();
        }
    }

    private static final class NotProven extends Exception {
        NotProven() {
            super(null, null, false, false);
        }
    }

    private static List<TreeValue.Node> provenOrThrow(TreeValue.Node query, CatalogFilters filters,
                                                      boolean quietStatement) throws NotProven {
        List<TreeValue> rtable = list(query, "rtable");
        require(rtable.size() == 1 && rtable.get(0) instanceof TreeValue.Node);
        TreeValue.Node rte = (TreeValue.Node) rtable.get(0);
        require(rte.tag().equals("RTE") || rte.tag().equals("RANGETBLENTRY"));
        require(rte.number("rtekind") == RTE_RELATION);
        CatalogFilters.Filter filter = filters.byRelid(rte.number("relid"));
        require(filter != null);
        require(isNull(rte, "tablesample") && list(rte, "securityQuals").isEmpty());
        List<TreeValue.Node> proven = new ArrayList<>();
        proven.add(rte);
        for (TreeValue permission : list(query, "rteperminfos")) {
            require(permission instanceof TreeValue.Node p && p.tag().equals("RTEPERMISSIONINFO")
                    && p.number("relid") == filter.relid());
            proven.add((TreeValue.Node) permission);
        }
        require(proven.size() <= 2);

        require(query.number("commandType") == CMD_SELECT);
        for (Map.Entry<String, TreeValue> field : query.fields().entrySet()) {
            if (field.getKey().startsWith("has")) {
                require(!"true".equals(scalarText(field.getValue())));
            }
        }
        for (String absent : List.of("utilityStmt", "setOperations", "havingQual", "limitCount", "onConflict",
                "mergeActionList", "returningList", "withCheckOptions", "constraintDeps")) {
            require(isNull(query, absent) || list(query, absent).isEmpty());
        }
        for (String empty : List.of("cteList", "groupClause", "groupingSets", "windowClause", "distinctClause",
                "sortClause", "rowMarks")) {
            require(list(query, empty).isEmpty());
        }
        require(quietStatement || !isNull(query, "limitOffset"));

        TreeValue.Node jointree = node(query.field("jointree").orElse(null), "FROMEXPR");
        List<TreeValue> from = list(jointree, "fromlist");
        require(from.size() == 1);
        TreeValue.Node ref = node(from.get(0), "RANGETBLREF");
        require(ref.number("rtindex") == 1);
        require(condition(jointree.field("quals").orElse(null), filter));

        for (TreeValue item : list(query, "targetList")) {
            TreeValue.Node entry = node(item, "TARGETENTRY");
            TreeValue expr = entry.field("expr").orElse(null);
            require(expr instanceof TreeValue.Node);
            TreeValue.Node e = (TreeValue.Node) expr;
            if (e.tag().equals("VAR")) {
                long attnum = e.number("varattno");
                require(e.number("varno") == 1 && e.number("varlevelsup") == 0 && attnum != 0
                        && !filter.aclColumn(attnum));
            } else {
                require(e.tag().equals("CONST"));
            }
        }
        return proven;
    }

    private static boolean condition(TreeValue quals, CatalogFilters.Filter filter) throws NotProven {
        List<CatalogFilters.KeyFilter> keys = filter.keys();
        if (keys.size() == 1) {
            return key(quals, keys.get(0));
        }
        TreeValue.Node and = node(quals, "BOOLEXPR");
        require("and".equals(and.scalar("boolop")));
        List<TreeValue> args = list(and, "args");
        require(args.size() == keys.size());
        for (int i = 0; i < keys.size(); i++) {
            require(key(args.get(i), keys.get(i)));
        }
        return true;
    }

    private static boolean key(TreeValue quals, CatalogFilters.KeyFilter key) throws NotProven {
        if (!key.builtIns()) {
            return listed(quals, key);
        }
        TreeValue.Node or = node(quals, "BOOLEXPR");
        require("or".equals(or.scalar("boolop")));
        List<TreeValue> args = list(or, "args");
        require(args.size() == 2);
        TreeValue.Node lt = node(args.get(0), "OPEXPR");
        require(lt.number("opno") == OID_LT && lt.number("opresulttype") == BOOL
                && !"true".equals(lt.scalar("opretset")));
        List<TreeValue> ltArgs = list(lt, "args");
        require(ltArgs.size() == 2 && keyVar(ltArgs.get(0), key));
        TreeValue.Node bound = node(ltArgs.get(1), "CONST");
        require(bound.number("consttype") == OID && "false".equals(bound.scalar("constisnull")));
        require(oidDatum(bound) == VisibleCatalog.FIRST_NORMAL_OBJECT_ID);
        return listed(args.get(1), key);
    }

    private static boolean listed(TreeValue value, CatalogFilters.KeyFilter key) throws NotProven {
        TreeValue.Node saop = node(value, "SCALARARRAYOPEXPR");
        require(saop.number("opno") == OID_EQ && "true".equals(saop.scalar("useOr")));
        List<TreeValue> args = list(saop, "args");
        require(args.size() == 2 && keyVar(args.get(0), key));
        TreeValue.Node array = node(args.get(1), "CONST");
        require(array.number("consttype") == OID_ARRAY && "false".equals(array.scalar("constisnull")));
        Set<Long> oids = oidArray(array);
        Set<Long> expected = new TreeSet<>();
        key.oids().stream().forEach(expected::add);
        return oids.equals(expected);
    }

    private static boolean keyVar(TreeValue value, CatalogFilters.KeyFilter key) throws NotProven {
        TreeValue.Node var = node(value, "VAR");
        return var.number("varno") == 1 && var.number("varattno") == key.attnum()
                && var.number("varlevelsup") == 0 && var.number("vartype") == OID;
    }

    /** A by-value oid datum: outDatum writes the Datum's bytes in the server's order (little-endian assumed). */
    private static long oidDatum(TreeValue.Node constant) throws NotProven {
        require("true".equals(constant.scalar("constbyval")));
        TreeValue.Datum datum = datum(constant);
        require(datum.length() == 4 && datum.bytes().length >= 4);
        return uint32(datum.bytes(), 0);
    }

    /**
     * A one-dimensional oid[] without NULLs (array.h: int32 vl_len_, int32 ndim, int32 dataoffset, Oid elemtype,
     * int dims[ndim], int lbound[ndim], then the elements), as a set. A big-endian server's bytes do not decode to
     * the expected set, so they are refused, never misread as allowed.
     */
    private static Set<Long> oidArray(TreeValue.Node constant) throws NotProven {
        TreeValue.Datum datum = datum(constant);
        byte[] b = datum.bytes();
        int length = datum.length();
        require(length >= 16 && b.length >= length);
        long header = uint32(b, 0);
        require((header & 3) == 0 && (header >>> 2) == length);
        long ndim = uint32(b, 4);
        require(uint32(b, 8) == 0 && uint32(b, 12) == OID);
        Set<Long> oids = new TreeSet<>();
        if (ndim == 0) {
            require(length == 16);
            return oids;
        }
        require(ndim == 1 && length >= 24);
        long count = uint32(b, 16);
        require(count <= (length - 24) / 4 && length == 24 + 4 * count);
        for (int i = 0; i < count; i++) {
            oids.add(uint32(b, 24 + 4 * i));
        }
        return oids;
    }

    private static TreeValue.Datum datum(TreeValue.Node constant) throws NotProven {
        TreeValue value = constant.field("constvalue").orElse(null);
        require(value instanceof TreeValue.Datum);
        return (TreeValue.Datum) value;
    }

    private static long uint32(byte[] b, int offset) {
        return (b[offset] & 0xFFL) | (b[offset + 1] & 0xFFL) << 8 | (b[offset + 2] & 0xFFL) << 16
                | (b[offset + 3] & 0xFFL) << 24;
    }

    private static TreeValue.Node node(TreeValue value, String tag) throws NotProven {
        require(value instanceof TreeValue.Node n && n.tag().equals(tag));
        return (TreeValue.Node) value;
    }

    /** A list field's items; an absent or null field is empty; anything else is not proven. */
    private static List<TreeValue> list(TreeValue.Node node, String field) throws NotProven {
        TreeValue value = node.field(field).orElse(TreeValue.Null.INSTANCE);
        if (value instanceof TreeValue.Null) {
            return List.of();
        }
        require(value instanceof TreeValue.NodeList);
        return ((TreeValue.NodeList) value).items();
    }

    private static boolean isNull(TreeValue.Node node, String field) {
        return node.field(field).orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Null;
    }

    private static String scalarText(TreeValue value) {
        return value instanceof TreeValue.Scalar s ? s.text() : null;
    }

    private static void require(boolean condition) throws NotProven {
        if (!condition) {
            throw new NotProven();
        }
    }
}
