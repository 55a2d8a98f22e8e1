package io.pgward.guard.catalog;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * L3's proof that a Query reads a {@link FilteredView} only through this login's filter: the Query must be the
 * subquery {@link ViewFilters.Filter#subquery} writes, whoever wrote its text. Then every row it yields is a row about
 * visible objects, and nothing of the statement around it runs on the others.
 *
 * <p>The shape is the catalogs' ({@link FilterProof}): a plain SELECT whose range table is the one view and whose
 * jointree is that view alone; a target list of plain, unmasked columns of the view, constants and NULLs of a domain
 * (a masked column of one); an OFFSET (the
 * fence); no grouping, window, sort, DISTINCT, LIMIT, CTE, set operation, sublink, row mark or other {@code has*}
 * flag. The WHERE, its ANDs flattened (AND is associative, and PostgreSQL's parser flattens some of them itself),
 * must be exactly the filter's {@link ViewFilters.Conjunct}s, each once (no WHERE for a view without keys):
 * <pre>
 *   In:       ScalarArrayOpExpr(=, useOr, [key, Const oid[] | name[] | text[] holding exactly the set])
 *   Eq:       OpExpr(name = name, [key, Const name])
 *   AnyGroup: BoolExpr(or, [BoolExpr(and, [Eq, In]), ...]) with exactly the groups
 *   OwnBackend: OpExpr(int4 = int4, [key, FuncExpr(pg_backend_pid, no arguments)])
 *   IsNull:   NullTest(IS NULL, key), not of a row
 *   key:      Var(varno 1, levelsup 0, the key's attnum), or for a name, a RelabelType to name of that Var
 *             (information_schema's sql_identifier is a domain over name)
 * </pre>
 * Constants are compared by value, so a hand-written copy of the exact filter is the filter; one name more is not.
 * The view's own definition is PostgreSQL's code: the walk does not follow it for a proven view (see
 * {@link CheckTransaction}), which is why nothing but this shape may earn that.
 */
final class ViewFilterProof {

    private static final long BOOL = 16;
    private static final long NAME = 19;
    /** The collations an equality may compare with: "C" for names, the database default for text, none for oid. */
    private static final long C_COLLATION = 950;
    private static final long DEFAULT_COLLATION = 100;
    private static final int NAMEDATALEN = 64;
    private static final long CMD_SELECT = 1;
    private static final long RTE_RELATION = 0;
    private static final long INT4 = 23;
    /** int4eq's operator and pg_backend_pid (pg_operator.dat, pg_proc.dat: pinned OIDs). */
    private static final long INT4_EQUALITY = 96;
    private static final long PG_BACKEND_PID = 2026;
    private static final long IS_NULL = 0;
    private static final long COERCE_EXPLICIT_CALL = 0;

    private ViewFilterProof() {
    }

    /** The nodes of {@code query} that name the filtered view when it is a proven filter subquery; empty otherwise. */
    static List<TreeValue.Node> proven(TreeValue.Node query, ViewFilters filters) {
        if (filters.isEmpty() || !query.tag().equals("QUERY")) {
            return List.of();
        }
        try {
            return provenOrThrow(query, filters);
        } catch (NotProven | NodeTreeException | NumberFormatException e) {
            return List.of();
        }
    }

    private static final class NotProven extends Exception {
        NotProven() {
            super(null, null, false, false);
        }
    }

    private static List<TreeValue.Node> provenOrThrow(TreeValue.Node query, ViewFilters filters) throws NotProven {
        List<TreeValue> rtable = list(query, "rtable");
        require(rtable.size() == 1);
        TreeValue.Node rte = node(rtable.get(0), null);
        require(rte.tag().equals("RTE") || rte.tag().equals("RANGETBLENTRY"));
        require(rte.number("rtekind") == RTE_RELATION);
        ViewFilters.Filter filter = filters.byRelid(rte.number("relid"));
        require(filter != null);
        require(isNull(rte, "tablesample") && list(rte, "securityQuals").isEmpty());
        List<TreeValue.Node> proven = new ArrayList<>();
        proven.add(rte);
        for (TreeValue permission : list(query, "rteperminfos")) {
            TreeValue.Node p = node(permission, "RTEPERMISSIONINFO");
            require(p.number("relid") == filter.relid());
            proven.add(p);
        }
        require(proven.size() <= 2);
        plainSelect(query);

        TreeValue.Node jointree = node(query.field("jointree").orElse(null), "FROMEXPR");
        List<TreeValue> from = list(jointree, "fromlist");
        require(from.size() == 1 && node(from.get(0), "RANGETBLREF").number("rtindex") == 1);
        List<ViewFilters.Conjunct> found = new ArrayList<>();
        TreeValue quals = jointree.field("quals").orElse(TreeValue.Null.INSTANCE);
        if (!(quals instanceof TreeValue.Null) || !filter.conjuncts().isEmpty()) {
            for (TreeValue conjunct : conjuncts(quals)) {
                found.add(conjunct(conjunct, filter));
            }
        }
        require(found.size() == filter.conjuncts().size() && new HashSet<>(found).size() == found.size()
                && new HashSet<>(found).equals(new HashSet<>(filter.conjuncts())));

        for (TreeValue item : list(query, "targetList")) {
            TreeValue.Node e = node(node(item, "TARGETENTRY").field("expr").orElse(null), null);
            if (e.tag().equals("VAR")) {
                long attnum = e.number("varattno");
                require(e.number("varno") == 1 && e.number("varlevelsup") == 0 && attnum > 0
                        && !filter.masked(attnum));
            } else if (e.tag().equals("COERCETODOMAIN")) {
                // A masked column of a domain type (information_schema's character_data): a NULL of the domain.
                require("true".equals(node(e.field("arg").orElse(null), "CONST").scalar("constisnull")));
            } else {
                require(e.tag().equals("CONST"));
            }
        }
        return proven;
    }

    /** A plain SELECT with an OFFSET and nothing else that could compute over, order or pick the view's rows. */
    private static void plainSelect(TreeValue.Node query) throws NotProven {
        require(query.number("commandType") == CMD_SELECT);
        for (Map.Entry<String, TreeValue> field : query.fields().entrySet()) {
            if (field.getKey().startsWith("has")) {
                require(!(field.getValue() instanceof TreeValue.Scalar s && s.text().equals("true")));
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
        require(!isNull(query, "limitOffset"));
    }

    /** The conjuncts of a qual: nested ANDs flattened. */
    private static List<TreeValue> conjuncts(TreeValue quals) throws NotProven {
        List<TreeValue> out = new ArrayList<>();
        if (quals instanceof TreeValue.Node n && n.tag().equals("BOOLEXPR") && "and".equals(n.scalar("boolop"))) {
            for (TreeValue arg : list(n, "args")) {
                out.addAll(conjuncts(arg));
            }
        } else {
            require(quals instanceof TreeValue.Node);
            out.add(quals);
        }
        return out;
    }

    private static ViewFilters.Conjunct conjunct(TreeValue value, ViewFilters.Filter filter) throws NotProven {
        TreeValue.Node node = node(value, null);
        switch (node.tag()) {
            case "SCALARARRAYOPEXPR" -> {
                return in(node);
            }
            case "OPEXPR" -> {
                return node.number("opno") == INT4_EQUALITY ? ownBackend(node) : eq(node);
            }
            case "NULLTEST" -> {
                require(node.number("nulltesttype") == IS_NULL && "false".equals(node.scalar("argisrow")));
                return new ViewFilters.IsNull(key(node.field("arg").orElse(null), false));
            }
            case "BOOLEXPR" -> {
                require("or".equals(node.scalar("boolop")));
                Set<Set<ViewFilters.Conjunct>> groups = new HashSet<>();
                for (TreeValue arg : list(node, "args")) {
                    Set<ViewFilters.Conjunct> group = new HashSet<>();
                    List<TreeValue> parts = conjuncts(arg);
                    for (TreeValue part : parts) {
                        ViewFilters.Conjunct c = conjunct(part, filter);
                        require(!(c instanceof ViewFilters.AnyGroup));
                        group.add(c);
                    }
                    require(group.size() == parts.size() && groups.add(group));
                }
                return new ViewFilters.AnyGroup(groups);
            }
            default -> throw new NotProven();
        }
    }

    private static ViewFilters.In in(TreeValue.Node saop) throws NotProven {
        require("true".equals(saop.scalar("useOr")));
        List<TreeValue> args = list(saop, "args");
        require(args.size() == 2);
        TreeValue.Node array = node(args.get(1), "CONST");
        require("false".equals(array.scalar("constisnull")));
        for (ViewFilters.ElementType type : ViewFilters.ElementType.values()) {
            if (saop.number("opno") == type.equality && array.number("consttype") == type.arrayType
                    && saop.number("inputcollid") == collation(type)) {
                int attnum = key(args.get(0), type == ViewFilters.ElementType.NAME);
                return new ViewFilters.In(attnum, type, elements(datum(array), type));
            }
        }
        throw new NotProven();
    }

    private static ViewFilters.Eq eq(TreeValue.Node op) throws NotProven {
        require(op.number("opno") == ViewFilters.ElementType.NAME.equality && op.number("opresulttype") == BOOL
                && !"true".equals(op.scalar("opretset")) && op.number("inputcollid") == C_COLLATION);
        List<TreeValue> args = list(op, "args");
        require(args.size() == 2);
        int attnum = key(args.get(0), true);
        TreeValue.Node constant = node(args.get(1), "CONST");
        require(constant.number("consttype") == NAME && "false".equals(constant.scalar("constisnull")));
        TreeValue.Datum datum = datum(constant);
        require(datum.length() == NAMEDATALEN && datum.bytes().length >= NAMEDATALEN);
        return new ViewFilters.Eq(attnum, cString(datum.bytes(), 0, NAMEDATALEN));
    }

    /** The process-id key compared with this backend's own: nothing but the call, no argument, no cast. */
    private static ViewFilters.OwnBackend ownBackend(TreeValue.Node op) throws NotProven {
        require(op.number("opresulttype") == BOOL && !"true".equals(op.scalar("opretset"))
                && op.number("inputcollid") == 0);
        List<TreeValue> args = list(op, "args");
        require(args.size() == 2);
        int attnum = key(args.get(0), false);
        require(node(args.get(0), "VAR").number("vartype") == INT4);
        TreeValue.Node call = node(args.get(1), "FUNCEXPR");
        require(call.number("funcid") == PG_BACKEND_PID && call.number("funcresulttype") == INT4
                && !"true".equals(call.scalar("funcretset")) && !"true".equals(call.scalar("funcvariadic"))
                && call.number("funcformat") == COERCE_EXPLICIT_CALL && list(call, "args").isEmpty());
        return new ViewFilters.OwnBackend(attnum);
    }

    /**
     * The only collation under which the equality matches exactly what it lists: a nondeterministic collation
     * ({@code COLLATE} on the key) could make {@code 'orders'} equal a hidden {@code 'ORDERS'}.
     */
    private static long collation(ViewFilters.ElementType type) {
        return switch (type) {
            case OID -> 0;
            case NAME -> C_COLLATION;
            case TEXT -> DEFAULT_COLLATION;
        };
    }

    /** The attnum of a key column reference of the view's own range table entry. */
    private static int key(TreeValue value, boolean name) throws NotProven {
        TreeValue.Node node = node(value, null);
        if (name && node.tag().equals("RELABELTYPE")) {
            require(node.number("resulttype") == NAME);
            node = node(node.field("arg").orElse(null), null);
        }
        require(node.tag().equals("VAR") && node.number("varno") == 1 && node.number("varlevelsup") == 0);
        long attnum = node.number("varattno");
        require(attnum > 0 && attnum <= Short.MAX_VALUE);
        return (int) attnum;
    }

    /**
     * The elements of a one-dimensional array without NULLs (array.h: int32 vl_len_, int32 ndim, int32 dataoffset,
     * Oid elemtype, int dims[ndim], int lbound[ndim], then the elements): oids of 4 bytes, names of 64, texts as
     * 4-byte-header varlenas aligned to 4. Anything else (a big-endian server, a short or compressed element) does not
     * decode to the expected set and is refused, never misread as allowed.
     */
    private static Set<String> elements(TreeValue.Datum datum, ViewFilters.ElementType type) throws NotProven {
        byte[] b = datum.bytes();
        int length = datum.length();
        require(length >= 16 && b.length >= length);
        long header = uint32(b, 0);
        require((header & 3) == 0 && (header >>> 2) == length);
        long ndim = uint32(b, 4);
        long elementType = switch (type) {
            case OID -> 26;
            case NAME -> NAME;
            case TEXT -> 25;
        };
        require(uint32(b, 8) == 0 && uint32(b, 12) == elementType);
        Set<String> values = new TreeSet<>();
        if (ndim == 0) {
            require(length == 16);
            return values;
        }
        require(ndim == 1 && length >= 24);
        long count = uint32(b, 16);
        require(count <= length);
        int at = 24;
        for (long i = 0; i < count; i++) {
            switch (type) {
                case OID -> {
                    require(at + 4 <= length);
                    values.add(Long.toString(uint32(b, at)));
                    at += 4;
                }
                case NAME -> {
                    require(at + NAMEDATALEN <= length);
                    values.add(cString(b, at, NAMEDATALEN));
                    at += NAMEDATALEN;
                }
                case TEXT -> {
                    at = (at + 3) & ~3;
                    require(at + 4 <= length);
                    long word = uint32(b, at);
                    require((word & 3) == 0);
                    int size = (int) (word >>> 2);
                    require(size >= 4 && at + size <= length);
                    values.add(new String(b, at + 4, size - 4, StandardCharsets.UTF_8));
                    at += size;
                }
            }
        }
        require(((at + 3) & ~3) == length || at == length);
        require(values.size() == count);
        return values;
    }

    /** A NUL-terminated string within {@code max} bytes; one without its NUL is refused. */
    private static String cString(byte[] b, int offset, int max) throws NotProven {
        for (int i = 0; i < max; i++) {
            if (b[offset + i] == 0) {
                return new String(b, offset, i, StandardCharsets.UTF_8);
            }
        }
        throw new NotProven();
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

    /** The value as a node, of {@code tag} unless it is null. */
    private static TreeValue.Node node(TreeValue value, String tag) throws NotProven {
        require(value instanceof TreeValue.Node n && (tag == null || n.tag().equals(tag)));
        return (TreeValue.Node) value;
    }

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

    private static void require(boolean condition) throws NotProven {
        if (!condition) {
            throw new NotProven();
        }
    }
}
