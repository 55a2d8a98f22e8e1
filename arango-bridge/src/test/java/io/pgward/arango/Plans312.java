package io.pgward.arango;

/**
 * EXPLAIN plans in the shape ArangoDB 3.12 answers them ({@code POST /_api/explain}, {@code plan} member): nodes
 * with {@code typeID}, expressions as AST objects with {@code typeID} and {@code subNodes}, subqueries spliced into
 * the flat node list (SubqueryStartNode ... SubqueryEndNode), and the coordinator's plans of a cluster.
 */
final class Plans312 {

    private Plans312() {
    }

    static String value(int n) {
        return "{\"type\":\"value\",\"typeID\":40,\"value\":" + n + ",\"vType\":\"int\",\"vTypeID\":2}";
    }

    static String string(String s) {
        return "{\"type\":\"value\",\"typeID\":40,\"value\":\"" + s + "\",\"vType\":\"string\",\"vTypeID\":4}";
    }

    static String array(String... members) {
        return "{\"type\":\"array\",\"typeID\":41,\"subNodes\":[" + String.join(",", members) + "]}";
    }

    static String call(String function, String... arguments) {
        return "{\"type\":\"function call\",\"typeID\":47,\"name\":\"" + function + "\",\"subNodes\":["
                + array(arguments) + "]}";
    }

    static String userCall(String function, String... arguments) {
        return "{\"type\":\"user function call\",\"typeID\":48,\"name\":\"" + function + "\",\"subNodes\":["
                + array(arguments) + "]}";
    }

    static String reference(int id, String name) {
        return "{\"type\":\"reference\",\"typeID\":45,\"name\":\"" + name + "\",\"id\":" + id + "}";
    }

    static String attribute(String name, String of) {
        return "{\"type\":\"attribute access\",\"typeID\":35,\"name\":\"" + name + "\",\"subNodes\":[" + of + "]}";
    }

    static String collection(String name) {
        return "{\"type\":\"collection\",\"typeID\":44,\"name\":\"" + name + "\"}";
    }

    /** {@code RETURN <expression>}: Singleton, Calculation, Return. */
    static String returning(String expression) {
        return """
                {"nodes":[
                  {"type":"SingletonNode","typeID":1,"dependencies":[],"id":1,"parents":[2],"estimatedCost":1,
                   "estimatedNrItems":1},
                  {"type":"CalculationNode","typeID":7,"dependencies":[1],"id":2,"parents":[3],"estimatedCost":2,
                   "estimatedNrItems":1,"expression":%s,"outVariable":{"id":0,"name":"0",
                   "isFullDocumentFromCollection":false,"isDataFromCollection":false},"canThrow":false,
                   "expressionType":"simple"},
                  {"type":"ReturnNode","typeID":18,"dependencies":[2],"id":3,"parents":[],"estimatedCost":3,
                   "estimatedNrItems":1,"inVariable":{"id":0,"name":"0"},"count":true}],
                 "rules":[],"collections":[],"variables":[{"id":0,"name":"0","isFullDocumentFromCollection":false,
                 "isDataFromCollection":false}],"estimatedCost":3,"estimatedNrItems":1,"isModificationQuery":false}"""
                .formatted(expression);
    }

    /** {@code FOR d IN <collection> FILTER <filter> RETURN d}, the filter moved into the enumeration. */
    static String scanning(String collection, String filter) {
        return """
                {"nodes":[
                  {"type":"SingletonNode","typeID":1,"dependencies":[],"id":1,"parents":[2],"estimatedCost":1,
                   "estimatedNrItems":1},
                  {"type":"EnumerateCollectionNode","typeID":6,"dependencies":[1],"id":2,"parents":[4],
                   "estimatedCost":5,"estimatedNrItems":3,"random":false,"indexHint":{"forced":false,"lookahead":1,
                   "type":"none"},"outVariable":{"id":0,"name":"d"},"projections":[],"filterProjections":[],
                   "count":false,"producesResult":true,"readOwnWrites":false,"useCache":true,"maxProjections":5,
                   "database":"shop","collection":"%s","satellite":false,"isSatellite":false,"isSatelliteOf":null,
                   "filter":%s},
                  {"type":"ReturnNode","typeID":18,"dependencies":[2],"id":4,"parents":[],"estimatedCost":8,
                   "estimatedNrItems":3,"inVariable":{"id":0,"name":"d"},"count":true}],
                 "rules":["move-filters-into-enumerate"],"collections":[{"name":"%s","type":"read"}],
                 "variables":[{"id":0,"name":"d"}],"estimatedCost":8,"estimatedNrItems":3,
                 "isModificationQuery":false}""".formatted(collection, filter, collection);
    }

    /**
     * {@code LET x = (<inner>) RETURN x} as 3.12 plans it: the subquery spliced between SubqueryStartNode and
     * SubqueryEndNode in the one node list.
     */
    static String splicedSubquery(String innerNodes, String collectionsJson, boolean modification) {
        return """
                {"nodes":[
                  {"type":"SingletonNode","typeID":1,"dependencies":[],"id":1,"parents":[6],"estimatedCost":1,
                   "estimatedNrItems":1},
                  {"type":"SubqueryStartNode","typeID":24,"dependencies":[1],"id":6,"parents":[2],
                   "estimatedCost":2,"estimatedNrItems":1},
                  %s,
                  {"type":"SubqueryEndNode","typeID":25,"dependencies":[3],"id":7,"parents":[5],
                   "estimatedCost":9,"estimatedNrItems":1,"inVariable":{"id":2,"name":"2"},
                   "outVariable":{"id":1,"name":"x"},"isModificationSubquery":%s},
                  {"type":"ReturnNode","typeID":18,"dependencies":[7],"id":5,"parents":[],"estimatedCost":10,
                   "estimatedNrItems":1,"inVariable":{"id":1,"name":"x"},"count":true}],
                 "rules":["splice-subqueries"],"collections":%s,"variables":[{"id":2,"name":"2"},
                 {"id":1,"name":"x"},{"id":0,"name":"u"}],"estimatedCost":10,"estimatedNrItems":1,
                 "isModificationQuery":%s}""".formatted(innerNodes, modification, collectionsJson, modification);
    }

    /** {@code FOR u IN users REMOVE u IN users}, as the nodes inside a spliced subquery. */
    static final String REMOVE_INSIDE = """
            {"type":"EnumerateCollectionNode","typeID":6,"dependencies":[6],"id":2,"parents":[3],"estimatedCost":5,
             "estimatedNrItems":3,"random":false,"outVariable":{"id":0,"name":"u"},"producesResult":true,
             "database":"shop","collection":"users","satellite":false},
            {"type":"RemoveNode","typeID":13,"dependencies":[2],"id":3,"parents":[7],"estimatedCost":8,
             "estimatedNrItems":3,"database":"shop","collection":"users","satellite":false,"countStats":true,
             "producesResults":false,"readCompleteInput":false,"modificationFlags":{"waitForSync":false,
             "ignoreErrors":false,"exclusive":false},"inVariable":{"id":0,"name":"u"}}""";

    /** A coordinator's read of users: the enumeration runs on DB servers, behind Remote and Gather. */
    static final String CLUSTER_READ = """
            {"nodes":[
              {"type":"SingletonNode","typeID":1,"dependencies":[],"id":1,"parents":[2],"estimatedCost":1,
               "estimatedNrItems":1},
              {"type":"EnumerateCollectionNode","typeID":6,"dependencies":[1],"id":2,"parents":[6],
               "estimatedCost":5,"estimatedNrItems":3,"random":false,"outVariable":{"id":0,"name":"u"},
               "producesResult":true,"database":"shop","collection":"users","satellite":false},
              {"type":"RemoteNode","typeID":9,"dependencies":[2],"id":6,"parents":[7],"estimatedCost":8,
               "estimatedNrItems":3,"database":"shop","server":"","ownName":"","queryId":""},
              {"type":"GatherNode","typeID":10,"dependencies":[6],"id":7,"parents":[3],"estimatedCost":11,
               "estimatedNrItems":3,"elements":[],"sortmode":"unset","parallelism":"parallel"},
              {"type":"ReturnNode","typeID":18,"dependencies":[7],"id":3,"parents":[],"estimatedCost":14,
               "estimatedNrItems":3,"inVariable":{"id":0,"name":"u"},"count":true}],
             "rules":["scatter-in-cluster","remove-unnecessary-remote-scatter","parallelize-gather"],
             "collections":[{"name":"users","type":"read"}],"variables":[{"id":0,"name":"u"}],
             "estimatedCost":14,"estimatedNrItems":3,"isModificationQuery":false}""";

    /** A coordinator's {@code FOR d IN [...] INSERT d INTO users}: Distribute, then the insert on DB servers. */
    static final String CLUSTER_DISTRIBUTED_INSERT = """
            {"nodes":[
              {"type":"SingletonNode","typeID":1,"dependencies":[],"id":1,"parents":[2],"estimatedCost":1,
               "estimatedNrItems":1},
              {"type":"CalculationNode","typeID":7,"dependencies":[1],"id":2,"parents":[3],"estimatedCost":2,
               "estimatedNrItems":1,"expression":{"type":"array","typeID":41,"subNodes":[]},
               "outVariable":{"id":0,"name":"0"},"canThrow":false,"expressionType":"json"},
              {"type":"EnumerateListNode","typeID":8,"dependencies":[2],"id":3,"parents":[8],"estimatedCost":4,
               "estimatedNrItems":2,"inVariable":{"id":0,"name":"0"},"outVariable":{"id":1,"name":"d"}},
              {"type":"DistributeNode","typeID":12,"dependencies":[3],"id":8,"parents":[9],"estimatedCost":6,
               "estimatedNrItems":2,"database":"shop","collection":"users","variable":{"id":1,"name":"d"}},
              {"type":"RemoteNode","typeID":9,"dependencies":[8],"id":9,"parents":[10],"estimatedCost":8,
               "estimatedNrItems":2,"database":"shop"},
              {"type":"DistributeConsumer","typeID":28,"dependencies":[9],"id":10,"parents":[4],
               "estimatedCost":8,"estimatedNrItems":2,"distributeId":"8"},
              {"type":"InsertNode","typeID":14,"dependencies":[10],"id":4,"parents":[11],"estimatedCost":10,
               "estimatedNrItems":2,"database":"shop","collection":"users","satellite":false,
               "inVariable":{"id":1,"name":"d"}},
              {"type":"RemoteNode","typeID":9,"dependencies":[4],"id":11,"parents":[12],"estimatedCost":12,
               "estimatedNrItems":2,"database":"shop"},
              {"type":"GatherNode","typeID":10,"dependencies":[11],"id":12,"parents":[],"estimatedCost":14,
               "estimatedNrItems":2,"elements":[]}],
             "rules":["distribute-in-cluster"],"collections":[{"name":"users","type":"write"}],
             "variables":[{"id":1,"name":"d"},{"id":0,"name":"0"}],"estimatedCost":14,"estimatedNrItems":2,
             "isModificationQuery":true}""";

    /**
     * {@code FOR v, e IN 1..2 OUTBOUND 'users/1' <graph>}: a TraversalNode with its edge and vertex collections
     * ({@code graph} is the graph's name for a named graph, the edge collections for an anonymous one).
     */
    static String traversal(String graphJson, String edgeCollections, String vertexCollections,
                            String collectionsJson) {
        return """
                {"nodes":[
                  {"type":"SingletonNode","typeID":1,"dependencies":[],"id":1,"parents":[2],"estimatedCost":1,
                   "estimatedNrItems":1},
                  {"type":"TraversalNode","typeID":22,"dependencies":[1],"id":2,"parents":[3],"estimatedCost":9,
                   "estimatedNrItems":4,"database":"shop","graph":%s,"isLocalGraphNode":false,
                   "isUsedAsSatellite":false,"defaultDirection":2,"directions":[2],"edgeCollections":%s,
                   "vertexCollections":%s,"collectionToShard":{},"isSmart":false,"isDisjoint":false,
                   "vertexOutVariable":{"id":0,"name":"v"},"vertexId":"users/1","options":{"minDepth":1,
                   "maxDepth":2,"parallelism":1,"uniqueVertices":"none","uniqueEdges":"path","order":"dfs"}},
                  {"type":"ReturnNode","typeID":18,"dependencies":[2],"id":3,"parents":[],"estimatedCost":13,
                   "estimatedNrItems":4,"inVariable":{"id":0,"name":"v"},"count":true}],
                 "rules":[],"collections":%s,"variables":[{"id":0,"name":"v"}],"estimatedCost":13,
                 "estimatedNrItems":4,"isModificationQuery":false}"""
                .formatted(graphJson, edgeCollections, vertexCollections, collectionsJson);
    }
}
