package io.pgward.arango;

import com.arangodb.ArangoDB;
import com.arangodb.ArangoDatabase;
import com.arangodb.entity.CollectionType;
import com.arangodb.entity.EdgeDefinition;
import com.arangodb.model.CollectionCreateOptions;
import io.pgward.guard.SqlStates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The gate against a real ArangoDB 3.12 cluster (three agents, DB servers and coordinators started by the
 * ArangoDB starter in one container, pgward talking to the first coordinator): the coordinator's plans with
 * Remote, Gather, Distribute and the single-document operation nodes. Runs where a Docker engine answers and is
 * skipped (not failed) elsewhere.
 */
@Testcontainers(disabledWithoutDocker = true)
class ArangoClusterContainerIT {

    @Container
    @SuppressWarnings("resource") // stopped by the Testcontainers extension
    static final GenericContainer<?> CLUSTER = new GenericContainer<>("arangodb:3.12")
            .withEnv("ARANGO_NO_AUTH", "1")
            .withCommand("arangodb", "--starter.local", "--starter.mode=cluster",
                    "--starter.data-dir=/tmp/cluster", "--starter.address=127.0.0.1",
                    "--all.server.authentication=false")
            .withExposedPorts(8529)
            .waitingFor(Wait.forHttp("/_api/version").forPort(8529).forStatusCode(200))
            .withStartupTimeout(Duration.ofMinutes(5));

    private static ArangoBridge bridge;

    @BeforeAll
    static void seed() {
        ArangoDB admin = new ArangoDB.Builder().host(CLUSTER.getHost(), CLUSTER.getMappedPort(8529))
                .protocol(com.arangodb.Protocol.HTTP_JSON).user("root").password("").build();
        try {
            admin.createDatabase("shop");
            ArangoDatabase db = admin.db("shop");
            db.createCollection("users", new CollectionCreateOptions().numberOfShards(3));
            db.createCollection("secrets", new CollectionCreateOptions().numberOfShards(2));
            db.createCollection("knows", new CollectionCreateOptions().type(CollectionType.EDGES).numberOfShards(3));
            db.collection("users").insertDocuments(List.of(Map.of("_key", "ada", "name", "Ada"),
                    Map.of("_key", "grace", "name", "Grace")));
            db.collection("knows").insertDocuments(List.of(Map.of("_from", "users/ada", "_to", "users/grace")));
            db.createGraph("social", List.of(new EdgeDefinition().collection("knows").from("users").to("users")));
            db.createAqlFunction("MYNS::FN", "function (x) { return x; }", null);
        } finally {
            admin.shutdown();
        }
        bridge = ArangoBridge.start(ArangoConfig.of("shopdocs", "http://" + CLUSTER.getHost() + ":"
                + CLUSTER.getMappedPort(8529), "shop", new ArangoAuth.UserPassword("root", "")));
    }

    @AfterAll
    static void stop() {
        if (bridge != null) {
            bridge.close();
        }
    }

    @Test
    void coordinatorReadPlansRun() {
        assertEquals("SELECT 2", bridge.run("FOR u IN users RETURN u", ExecutionMode.READ_ONLY).commandTag());
        assertEquals("SELECT 1", bridge.run("FOR u IN users FILTER u._key == 'ada' RETURN u",
                ExecutionMode.READ_ONLY).commandTag(), "a single-document read by key (SingleRemoteOperationNode)");
    }

    @Test
    void coordinatorWritePlansAreRefused() {
        for (String aql : List.of("INSERT {_key: 'x'} INTO users",
                "FOR d IN [{a: 1}, {a: 2}] INSERT d INTO users",
                "UPDATE 'ada' WITH {seen: true} IN users",
                "REMOVE 'grace' IN users",
                "FOR u IN users REMOVE u IN users",
                "LET x = (FOR u IN users UPDATE u WITH {seen: true} IN users) RETURN 1")) {
            AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY), aql);
            assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, e.sqlState(), aql + ": " + e.getMessage());
        }
        assertEquals("SELECT 2", bridge.run("FOR u IN users RETURN u", ExecutionMode.READ_ONLY).commandTag());
    }

    @Test
    void userDefinedFunctionsAndTheSelectionHoldOnACluster() {
        assertEquals(AqlException.Reason.REFUSED, assertThrows(AqlException.class,
                () -> bridge.run("FOR u IN users RETURN MYNS::FN(u.name)", ExecutionMode.READ_ONLY)).reason());
        AqlPolicy usersOnly = new AqlPolicy("analyst", Optional.of(Set.of("users")), 0, null);
        AqlPolicy withKnows = new AqlPolicy("analyst", Optional.of(Set.of("users", "knows")), 0, null);
        String traversal = "FOR v IN 1 OUTBOUND 'users/ada' GRAPH 'social' RETURN v.name";
        assertEquals(AqlException.Reason.NOT_SELECTED, assertThrows(AqlException.class,
                () -> bridge.run(traversal, ExecutionMode.READ_ONLY, usersOnly)).reason());
        assertEquals(AqlException.Reason.NOT_SELECTED, assertThrows(AqlException.class,
                () -> bridge.run("FOR s IN secrets RETURN s", ExecutionMode.READ_ONLY, withKnows)).reason());
        assertEquals(List.of(List.of("Grace")), bridge.run(traversal, ExecutionMode.READ_ONLY, withKnows).rows());
    }
}
