package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import io.pgward.guard.selection.VisibleCatalog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * L3's proof that a call of {@code current_schemas} answers only with schemas the login sees: it must be the call
 * of pgward's subquery ({@link SchemaPathCalls#wrapper}) over the names of this login's visible schemas, node for
 * node the tree PostgreSQL made of that text with the same names, only the call's argument and the column's name
 * free. {@code current_schema()} itself is never proven: it is served as the first element of such a subquery.
 *
 * <p>The visible schemas are those the filtered pg_namespace shows ({@link VisibleCatalog#namespace}): pg_catalog,
 * information_schema and the schemas of visible relations, types and collations; their names are read in the
 * check's snapshot, and a rename changes the schema fingerprint, so no served text outlives them. The session's own
 * temporary schema is kept as well (a database without the hidden schemas has it too).
 *
 * <p>One case has no rewrite: {@code pg_temp} on search_path after an entry the login does not see. PostgreSQL
 * creates the session's temporary schema when {@code pg_temp} comes first among the entries that exist, and then
 * lists it; with a hidden schema before {@code pg_temp} it does not, where a database without that schema would.
 * Whether to refuse is decided on the path and the visible names alone, so a hidden and an absent schema get the same
 * refusal. One instance serves one check; it reads nothing until a statement calls one of the two functions.
 */
final class SchemaPathProof {

    private static final String VIEW = "pgward_schema_path_reference";
    private static final long RTE_SUBQUERY = 1;

    private final Connection connection;
    private final VisibleCatalog visible;
    private final String searchPath;
    private String names;
    private Boolean rewritable;
    private TreeValue.Node reference;

    SchemaPathProof(Connection connection, VisibleCatalog visible, String searchPath) {
        this.connection = connection;
        this.visible = visible;
        this.searchPath = searchPath;
    }

    /**
     * Whether every use of {@code function} (current_schema or current_schemas) in {@code code} is proven; false for
     * any other function.
     */
    boolean allows(CatalogReader.Function function, References code) throws SQLException {
        if (function.oid() != SchemaPathCalls.CURRENT_SCHEMAS || code.otherFunctionUses.contains(function.oid())
                || !rewritable()) {
            return false;
        }
        boolean called = false;
        for (References.Call call : code.calls) {
            if (call.function() == function.oid()) {
                called = true;
                if (!proven(call)) {
                    return false;
                }
            }
        }
        return called;
    }

    /**
     * For the statement's own refusal of one of the two functions, the refusal the serving rewrite reads
     * ({@link CatalogRefusals#schemaPath}); any other refusal, or one with no rewrite, as it is.
     */
    Verdict.Refuse serving(Verdict.Refuse refusal) throws SQLException {
        boolean ours = refusal.equals(CatalogRefusals.deniedBuiltIn("current_schema"))
                || refusal.equals(CatalogRefusals.deniedBuiltIn("current_schemas"));
        return ours && rewritable() ? CatalogRefusals.schemaPath(refusal, names()) : refusal;
    }

    /** The names constant of the login's visible schemas ({@link SchemaPathCalls#namesConstant}). */
    private String names() throws SQLException {
        if (names == null) {
            List<String> found = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement("SELECT n.nspname::pg_catalog.text FROM "
                    + "pg_catalog.pg_namespace n WHERE n.oid OPERATOR(pg_catalog.=) ANY (?::pg_catalog.oid[])")) {
                ps.setObject(1, visible.oids(VisibleCatalog.Catalog.PG_NAMESPACE).stream().mapToObj(Long::toString)
                        .collect(Collectors.joining(",", "{", "}")), Types.OTHER);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(rs.getString(1));
                    }
                }
            }
            names = SchemaPathCalls.namesConstant(found);
            rewritable = !tempAfterUnseen(found);
        }
        return names;
    }

    private boolean rewritable() throws SQLException {
        names();
        return rewritable;
    }

    /**
     * Whether {@code pg_temp} follows an entry of search_path that is not a visible schema's name ({@code $user}
     * counts as one: which schema it names depends on the role).
     */
    private boolean tempAfterUnseen(List<String> visibleNames) {
        boolean unseen = false;
        for (String entry : CatalogRewrite.SearchPath.schemas(searchPath)) {
            if (entry.equals("pg_temp")) {
                return unseen;
            }
            unseen |= !visibleNames.contains(entry);
        }
        return false;
    }

    /**
     * Whether the call is the one pgward's subquery makes: the one column of the subquery that is the first range
     * table entry of a Query that equals the reference once the call's arguments and the name of its first column
     * are taken from it.
     */
    private boolean proven(References.Call call) throws SQLException {
        if (call.scope() == null || call.scope().outer() == null) {
            return false;
        }
        TreeValue.Node query = call.scope().outer().query();
        if (answer(query) != call.expression()) {
            return false;
        }
        TreeValue.Node reference = reference();
        TreeValue.Node referenceCall = answer(reference);
        List<TreeValue> targets = items(query.field("targetList").orElse(TreeValue.Null.INSTANCE));
        List<TreeValue> referenceTargets = items(reference.field("targetList").orElseThrow());
        // The column comes first; the answer the subquery groups by follows it as a junk entry.
        if (referenceCall == null || targets.size() != referenceTargets.size()
                || !(targets.getFirst() instanceof TreeValue.Node target)) {
            return false;
        }
        Map<TreeValue.Node, TreeValue.Node> replaced = new IdentityHashMap<>();
        replaced.put(call.expression(), with(call.expression(), "args", referenceCall.field("args").orElseThrow()));
        replaced.put(target, with(target, "resname",
                ((TreeValue.Node) referenceTargets.getFirst()).field("resname").orElseThrow()));
        return SameTree.equal(replace(query, replaced), reference);
    }

    /** The call that is the one column of the subquery that is the Query's first range table entry, or null. */
    private static TreeValue.Node answer(TreeValue.Node query) {
        List<TreeValue> rtable = items(query.field("rtable").orElse(TreeValue.Null.INSTANCE));
        if (rtable.isEmpty() || !(rtable.getFirst() instanceof TreeValue.Node rte)
                || rte.number("rtekind") != RTE_SUBQUERY
                || !(rte.field("subquery").orElse(null) instanceof TreeValue.Node subquery)) {
            return null;
        }
        List<TreeValue> targets = items(subquery.field("targetList").orElse(TreeValue.Null.INSTANCE));
        if (targets.size() != 1 || !(targets.getFirst() instanceof TreeValue.Node target)
                || !(target.field("expr").orElse(null) instanceof TreeValue.Node call)
                || !call.tag().equals("FUNCEXPR")) {
            return null;
        }
        return call;
    }

    /** The subquery's Query as PostgreSQL makes it of {@link SchemaPathCalls#wrapper} with this login's names. */
    private TreeValue.Node reference() throws SQLException {
        if (reference == null) {
            String tree;
            try (Statement s = connection.createStatement()) {
                s.setEscapeProcessing(false);
                s.execute("CREATE TEMPORARY VIEW " + VIEW + " AS SELECT "
                        + SchemaPathCalls.wrapper("false", "current_schemas", names()));
                try (ResultSet rs = s.executeQuery("SELECT r.ev_action::pg_catalog.text FROM pg_catalog.pg_rewrite r "
                        + "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r.ev_class WHERE c.relname "
                        + "OPERATOR(pg_catalog.=) '" + VIEW + "' AND c.relnamespace OPERATOR(pg_catalog.=) "
                        + "pg_catalog.pg_my_temp_schema()")) {
                    if (!rs.next()) {
                        throw new SQLException("the schema path reference view's rule is missing");
                    }
                    tree = rs.getString(1);
                }
                s.execute("DROP VIEW " + VIEW);
            }
            List<TreeValue> actions = items(NodeTreeParser.parse(tree));
            if (actions.size() != 1 || !(actions.getFirst() instanceof TreeValue.Node view)
                    || !(items(view.field("targetList").orElseThrow()).getFirst() instanceof TreeValue.Node entry)
                    || !(entry.field("expr").orElseThrow() instanceof TreeValue.Node sublink)
                    || !(sublink.field("subselect").orElseThrow() instanceof TreeValue.Node query)
                    || !query.tag().equals("QUERY")) {
                throw new NodeTreeException("the schema path reference view is not one scalar subquery");
            }
            reference = query;
        }
        return reference;
    }

    private static TreeValue.Node with(TreeValue.Node node, String field, TreeValue value) {
        Map<String, TreeValue> fields = new LinkedHashMap<>(node.fields());
        fields.put(field, value);
        return new TreeValue.Node(node.tag(), fields);
    }

    /** A copy of {@code tree} with the nodes {@code replaced} maps (by identity) put in their place. */
    private static TreeValue replace(TreeValue tree, Map<TreeValue.Node, TreeValue.Node> replaced) {
        return switch (tree) {
            case TreeValue.Node node -> {
                TreeValue.Node put = replaced.get(node);
                if (put != null) {
                    yield put;
                }
                Map<String, TreeValue> fields = new LinkedHashMap<>();
                node.fields().forEach((name, value) -> fields.put(name, replace(value, replaced)));
                yield new TreeValue.Node(node.tag(), fields);
            }
            case TreeValue.NodeList list -> new TreeValue.NodeList(list.items().stream()
                    .map(item -> replace(item, replaced)).toList());
            default -> tree;
        };
    }

    private static List<TreeValue> items(TreeValue value) {
        return value instanceof TreeValue.NodeList list ? list.items() : List.of();
    }
}
