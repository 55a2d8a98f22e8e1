package io.pgward.arango;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.guard.SqlStates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SchemaReflectionTest {

    private FakeArango fake;
    private ArangoBridge bridge;

    @BeforeEach
    void start() {
        fake = FakeArango.start()
                .collection("users", 2, """
                        [{"_key":"1","_id":"users/1","_rev":"_a","name":"Ada","age":36,"email":null},
                         {"_key":"2","_id":"users/2","_rev":"_b","name":"Grace","email":"g@navy.mil",
                          "address":{"city":"Arlington"},"tags":["cobol"],"admin":true}]""")
                .collection("knows", 3, """
                        [{"_key":"k1","_id":"knows/k1","_rev":"_c","_from":"users/1","_to":"users/2","since":1950}]""")
                .collection("empty", 2, "[]")
                .indexes("users", """
                        [{"id":"users/12","name":"by_email","type":"persistent","fields":["email"],"unique":true,
                          "sparse":true,"deduplicate":true,"estimates":true,"cacheEnabled":false},
                         {"id":"users/13","name":"inv_name","type":"inverted","fields":[{"name":"name"}],
                          "unique":false,"sparse":true,"analyzer":"identity","includeAllFields":false}]""")
                .graph("""
                        {"_key":"social","_id":"_graphs/social","_rev":"_x","name":"social",
                         "edgeDefinitions":[{"collection":"knows","from":["users"],"to":["users"]}],
                         "orphanCollections":[],"numberOfShards":1,"replicationFactor":1,"isSmart":false}""")
                .view("users_search", "arangosearch", """
                        {"links":{"users":{"analyzers":["identity"],"fields":{"name":{"analyzers":["text_en"]}},
                          "includeAllFields":false,"storeValues":"none","trackListPositions":false}},
                         "primarySort":[],"storedValues":[],"consolidationIntervalMsec":1000,
                         "commitIntervalMsec":1000,"cleanupIntervalStep":2,"writebufferIdle":64,
                         "writebufferActive":0,"writebufferSizeMax":33554432,
                         "consolidationPolicy":{"type":"tier","segmentsBytesFloor":2097152}}""")
                .view("users_alias", "search-alias", """
                        {"indexes":[{"collection":"users","index":"inv_name"}]}""");
        bridge = BridgeFixture.start(fake);
    }

    @AfterEach
    void stop() {
        bridge.close();
        fake.close();
    }

    @Test
    void collectionsGraphsAndViewsAreReflected() {
        ArangoSchema schema = bridge.schema();

        assertEquals(List.of("empty", "knows", "users"),
                schema.collections().stream().map(ArangoSchema.CollectionInfo::name).toList());
        ArangoSchema.CollectionInfo users = schema.collection("users").orElseThrow();
        assertEquals(ArangoSchema.CollectionKind.DOCUMENT, users.kind());
        assertEquals(List.of(new ArangoSchema.Field("_key", "string"), new ArangoSchema.Field("name", "string"),
                new ArangoSchema.Field("age", "number"), new ArangoSchema.Field("email", "string"),
                new ArangoSchema.Field("address", "object"), new ArangoSchema.Field("tags", "array"),
                new ArangoSchema.Field("admin", "boolean")), users.fields());
        assertEquals(List.of(new ArangoSchema.Index("by_email", "persistent", List.of("email"), true, true),
                new ArangoSchema.Index("inv_name", "inverted", List.of("name"), false, true)), users.indexes());
        ArangoSchema.CollectionInfo knows = schema.collection("knows").orElseThrow();
        assertEquals(ArangoSchema.CollectionKind.EDGE, knows.kind());
        assertEquals(List.of("_key", "_from", "_to", "since"),
                knows.fields().stream().map(ArangoSchema.Field::name).toList());
        assertEquals(List.of(), knows.indexes(), "the edge index every edge collection has is left out");
        assertEquals(List.of(new ArangoSchema.GraphInfo("social",
                List.of(new ArangoSchema.EdgeDefinition("knows", List.of("users"), List.of("users"))), List.of())),
                schema.graphs());
        assertEquals(List.of(new ArangoSchema.ViewInfo("users_alias", "search-alias", Map.of("users",
                        List.of("inv_name"))),
                new ArangoSchema.ViewInfo("users_search", "arangosearch", Map.of("users",
                        List.of("name [text_en]")))), schema.views());
    }

    @Test
    void samplingIsAReadOfAFewDocumentsUnderTheLimits() {
        bridge.schema();

        List<FakeArango.Recorded> samples = fake.requests("POST", "/_api/cursor").stream()
                .filter(r -> r.body().path("bindVars").has("@collection")).toList();
        assertEquals(3, samples.size());
        JsonNode body = samples.getFirst().body();
        assertEquals("FOR d IN @@collection LIMIT @n RETURN d", body.path("query").asText());
        assertEquals(SchemaReflector.SAMPLE_SIZE, body.path("bindVars").path("n").asInt());
        assertEquals(30.0, body.path("options").path("maxRuntime").asDouble());
        assertEquals(1L << 30, body.path("memoryLimit").asLong());
    }

    @Test
    void theSchemaIsReflectedOnceUntilRefreshed() {
        bridge.schema();
        bridge.schema();
        assertEquals(1, fake.requests("GET", "/_api/collection").size());
        bridge.refreshSchema();
        assertEquals(2, fake.requests("GET", "/_api/collection").size());
    }

    @Test
    void thePromptTextDescribesEveryPart() {
        String prompt = SchemaText.prompt(bridge.schema(), "People and who knows whom.");

        assertEquals("""
                ArangoDB database shop, queried with AQL.
                About this database: People and who knows whom.
                Document collections:
                - empty: fields (no documents sampled)
                - users: fields _key (string), name (string), age (number), email (string), address (object), \
                tags (array), admin (boolean); indexes persistent on email unique, inverted on name
                Edge collections (_from, _to):
                - knows: fields _key (string), _from (string), _to (string), since (number)
                Named graphs (edge collection: from vertex collections -> to vertex collections):
                - social: knows: users -> users
                ArangoSearch views (query with FOR d IN view SEARCH ...):
                - users_alias (search-alias): users [inv_name]
                - users_search (arangosearch): users [name [text_en]]
                """, prompt);
    }

    @Test
    void schemaRowsForEverythingAndForOneCollection() throws Exception {
        AqlResult all = bridge.schemaRows(Optional.empty());
        assertEquals(List.of("kind", "name", "definition"), all.columns());
        assertEquals(List.of("document collection empty", "edge collection knows", "document collection users",
                "graph social", "view users_alias", "view users_search"),
                all.rows().stream().map(r -> r.get(0) + " " + r.get(1)).toList());
        assertEquals("SELECT 6", all.commandTag());

        AqlResult knows = bridge.schemaRows(Optional.of("knows"));
        assertEquals(List.of("edge collection knows", "graph social"),
                knows.rows().stream().map(r -> r.get(0) + " " + r.get(1)).toList());
        JsonNode definition = FakeArango.JSON.readTree(knows.rows().get(0).get(2));
        assertEquals("since", definition.path("fields").get(3).path("name").asText());
        JsonNode graph = FakeArango.JSON.readTree(knows.rows().get(1).get(2));
        assertEquals("knows", graph.path("edgeDefinitions").get(0).path("collection").asText());

        AqlException e = assertThrows(AqlException.class, () -> bridge.schemaRows(Optional.of("nope")));
        assertEquals(SqlStates.UNDEFINED_TABLE, e.sqlState());
        assertTrue(e.getMessage().contains("nope"));
    }
}
