package io.pgward.arango;

import com.arangodb.ArangoDB;
import com.arangodb.ArangoDatabase;
import com.arangodb.entity.CollectionType;
import com.arangodb.entity.EdgeDefinition;
import com.arangodb.entity.Permissions;
import com.arangodb.entity.arangosearch.CollectionLink;
import com.arangodb.entity.arangosearch.FieldLink;
import com.arangodb.model.CollectionCreateOptions;
import com.arangodb.model.PersistentIndexOptions;
import com.arangodb.model.arangosearch.ArangoSearchCreateOptions;
import io.pgward.guard.SqlStates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bridge against a real ArangoDB 3.12 in a container: real plans, real errors, real limits. Runs where a
 * Docker engine answers and is skipped (not failed) elsewhere.
 */
@Testcontainers(disabledWithoutDocker = true)
class ArangoContainerIT {

    private static final String ROOT_PASSWORD = "pgward-test";

    @Container
    @SuppressWarnings("resource") // stopped by the Testcontainers extension
    static final GenericContainer<?> ARANGO = new GenericContainer<>("arangodb:3.12")
            .withEnv("ARANGO_ROOT_PASSWORD", ROOT_PASSWORD)
            .withExposedPorts(8529)
            .waitingFor(Wait.forHttp("/_api/version").withBasicCredentials("root", ROOT_PASSWORD)
                    .forStatusCode(200))
            .withStartupTimeout(Duration.ofMinutes(3));

    private static ArangoBridge bridge;

    @BeforeAll
    static void seed() {
        ArangoDB admin = new ArangoDB.Builder().host(ARANGO.getHost(), ARANGO.getMappedPort(8529))
                .protocol(com.arangodb.Protocol.HTTP_JSON).user("root").password(ROOT_PASSWORD).build();
        try {
            admin.createDatabase("shop");
            ArangoDatabase db = admin.db("shop");
            db.createCollection("users");
            db.createCollection("update");
            db.createCollection("knows", new CollectionCreateOptions().type(CollectionType.EDGES));
            db.collection("users").insertDocuments(List.of(
                    Map.of("_key", "ada", "name", "Ada", "age", 36, "email", "ada@example.org"),
                    Map.of("_key", "grace", "name", "Grace", "age", 45, "address", Map.of("city", "Arlington"))));
            db.collection("update").insertDocuments(List.of(Map.of("n", 1)));
            db.collection("knows").insertDocuments(List.of(
                    Map.of("_from", "users/ada", "_to", "users/grace", "since", 1950)));
            db.collection("users").ensurePersistentIndex(List.of("email"),
                    new PersistentIndexOptions().unique(true).sparse(true));
            db.createGraph("social", List.of(new EdgeDefinition().collection("knows").from("users").to("users")));
            db.createArangoSearch("users_search", new ArangoSearchCreateOptions()
                    .link(CollectionLink.on("users").fields(FieldLink.on("name").analyzers("text_en"))));
            db.createCollection("secrets");
            db.collection("secrets").insertDocuments(List.of(Map.of("_key", "pin", "value", 1234)));
            db.createAqlFunction("MYNS::FN", "function (x) { return x; }", null);
            admin.createUser("analyst_ro", "ro-pass");
            db.grantAccess("analyst_ro", Permissions.RO);
            db.grantDefaultCollectionAccess("analyst_ro", Permissions.RO);
        } finally {
            admin.shutdown();
        }
        bridge = ArangoBridge.start(config(new ArangoAuth.UserPassword("", ROOT_PASSWORD)));
    }

    @AfterAll
    static void stop() {
        if (bridge != null) {
            bridge.close();
        }
    }

    private static ArangoConfig config(ArangoAuth auth) {
        return ArangoConfig.of("shopdocs", "http://" + ARANGO.getHost() + ":" + ARANGO.getMappedPort(8529), "shop",
                auth);
    }

    @Test
    void readsComeBackAsColumns() {
        AqlResult result = bridge.run("FOR u IN users SORT u.name RETURN {name: u.name, age: u.age}",
                ExecutionMode.READ_ONLY);

        assertEquals(List.of("name", "age"), result.columns());
        assertEquals(List.of(List.of("Ada", "36"), List.of("Grace", "45")), result.rows());
        assertTrue(bridge.serverInfo().version().startsWith("3.12"));
    }

    @Test
    void realWritePlansAreRefused() {
        for (String aql : List.of("INSERT {name: 'x'} INTO users",
                "FOR u IN users UPDATE u WITH {seen: true} IN users",
                "FOR u IN users REPLACE u WITH {name: 'y'} IN users",
                "FOR u IN users REMOVE u IN users",
                "UPSERT {name: 'x'} INSERT {name: 'x'} UPDATE {} IN users")) {
            AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY), aql);
            assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, e.sqlState(), aql);
        }
        assertEquals("SELECT 2", bridge.run("FOR u IN users RETURN u", ExecutionMode.READ_ONLY).commandTag());
    }

    @Test
    void aCollectionNamedUpdateCanBeRead() {
        assertEquals(List.of(List.of("1")),
                bridge.run("FOR d IN `update` RETURN d.n", ExecutionMode.READ_ONLY).rows());
    }

    @Test
    void syntaxErrorsCarryArangoDbsNumber() {
        AqlException e = assertThrows(AqlException.class,
                () -> bridge.run("FORM u IN users RETURN u", ExecutionMode.READ_ONLY));

        assertEquals(1501, e.errorNum());
        assertEquals(SqlStates.SYNTAX_ERROR, e.sqlState());
    }

    @Test
    void limitsAreEnforcedByTheServer() {
        try (ArangoBridge limited = ArangoBridge.start(config(new ArangoAuth.UserPassword("root", ROOT_PASSWORD))
                .withLimits(AqlLimits.DEFAULTS.withMaxRuntime(Duration.ofSeconds(1)).withMemoryLimit(1L << 20)
                        .withMaxRows(10)))) {
            assertEquals(SqlStates.QUERY_CANCELED, assertThrows(AqlException.class,
                    () -> limited.run("RETURN SLEEP(5)", ExecutionMode.READ_ONLY)).sqlState());
            assertEquals("53200", assertThrows(AqlException.class,
                    () -> limited.run("RETURN (FOR i IN 1..1000000 RETURN CONCAT('row ', i))",
                            ExecutionMode.READ_ONLY)).sqlState());
            assertEquals(SqlStates.PROGRAM_LIMIT_EXCEEDED, assertThrows(AqlException.class,
                    () -> limited.run("FOR i IN 1..11 RETURN i", ExecutionMode.READ_ONLY)).sqlState());
        }
    }

    @Test
    void rawWritesReportAffectedRows() {
        AqlResult result = bridge.run("FOR i IN 1..3 INSERT {n: i} INTO `update`", ExecutionMode.RAW);

        assertEquals("INSERT 0 3", result.commandTag());
        assertEquals(OptionalLong.of(3), result.affectedRows());
        bridge.run("FOR d IN `update` FILTER d.n > 0 AND d.n <= 3 AND d._key != null LIMIT 3 REMOVE d IN `update`",
                ExecutionMode.RAW);
    }

    @Test
    void theSchemaIsReflected() {
        ArangoSchema schema = bridge.refreshSchema();

        assertEquals(ArangoSchema.CollectionKind.EDGE, schema.collection("knows").orElseThrow().kind());
        assertTrue(schema.collection("users").orElseThrow().indexes().stream()
                .anyMatch(i -> i.fields().equals(List.of("email")) && i.unique()));
        assertEquals("social", schema.graphs().getFirst().name());
        assertEquals(List.of("name [text_en]"), schema.views().getFirst().links().get("users"));
        assertTrue(bridge.schemaRows(Optional.of("users")).rows().size() >= 2);
    }

    @Test
    void aJwtFromOpenAuthIsAccepted() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://" + ARANGO.getHost() + ":" + ARANGO.getMappedPort(8529) + "/_open/auth"))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"username\":\"root\",\"password\":\"" + ROOT_PASSWORD + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        String jwt = FakeArango.JSON.readTree(response.body()).path("jwt").asText();

        try (ArangoBridge withToken = ArangoBridge.start(config(new ArangoAuth.Token(jwt)))) {
            assertEquals("SELECT 1", withToken.run("RETURN 1", ExecutionMode.READ_ONLY).commandTag());
        }
    }

    @Test
    void userDefinedFunctionsAreRefusedInEveryForm() {
        for (String aql : List.of("RETURN MYNS::FN(1)", "RETURN CALL(CONCAT('MYNS', '::FN'), 1)",
                "FOR u IN users RETURN MYNS::FN(u.name)", "LET x = (FOR u IN users RETURN MYNS::FN(u)) RETURN x")) {
            AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY), aql);
            assertEquals(AqlException.Reason.REFUSED, e.reason(), aql + ": " + e.getMessage());
        }
        AqlException apply = assertThrows(AqlException.class, () -> bridge.run("RETURN APPLY(@p, [1])",
                Map.of("p", "MYNS::FN"), ExecutionMode.READ_ONLY, new AqlResult.Collector()));
        assertEquals(AqlException.Reason.REFUSED, apply.reason(), apply.getMessage());
    }

    @Test
    void aLoginsSelectionHoldsForCollectionsTraversalsAndDocumentLookups() {
        AqlPolicy usersOnly = new AqlPolicy("analyst", Optional.of(Set.of("users")), 0, null);
        AqlPolicy withKnows = new AqlPolicy("analyst", Optional.of(Set.of("users", "knows")), 0, null);
        String traversal = "FOR v IN 1 OUTBOUND 'users/ada' GRAPH 'social' RETURN v.name";

        for (String aql : List.of("FOR s IN secrets RETURN s", "RETURN DOCUMENT('secrets/pin')",
                "RETURN LENGTH(secrets)", traversal)) {
            AqlException e = assertThrows(AqlException.class,
                    () -> bridge.run(aql, ExecutionMode.READ_ONLY, usersOnly), aql);
            assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, e.sqlState(), aql + ": " + e.getMessage());
        }
        assertEquals(List.of(List.of("Grace")), bridge.run(traversal, ExecutionMode.READ_ONLY, withKnows).rows());
        assertEquals(AqlException.Reason.NOT_SELECTED, assertThrows(AqlException.class,
                () -> bridge.run("FOR g IN _graphs RETURN g", ExecutionMode.READ_ONLY)).reason());
    }

    @Test
    void aLoginWithAReadOnlyAccountCannotWriteEvenRaw() {
        try (ArangoBridge accounts = ArangoBridge.start(config(new ArangoAuth.UserPassword("root", ROOT_PASSWORD))
                .withLoginAuth(Map.of("analyst", new ArangoAuth.UserPassword("analyst_ro", "ro-pass"))))) {
            AqlPolicy analyst = new AqlPolicy("analyst", Optional.empty(), 0, null);
            assertEquals("SELECT 2", accounts.run("FOR u IN users RETURN u", ExecutionMode.READ_ONLY, analyst)
                    .commandTag());
            AqlException e = assertThrows(AqlException.class, () -> accounts.run("INSERT {n: 1} INTO users",
                    Map.of(), ExecutionMode.RAW, analyst, new AqlResult.Collector()));
            assertEquals("28000", e.sqlState(), e.getMessage());
        }
    }

    @Test
    void startupProbeFailuresAreNamed() {
        assertEquals(ArangoStartupException.Part.DATABASE, assertThrows(ArangoStartupException.class,
                () -> ArangoBridge.start(config(new ArangoAuth.UserPassword("root", ROOT_PASSWORD))
                        .withDatabase("missing"))).part());
        assertEquals(ArangoStartupException.Part.CREDENTIALS, assertThrows(ArangoStartupException.class,
                () -> ArangoBridge.start(config(new ArangoAuth.UserPassword("root", "wrong")))).part());
    }
}
