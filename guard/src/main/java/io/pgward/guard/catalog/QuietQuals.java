package io.pgward.guard.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether a statement may read the login's filter subqueries without the fence ({@code OFFSET 0}, design 3.3):
 * without it PostgreSQL pulls a filter subquery up into the statement, and the statement's own conditions may then
 * run on a catalog row before the filter has dropped it. That is harmless only when no such condition can tell a
 * hidden row from no row: it raises no error and takes no time that depends on the row's values. This class proves
 * that on PostgreSQL's own parse tree, never on the text, and is fail closed: a node, function or pattern it does not
 * know makes the statement "loud", and its filters keep the fence.
 *
 * <p><b>Where a condition may meet a hidden row.</b> Every expression that the planner may evaluate at or below the
 * scan of a pulled-up catalog: the WHERE and JOIN ... ON conditions and HAVING of every query level (HAVING without
 * aggregates becomes WHERE; conditions are pushed down into subqueries), and everything in the queries that can be
 * pulled up or have conditions pushed into them — subqueries in FROM, CTEs (inlined), set-operation arms, LATERAL
 * functions and VALUES — including their target lists, which pull-up substitutes into the conditions that name
 * their columns. A sublink inside such an expression is wholly exposed. What is not exposed: the target list, ORDER
 * BY, GROUP BY, DISTINCT, window clauses and LIMIT of the statement itself and of sublinks in those places, which
 * PostgreSQL evaluates only on rows that passed every condition below them (their own sublinks' conditions are
 * exposed again).
 *
 * <p><b>What is quiet.</b> Variables, parameters, constants, AND/OR/NOT, CASE, COALESCE, IS [NOT] NULL, boolean
 * tests, binary-compatible relabelling, COLLATE, ROW, field selection, one-dimensional ARRAY[...], SQL value functions
 * (current_user, ...), EXISTS / IN / ANY / ALL / ARRAY sublinks; and calls of functions and operators that are:
 * <ul>
 *   <li>built in (pg_catalog, OID below 16384) and {@code proleakproof} — PostgreSQL's own promise that the function
 *       raises no error and reveals nothing about its arguments beyond its result;</li>
 *   <li>or on {@link #REVIEWED}, each with its reason;</li>
 *   <li>or a regular-expression or LIKE operator ({@link #PATTERN_OPERATORS}) whose pattern is a constant that
 *       {@link QuietPatterns} accepts, under a deterministic collation (a nondeterministic one makes both raise an
 *       error, but only when reached).</li>
 * </ul>
 * Loud, among others: aggregates other than count and window functions in an exposed place (a transition function
 * may overflow),
 * casts through text ({@code relname::text::int} runs an input function that fails on a value), domain coercions
 * (a CHECK), subscripts, GREATEST/LEAST, multi-dimensional ARRAY, a scalar or row sublink (more than one row is an
 * error, unless {@link SingleRow} proves at most one), XML and JSON nodes, and every unknown tag.
 */
final class QuietQuals {

    /**
     * Built-in functions that are not marked leakproof but raise no error and take no time that depends on their
     * argument's value:
     * <ul>
     *   <li>{@code pg_*_is_visible(oid)}: a syscache lookup of the OID; NULL for an OID that does not exist (14 to
     *       18), never an error;</li>
     *   <li>{@code pg_backend_pid()}, {@code current_database()}, {@code current_schema()}, {@code pg_my_temp_schema()}:
     *       no argument, a value of the session;</li>
     *   <li>{@code unnest(array)} (also of a tsvector or multirange) and {@code generate_subscripts(array, dim)}: the
     *       elements or subscripts of a value, an empty set for a dimension it lacks; no error;</li>
     *   <li>the aggregate {@code count}: a 64-bit counter of the rows it is given. Every other aggregate is loud (a
     *       sum may overflow on a value).</li>
     * </ul>
     * Deliberately not here: {@code has_*_privilege} (an unknown privilege or role name in a column is an error),
     * {@code format_type} (a type's typmod output function is arbitrary code), {@code replace}, {@code quote_ident},
     * {@code btrim}, {@code string_to_array}, {@code parse_ident} and {@code regclass(text)} (errors or memory that
     * grow with the value), {@code lower}/{@code upper} (not needed by any client measured).
     */
    static final Set<String> REVIEWED = Set.of("pg_table_is_visible", "pg_type_is_visible",
            "pg_function_is_visible", "pg_operator_is_visible", "pg_opclass_is_visible", "pg_opfamily_is_visible",
            "pg_collation_is_visible", "pg_conversion_is_visible", "pg_statistics_obj_is_visible",
            "pg_ts_parser_is_visible", "pg_ts_dict_is_visible", "pg_ts_template_is_visible",
            "pg_ts_config_is_visible", "pg_backend_pid", "current_database", "current_schema", "pg_my_temp_schema",
            "unnest", "generate_subscripts", "count");

    /** The functions behind the regular-expression operators ({@code ~ !~ ~* !~*}) on text, name and char(n). */
    static final Set<String> REGEX_FUNCTIONS = Set.of("textregexeq", "textregexne", "texticregexeq",
            "texticregexne", "nameregexeq", "nameregexne", "nameicregexeq", "nameicregexne", "bpcharregexeq",
            "bpcharregexne", "bpchar_regexeq", "bpchar_regexne", "bpcharicregexeq", "bpcharicregexne");

    /** The functions behind LIKE and ILIKE ({@code ~~ !~~ ~~* !~~*}) on text, name and char(n). */
    static final Set<String> LIKE_FUNCTIONS = Set.of("textlike", "textnlike", "texticlike", "texticnlike",
            "namelike", "namenlike", "nameiclike", "nameicnlike", "bpcharlike", "bpcharnlike", "bpchariclike",
            "bpcharicnlike");

    /** DEFAULT, C and POSIX (pg_collation.dat, pinned): deterministic, so patterns never raise an error for them. */
    private static final Set<Long> DETERMINISTIC = Set.of(0L, 100L, 950L, 951L);
    private static final long TEXT = 25;
    /** SubLinkType: EXISTS, ALL, ANY and ARRAY never fail on the number of rows; EXPR, ROWCOMPARE, MULTIEXPR do. */
    private static final Set<Long> QUIET_SUBLINKS = Set.of(0L, 1L, 2L, 6L);
    /** SubLinkType EXPR_SUBLINK: a scalar subquery, an error when it returns more than one row. */
    private static final long EXPR_SUBLINK = 4;
    /** RTEKind RTE_SUBQUERY. */
    static final long RTE_SUBQUERY = 1;

    /** Tags that compute nothing that can fail beyond what their children compute. */
    private static final Set<String> PLAIN = Set.of("VAR", "CONST", "PARAM", "BOOLEXPR", "CASE", "CASEEXPR", "WHEN",
            "CASEWHEN", "CASETESTEXPR", "COALESCE", "COALESCEEXPR", "NULLTEST", "BOOLEANTEST", "RELABELTYPE",
            "COLLATE", "COLLATEEXPR", "ROW", "ROWEXPR", "FIELDSELECT", "SQLVALUEFUNCTION", "TARGETENTRY", "FROMEXPR",
            "JOINEXPR", "RANGETBLREF", "ALIAS", "RTE", "RANGETBLENTRY", "RTEPERMISSIONINFO", "RANGETBLFUNCTION",
            "SORTGROUPCLAUSE", "GROUPINGSET", "WINDOWCLAUSE", "COMMONTABLEEXPR", "SETOPERATIONSTMT",
            "ARRAYCOERCEEXPR", "QUERY");

    /** Query fields evaluated only on rows that passed every condition of the query. */
    private static final Set<String> AFTER_CONDITIONS = Set.of("targetList", "sortClause", "groupClause",
            "groupingSets", "distinctClause", "windowClause", "limitOffset", "limitCount");

    /** A call the statement makes in an exposed place. */
    private record Call(boolean operator, long oid, TreeValue.Node node) {
    }

    private final CatalogFilters filters;
    private final List<Call> calls = new ArrayList<>();
    private String loud;

    private QuietQuals(CatalogFilters filters) {
        this.filters = filters;
    }

    /**
     * The reason the client's query (the one subquery of the check function's query {@code checkQuery}) may observe a
     * hidden row if its filters were unfenced, or null when it cannot. Reads the functions it calls in exposed places
     * on {@code connection}, whose search_path must be pg_catalog's.
     */
    static String loudness(TreeValue checkQuery, Connection connection, CatalogFilters filters) throws SQLException {
        QuietQuals q = new QuietQuals(filters);
        TreeValue.Node client = clientQuery(checkQuery);
        if (client == null) {
            return "the statement's query was not found in the check function";
        }
        q.query(client, false);
        if (q.loud != null) {
            return q.loud;
        }
        return q.judgeCalls(connection);
    }

    /** The check's query is {@code SELECT 1 FROM (client query) AS pgward_query}: its one subquery RTE. */
    private static TreeValue.Node clientQuery(TreeValue tree) {
        TreeValue top = tree instanceof TreeValue.NodeList l && l.items().size() == 1 ? l.items().get(0) : tree;
        if (!(top instanceof TreeValue.Node view) || !view.tag().equals("QUERY")
                || !(view.field("rtable").orElse(null) instanceof TreeValue.NodeList rtable)) {
            return null;
        }
        TreeValue.Node found = null;
        for (TreeValue item : rtable.items()) {
            if (item instanceof TreeValue.Node rte && rte.number("rtekind") == RTE_SUBQUERY) {
                if (found != null || !(rte.field("subquery").orElse(null) instanceof TreeValue.Node sub)) {
                    return null;
                }
                found = sub;
            }
        }
        return found;
    }

    private void query(TreeValue.Node query, boolean exposed) {
        for (Map.Entry<String, TreeValue> field : query.fields().entrySet()) {
            visit(field.getValue(), exposed || !AFTER_CONDITIONS.contains(field.getKey()));
        }
    }

    private void visit(TreeValue value, boolean exposed) {
        if (loud != null) {
            return;
        }
        if (value instanceof TreeValue.NodeList list) {
            list.items().forEach(item -> visit(item, exposed));
            return;
        }
        if (!(value instanceof TreeValue.Node node)) {
            return;
        }
        if (node.tag().equals("QUERY")) {
            query(node, exposed);
            return;
        }
        if (exposed) {
            judge(node);
        }
        for (TreeValue child : node.fields().values()) {
            visit(child, exposed);
        }
    }

    private void judge(TreeValue.Node node) {
        switch (node.tag()) {
            case "FUNCEXPR" -> calls.add(new Call(false, node.number("funcid"), node));
            case "AGGREF" -> calls.add(new Call(false, node.number("aggfnoid"), node));
            case "OPEXPR", "DISTINCTEXPR", "NULLIFEXPR", "SCALARARRAYOPEXPR" ->
                    calls.add(new Call(true, node.number("opno"), node));
            case "ROWCOMPARE", "ROWCOMPAREEXPR" -> {
                if (node.field("opnos").orElse(null) instanceof TreeValue.NumberList opnos) {
                    opnos.values().forEach(op -> calls.add(new Call(true, op, node)));
                } else {
                    loud = "a row comparison it cannot read";
                }
            }
            case "SUBLINK" -> {
                if (!QUIET_SUBLINKS.contains(node.number("subLinkType"))
                        && !(node.number("subLinkType") == EXPR_SUBLINK
                        && node.field("subselect").orElse(null) instanceof TreeValue.Node sub
                        && SingleRow.proven(sub, filters))) {
                    loud = "a scalar subquery in a condition (more than one row is an error)";
                }
            }
            case "ARRAY", "ARRAYEXPR" -> {
                if ("true".equals(node.scalar("multidims"))) {
                    loud = "a multi-dimensional ARRAY in a condition";
                }
            }
            default -> {
                if (!PLAIN.contains(node.tag())) {
                    loud = "a " + node.tag().toLowerCase(java.util.Locale.ROOT) + " node in a condition";
                }
            }
        }
    }

    private record Proc(String name, boolean leakproof, boolean builtIn) {
    }

    private String judgeCalls(Connection connection) throws SQLException {
        if (calls.isEmpty()) {
            return null;
        }
        Set<Long> functions = new LinkedHashSet<>();
        Set<Long> operators = new LinkedHashSet<>();
        for (Call c : calls) {
            (c.operator() ? operators : functions).add(c.oid());
        }
        Map<String, Proc> procs = procs(connection, functions, operators);
        for (Call c : calls) {
            Proc p = procs.get((c.operator() ? "o" : "f") + c.oid());
            if (p == null || !p.builtIn()) {
                return "a call of a function that is not built in (" + c.oid() + ")";
            }
            if (!quiet(c, p)) {
                return "a call of " + p.name() + " in a condition";
            }
        }
        return null;
    }

    private static boolean quiet(Call call, Proc proc) {
        if (REGEX_FUNCTIONS.contains(proc.name()) || LIKE_FUNCTIONS.contains(proc.name())) {
            return call.node().tag().equals("OPEXPR") && DETERMINISTIC.contains(call.node().number("inputcollid"))
                    && pattern(call.node(), REGEX_FUNCTIONS.contains(proc.name()));
        }
        return proc.leakproof() || REVIEWED.contains(proc.name()) && !call.operator();
    }

    /** The operator's second argument is a constant text pattern that runs in bounded time and cannot fail. */
    private static boolean pattern(TreeValue.Node opExpr, boolean regex) {
        if (!(opExpr.field("args").orElse(null) instanceof TreeValue.NodeList args) || args.items().size() != 2
                || !(uncollated(args.items().get(1)) instanceof TreeValue.Node constant)
                || !constant.tag().equals("CONST")
                || constant.number("consttype") != TEXT || !"false".equals(constant.scalar("constisnull"))
                || !(constant.field("constvalue").orElse(null) instanceof TreeValue.Datum datum)) {
            return false;
        }
        String text = QuietPatterns.asciiText(datum);
        return text != null && (regex ? QuietPatterns.regex(text) : QuietPatterns.like(text));
    }

    /** The value under {@code COLLATE} clauses (psql writes {@code '^(orders)$' COLLATE pg_catalog.default}). */
    private static TreeValue uncollated(TreeValue value) {
        TreeValue v = value;
        while (v instanceof TreeValue.Node n && (n.tag().equals("COLLATE") || n.tag().equals("COLLATEEXPR"))) {
            v = n.field("arg").orElse(null);
        }
        return v;
    }

    /** pg_proc rows by "f" + function OID and "o" + operator OID (the operator's function). */
    private static Map<String, Proc> procs(Connection connection, Set<Long> functions, Set<Long> operators)
            throws SQLException {
        Map<String, Proc> out = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement("""
                SELECT 'f' OPERATOR(pg_catalog.||) p.oid::pg_catalog.text, p.proname, p.proleakproof,
                       p.oid OPERATOR(pg_catalog.<) 16384 AND p.pronamespace OPERATOR(pg_catalog.=) 11
                FROM pg_catalog.pg_proc p WHERE p.oid OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.oid[]))
                UNION ALL
                SELECT 'o' OPERATOR(pg_catalog.||) o.oid::pg_catalog.text, p.proname, p.proleakproof,
                       o.oid OPERATOR(pg_catalog.<) 16384 AND p.oid OPERATOR(pg_catalog.<) 16384
                       AND p.pronamespace OPERATOR(pg_catalog.=) 11
                FROM pg_catalog.pg_operator o JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) o.oprcode
                WHERE o.oid OPERATOR(pg_catalog.=) ANY (CAST(? AS pg_catalog.oid[]))""")) {
            ps.setObject(1, oids(functions), Types.OTHER);
            ps.setObject(2, oids(operators), Types.OTHER);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), new Proc(rs.getString(2), rs.getBoolean(3), rs.getBoolean(4)));
                }
            }
        }
        return out;
    }

    private static String oids(Set<Long> oids) {
        return oids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",", "{", "}"));
    }
}
