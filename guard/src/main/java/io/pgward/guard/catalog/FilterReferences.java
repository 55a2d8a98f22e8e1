package io.pgward.guard.catalog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The parse trees PostgreSQL itself made of pgward's filter subqueries (design section 3.1: "obtained once per
 * selection by running the check on the filter alone"): what {@link FilterProof} compares a statement's subquery
 * with. Each reference carries every column a filter subquery may carry ({@link CatalogFilters.Filter#reference}), so
 * one tree per catalog serves every statement.
 *
 * <p>Read inside a catalog check's transaction, as the check's role, by storing all references in one temporary
 * view (rolled back with the check) and reading its rule back, exactly as the statement itself was read; so both
 * trees come from the same server, version and settings.
 */
final class FilterReferences {

    private static final String VIEW = "pgward_filter_reference";
    /** RTEKind RTE_RELATION and RTE_SUBQUERY in parsenodes.h. */
    private static final long RTE_RELATION = 0;
    private static final long RTE_SUBQUERY = 1;

    /**
     * @param query the filter subquery's Query
     * @param targets the expressions of its target list: each column a statement's filter subquery may carry
     */
    record Reference(TreeValue.Node query, List<TreeValue> targets) {
    }

    private final Map<Long, Reference> byRelid;

    private FilterReferences(Map<Long, Reference> byRelid) {
        this.byRelid = Collections.unmodifiableMap(byRelid);
    }

    /** The reference of the catalog relation with this OID, or null when it has none. */
    Reference of(long relid) {
        return byRelid.get(relid);
    }

    /**
     * Reads the references of {@code filters}; the connection must be in a transaction that may create a temporary
     * view and that is rolled back afterwards. Every name in the text is qualified, whatever the search_path.
     */
    static FilterReferences read(Connection connection, CatalogFilters filters) throws SQLException {
        List<String> items = new ArrayList<>();
        Map<String, CatalogFilters.Filter> byAlias = new HashMap<>();
        for (CatalogFilters.Filter filter : filters.all()) {
            items.add(filter.reference() + " AS " + CatalogFilters.quote(filter.catalog().relation()));
            byAlias.put(filter.catalog().relation(), filter);
        }
        String tree;
        try (Statement s = connection.createStatement()) {
            s.setEscapeProcessing(false);
            s.execute("CREATE TEMPORARY VIEW " + VIEW + " AS SELECT 1 FROM " + String.join(", ", items));
            try (ResultSet rs = s.executeQuery("SELECT r.ev_action::pg_catalog.text FROM pg_catalog.pg_rewrite r "
                    + "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r.ev_class WHERE c.relname "
                    + "OPERATOR(pg_catalog.=) '" + VIEW + "' AND c.relnamespace OPERATOR(pg_catalog.=) "
                    + "pg_catalog.pg_my_temp_schema()")) {
                if (!rs.next()) {
                    throw new SQLException("the filter reference view's rule is missing");
                }
                tree = rs.getString(1);
            }
            s.execute("DROP VIEW " + VIEW);
        }
        Map<Long, Reference> references = new HashMap<>();
        TreeValue.Node view = onlyQuery(NodeTreeParser.parse(tree));
        for (TreeValue item : items(view.field("rtable").orElse(TreeValue.Null.INSTANCE))) {
            if (!(item instanceof TreeValue.Node rte) || rte.number("rtekind") != RTE_SUBQUERY) {
                continue;
            }
            CatalogFilters.Filter filter = byAlias.get(aliasName(rte));
            if (filter != null && rte.field("subquery").orElse(null) instanceof TreeValue.Node query) {
                List<TreeValue> targets = new ArrayList<>();
                for (TreeValue entry : items(query.field("targetList").orElse(TreeValue.Null.INSTANCE))) {
                    targets.add(((TreeValue.Node) entry).field("expr").orElseThrow());
                }
                references.put(filter.relid(), new Reference(query, List.copyOf(targets)));
            }
        }
        if (references.size() != byAlias.size()) {
            throw new NodeTreeException("the filter reference view holds " + references.size() + " of "
                    + byAlias.size() + " filter subqueries");
        }
        return new FilterReferences(references);
    }

    /**
     * Whether {@code tree} has a range table entry of a covered catalog at any depth (PostgreSQL records no
     * dependency on a catalog relation, which is pinned, so the tree is where to look).
     */
    static boolean readsCovered(TreeValue tree, CatalogFilters filters) {
        return switch (tree) {
            case TreeValue.Node node -> (node.tag().equals("RTE") || node.tag().equals("RANGETBLENTRY"))
                    && node.number("rtekind") == RTE_RELATION && filters.byRelid(node.number("relid")) != null
                    || node.fields().values().stream().anyMatch(v -> readsCovered(v, filters));
            case TreeValue.NodeList list -> list.items().stream().anyMatch(v -> readsCovered(v, filters));
            default -> false;
        };
    }

    private static TreeValue.Node onlyQuery(TreeValue tree) {
        List<TreeValue> actions = items(tree);
        if (actions.size() != 1 || !(actions.getFirst() instanceof TreeValue.Node q) || !q.tag().equals("QUERY")) {
            throw new NodeTreeException("the filter reference view's rule is not one Query");
        }
        return q;
    }

    private static String aliasName(TreeValue.Node rte) {
        if (rte.field("alias").orElse(null) instanceof TreeValue.Node alias) {
            return switch (alias.field("aliasname").orElse(TreeValue.Null.INSTANCE)) {
                case TreeValue.Scalar s -> s.text();
                case TreeValue.Text t -> t.text();
                default -> null;
            };
        }
        return null;
    }

    private static List<TreeValue> items(TreeValue value) {
        return value instanceof TreeValue.NodeList list ? list.items() : List.of();
    }
}
