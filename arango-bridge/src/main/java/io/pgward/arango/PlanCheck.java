package io.pgward.arango;

import com.arangodb.entity.AqlQueryExplainEntity;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The authoritative read-only test: what ArangoDB's optimizer says the statement will do. Three independent
 * signals, any one of which refuses:
 * <ol>
 *   <li>a write node: InsertNode, UpdateNode, ReplaceNode, RemoveNode, UpsertNode, or what a cluster coordinator
 *       turns them into, MultipleRemoteModificationNode and SingleRemoteOperationNode (the latter also serves
 *       single-document reads by key, which its {@code mode} of IndexNode tells apart);</li>
 *   <li>{@code isModificationQuery} true, or absent (a plan that does not say is not trusted);</li>
 *   <li>a collection in {@code plan.collections} used other than for reading.</li>
 * </ol>
 * Nodes of subqueries are looked at too, both the flat SubqueryStart/End form of 3.8+ and the nested
 * {@code subquery.nodes} of older servers.
 */
final class PlanCheck {

    static final Set<String> WRITE_NODES = Set.of("InsertNode", "UpdateNode", "ReplaceNode", "RemoveNode",
            "UpsertNode", "MultipleRemoteModificationNode");
    static final String SINGLE_REMOTE_OPERATION = "SingleRemoteOperationNode";
    private static final Set<String> SINGLE_REMOTE_READ_MODES = Set.of("IndexNode", "Index");

    private PlanCheck() {
    }

    /** Empty when the plan only reads; otherwise why it does not. */
    static Optional<String> writeEvidence(AqlQueryExplainEntity.ExecutionPlan plan) {
        if (plan == null || plan.getNodes() == null || plan.getNodes().isEmpty()) {
            return Optional.of("ArangoDB returned no execution plan to check");
        }
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (AqlQueryExplainEntity.ExecutionNode node : plan.getNodes()) {
            nodes.add(nodeProperties(node));
        }
        Optional<String> node = writeNode(nodes);
        if (node.isPresent()) {
            return node;
        }
        Object modification = plan.get("isModificationQuery");
        if (!Boolean.FALSE.equals(modification)) {
            return Optional.of(modification == null
                    ? "the plan does not say whether the query modifies data"
                    : "the plan is a data-modification query");
        }
        Collection<AqlQueryExplainEntity.ExecutionCollection> collections = plan.getCollections();
        if (collections != null) {
            for (AqlQueryExplainEntity.ExecutionCollection c : collections) {
                if (!"read".equals(c.get("type"))) {
                    return Optional.of("the plan uses collection " + c.get("name") + " for " + c.get("type"));
                }
            }
        }
        return Optional.empty();
    }

    private static Map<String, Object> nodeProperties(AqlQueryExplainEntity.ExecutionNode node) {
        Map<String, Object> properties = new HashMap<>();
        for (String key : List.of("type", "mode", "collection", "subquery")) {
            Object value = node.get(key);
            if (value != null) {
                properties.put(key, value);
            }
        }
        return properties;
    }

    private static Optional<String> writeNode(Collection<?> nodes) {
        for (Object item : nodes) {
            if (!(item instanceof Map<?, ?> node)) {
                return Optional.of("the plan has a node pgward cannot read");
            }
            Object type = node.get("type");
            if (!(type instanceof String typeName)) {
                return Optional.of("the plan has a node without a type");
            }
            if (WRITE_NODES.contains(typeName)) {
                return Optional.of("the plan contains " + typeName + onCollection(node));
            }
            if (SINGLE_REMOTE_OPERATION.equals(typeName) && !SINGLE_REMOTE_READ_MODES.contains(node.get("mode"))) {
                return Optional.of("the plan contains " + typeName + " in mode " + node.get("mode")
                        + onCollection(node));
            }
            if (node.get("subquery") instanceof Map<?, ?> subquery && subquery.get("nodes") instanceof Collection<?> inner) {
                Optional<String> nested = writeNode(inner);
                if (nested.isPresent()) {
                    return nested;
                }
            }
        }
        return Optional.empty();
    }

    private static String onCollection(Map<?, ?> node) {
        Object collection = node.get("collection");
        return collection == null ? "" : " on collection " + collection;
    }
}
