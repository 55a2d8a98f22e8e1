package io.pgward.arango;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The authoritative read-only test: what ArangoDB's optimizer says the statement will do, read from the
 * {@code plan} object of {@code POST /_api/explain}. Any one of these refuses:
 * <ol>
 *   <li>a node type pgward does not know ({@link #READ_NODES} lists the ones that only read or move rows);</li>
 *   <li>a write node: InsertNode, UpdateNode, ReplaceNode, RemoveNode, UpsertNode, or what a cluster coordinator
 *       turns them into, MultipleRemoteModificationNode and SingleRemoteOperationNode (the latter also serves
 *       single-document reads by key, which its {@code mode} of IndexNode tells apart);</li>
 *   <li>an expression that calls a user-defined function, CALL or APPLY, reads a collection named at run time,
 *       or is of a type pgward does not know ({@link ExpressionCheck}), in any node and at any depth;</li>
 *   <li>a traversal or path search whose vertex collections the plan does not list (it could then reach any
 *       collection through an edge);</li>
 *   <li>{@code isModificationQuery} true, or absent (a plan that does not say is not trusted);</li>
 *   <li>a collection in {@code plan.collections} used other than for reading.</li>
 * </ol>
 * Subqueries are looked at too, both the spliced SubqueryStartNode/SubqueryEndNode form of 3.8+ (their nodes
 * are in the flat list) and the nested {@code subquery.nodes} of older servers. Every collection, view and
 * named graph's collection the plan mentions is collected into the {@link PlanFacts}, for the login's selection.
 */
final class PlanCheck {

    static final Set<String> WRITE_NODES = Set.of("InsertNode", "UpdateNode", "ReplaceNode", "RemoveNode",
            "UpsertNode", "MultipleRemoteModificationNode");
    static final String SINGLE_REMOTE_OPERATION = "SingleRemoteOperationNode";
    private static final Set<String> SINGLE_REMOTE_READ_MODES = Set.of("IndexNode", "Index");

    /** ExecutionNode types of ArangoDB 3.12 that read, compute or move rows (cluster nodes included). */
    static final Set<String> READ_NODES = Set.of("SingletonNode", "EnumerateCollectionNode", "EnumerateListNode",
            "IndexNode", "JoinNode", "LimitNode", "CalculationNode", "SubqueryNode", "SubqueryStartNode",
            "SubqueryEndNode", "FilterNode", "SortNode", "CollectNode", "WindowNode", "ReturnNode",
            "NoResultsNode", "TraversalNode", "ShortestPathNode", "EnumeratePathsNode", "KShortestPathsNode",
            "EnumerateViewNode", "MaterializeNode", "OffsetMaterializeNode", "RemoteNode", "ScatterNode",
            "DistributeNode", "GatherNode", "DistributeConsumer", "AsyncNode", "MutexNode",
            SINGLE_REMOTE_OPERATION);

    /** Nodes that walk a graph and fetch vertices by the ids edges point to. */
    private static final Set<String> GRAPH_NODES = Set.of("TraversalNode", "ShortestPathNode",
            "EnumeratePathsNode", "KShortestPathsNode");

    /** Keys of a plan node whose value is an expression (ArangoDB's AST). */
    private static final Set<String> EXPRESSION_KEYS = Set.of("expression", "condition", "filter",
            "pruneExpression", "postFilterExpression");

    private static final int MAX_DEPTH = 200;

    private PlanCheck() {
    }

    /** The facts of {@code plan} (the {@code plan} member of EXPLAIN's answer); null or empty plans refuse. */
    static PlanFacts read(JsonNode plan) {
        if (plan == null || !plan.path("nodes").isArray() || plan.path("nodes").isEmpty()) {
            return PlanFacts.refused("ArangoDB returned no execution plan to check");
        }
        Set<String> dataSources = new HashSet<>();
        Optional<String> node = nodes(plan.get("nodes"), dataSources, 0);
        if (node.isPresent()) {
            return PlanFacts.refused(node.get());
        }
        JsonNode modification = plan.get("isModificationQuery");
        if (modification == null || !modification.isBoolean() || modification.booleanValue()) {
            return PlanFacts.refused(modification == null || !modification.isBoolean()
                    ? "the plan does not say whether the query modifies data"
                    : "the plan is a data-modification query");
        }
        JsonNode collections = plan.path("collections");
        if (!collections.isMissingNode() && !collections.isArray()) {
            return PlanFacts.refused("the plan's collections cannot be read");
        }
        for (JsonNode c : collections) {
            String name = c.path("name").asText("");
            if (name.isEmpty()) {
                return PlanFacts.refused("the plan uses a collection without a name");
            }
            if (!"read".equals(c.path("type").asText())) {
                return PlanFacts.refused("the plan uses collection " + name + " for " + c.path("type").asText());
            }
            dataSources.add(name);
        }
        return new PlanFacts(Optional.empty(), dataSources);
    }

    private static Optional<String> nodes(JsonNode nodes, Set<String> dataSources, int depth) {
        if (depth > MAX_DEPTH) {
            return Optional.of("the plan is nested deeper than pgward reads");
        }
        for (JsonNode node : nodes) {
            Optional<String> refusal = node(node, dataSources, depth);
            if (refusal.isPresent()) {
                return refusal;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> node(JsonNode node, Set<String> dataSources, int depth) {
        if (!node.isObject()) {
            return Optional.of("the plan has a node pgward cannot read");
        }
        JsonNode type = node.get("type");
        if (type == null || !type.isTextual()) {
            return Optional.of("the plan has a node without a type");
        }
        String typeName = type.textValue();
        if (WRITE_NODES.contains(typeName)) {
            return Optional.of("the plan contains " + typeName + onCollection(node));
        }
        if (SINGLE_REMOTE_OPERATION.equals(typeName)
                && !SINGLE_REMOTE_READ_MODES.contains(node.path("mode").asText())) {
            return Optional.of("the plan contains " + typeName + " in mode " + node.path("mode").asText("(none)")
                    + onCollection(node));
        }
        if (!READ_NODES.contains(typeName)) {
            return Optional.of("the plan contains " + typeName + ", a node pgward does not know");
        }
        if (GRAPH_NODES.contains(typeName)) {
            Optional<String> graph = graph(typeName, node, dataSources);
            if (graph.isPresent()) {
                return graph;
            }
        }
        return members(node, dataSources, depth);
    }

    /** Every member of a node: nested plans, expressions, and the collections and views it names. */
    private static Optional<String> members(JsonNode node, Set<String> dataSources, int depth) {
        if (depth > MAX_DEPTH) {
            return Optional.of("the plan is nested deeper than pgward reads");
        }
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            String key = field.getKey();
            JsonNode value = field.getValue();
            Optional<String> refusal = Optional.empty();
            if (key.equals("nodes") && value.isArray()) {
                refusal = nodes(value, dataSources, depth + 1);
            } else if (EXPRESSION_KEYS.contains(key) && value.isObject() && value.has("type")) {
                refusal = new ExpressionCheck(dataSources).check(value);
            } else if ((key.equals("collection") || key.equals("view")) && value.isTextual()) {
                dataSources.add(value.textValue());
            } else if (value.isObject()) {
                refusal = looksLikeExpression(value) ? new ExpressionCheck(dataSources).check(value)
                        : members(value, dataSources, depth + 1);
            } else if (value.isArray()) {
                for (JsonNode item : value) {
                    if (item.isObject()) {
                        refusal = looksLikeExpression(item) ? new ExpressionCheck(dataSources).check(item)
                                : members(item, dataSources, depth + 1);
                        if (refusal.isPresent()) {
                            break;
                        }
                    }
                }
            }
            if (refusal.isPresent()) {
                return refusal;
            }
        }
        return Optional.empty();
    }

    /**
     * An AST node wherever it sits (sort elements, aggregates, index conditions and options of newer servers
     * carry expressions under other keys): it has sub nodes, or its type is an expression type.
     */
    private static boolean looksLikeExpression(JsonNode value) {
        String type = value.path("type").asText("");
        return value.has("subNodes") || ExpressionCheck.KNOWN_TYPES.contains(type)
                || ExpressionCheck.USER_FUNCTION_CALL.equals(type);
    }

    /**
     * A traversal or path search reads its edge collections and the vertices the edges point to. ArangoDB lists
     * both ({@code edgeCollections}, {@code vertexCollections}); with no vertex collections listed, a vertex
     * of any collection could be fetched, so the plan is refused.
     */
    private static Optional<String> graph(String typeName, JsonNode node, Set<String> dataSources) {
        JsonNode vertices = node.path("vertexCollections");
        if (!vertices.isArray() || vertices.isEmpty()) {
            return Optional.of("the plan's " + typeName + " does not list its vertex collections, so it could "
                    + "reach any collection; name them with WITH at the start of the query, or use a named graph");
        }
        for (String key : new String[] {"vertexCollections", "edgeCollections"}) {
            for (JsonNode name : node.path(key)) {
                if (!name.isTextual()) {
                    return Optional.of("the plan's " + typeName + " lists a collection pgward cannot read");
                }
                dataSources.add(name.textValue());
            }
        }
        JsonNode definition = node.path("graphDefinition");
        for (String key : new String[] {"vertexCollectionNames", "edgeCollectionNames"}) {
            definition.path(key).forEach(name -> dataSources.add(name.asText()));
        }
        return Optional.empty();
    }

    private static String onCollection(JsonNode node) {
        JsonNode collection = node.get("collection");
        return collection == null || collection.isNull() ? "" : " on collection " + collection.asText();
    }
}
