package io.pgward.arango;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.guard.SqlStates;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.pgward.arango.Plans312.call;
import static io.pgward.arango.Plans312.collection;
import static io.pgward.arango.Plans312.returning;
import static io.pgward.arango.Plans312.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A login's policy on AQL: its selection of collections and views (checked against every data source the plan
 * names), no system collections for any read-only login, and its row cap and timeout lowering the database's.
 */
class LoginPolicyTest extends FakeBridgeTest {

    private static final AqlPolicy ANALYST = new AqlPolicy("analyst", Optional.of(Set.of("users", "knows")), 0,
            null);

    private AqlException refused(String aql, AqlPolicy policy) {
        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY, policy));
        assertTrue(e.reason() == AqlException.Reason.NOT_SELECTED || e.reason() == AqlException.Reason.REFUSED,
                e.getMessage());
        assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, e.sqlState());
        assertEquals(List.of(), fake.cursorRequests(aql), "a refused statement never runs");
        return e;
    }

    @Test
    void aSelectedCollectionIsRead() {
        String aql = "FOR u IN users RETURN u";
        fake.plan(aql, ReadOnlyGateTest.READ_USERS.formatted("users", "users")).rows(aql, "[{\"n\":1}]");

        assertEquals(List.of(List.of("1")), bridge.run(aql, ExecutionMode.READ_ONLY, ANALYST).rows());
    }

    @Test
    void aCollectionOutsideTheSelectionIsRefused() {
        String aql = "FOR s IN secrets RETURN s";
        fake.plan(aql, ReadOnlyGateTest.READ_USERS.formatted("secrets", "secrets"));

        AqlException e = refused(aql, ANALYST);

        assertEquals("AQL refused: secrets is not among the collections and views login \"analyst\" may read",
                e.getMessage());
        assertEquals(AqlException.Reason.NOT_SELECTED, e.reason(), "audited apart from the plan gate's refusals");
    }

    @Test
    void theSameTextIsCheckedAgainstEachLoginsSelectionFromOnePlan() {
        String aql = "FOR s IN secrets RETURN s";
        fake.plan(aql, ReadOnlyGateTest.READ_USERS.formatted("secrets", "secrets"));

        bridge.run(aql, ExecutionMode.READ_ONLY, AqlPolicy.UNRESTRICTED);
        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY, ANALYST));

        assertEquals(AqlException.Reason.NOT_SELECTED, e.reason());
        assertEquals(1, fake.cursorRequests(aql).size(), "only the unrestricted login's run reached ArangoDB");
        assertEquals(1, fake.explains(aql).size(), "the plan's facts are remembered, the selection is not");
    }

    @Test
    void whatATextReadsIsRememberedBrieflySoANameThatChangedMeaningIsExplainedAgain() {
        String aql = "FOR d IN x RETURN d";
        AqlPolicy selectsX = new AqlPolicy("analyst", Optional.of(Set.of("x")), 0, null);
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        ReadOnlyGate gate = new ReadOnlyGate(AqlLimits.DEFAULTS, now::get);
        com.arangodb.ArangoDB driver = DriverFactory.build(BridgeFixture.config(fake));
        try {
            com.arangodb.ArangoDatabase db = driver.db("shop");
            fake.plan(aql, ReadOnlyGateTest.READ_USERS.formatted("x", "x"));
            gate.check(db, aql, Map.of(), selectsX);
            // x is now a view over secrets: the plan lists the view's linked collection.
            fake.plan(aql, ReadOnlyGateTest.READ_USERS.formatted("x", "x").replace(
                    "\"collections\":[{\"name\":\"x\",\"type\":\"read\"}]",
                    "\"collections\":[{\"name\":\"secrets\",\"type\":\"read\"}]"));

            now.addAndGet(Duration.ofSeconds(5).toNanos());
            gate.check(db, aql, Map.of(), selectsX);
            now.addAndGet(ReadOnlyGate.REMEMBERED_FOR.toNanos());
            AqlException e = assertThrows(AqlException.class, () -> gate.check(db, aql, Map.of(), selectsX));

            assertTrue(e.getMessage().startsWith("AQL refused: secrets is not among"), e.getMessage());
            assertEquals(2, fake.explains(aql).size());
        } finally {
            driver.shutdown();
        }
    }

    @Test
    void systemCollectionsAreRefusedToEveryReadOnlyLogin() {
        String aql = "FOR u IN _users RETURN u";
        fake.plan(aql, ReadOnlyGateTest.READ_USERS.formatted("_users", "_users"));

        assertEquals("AQL refused: read-only logins may not read the system collection _users",
                refused(aql, AqlPolicy.UNRESTRICTED).getMessage());
        AqlPolicy selectingIt = new AqlPolicy("odd", Optional.of(Set.of("_users")), 0, null);
        assertTrue(refused(aql, selectingIt).getMessage().contains("system collection _users"));
    }

    @Test
    void aCollectionNamedInAnExpressionIsChecked() {
        String aql = "RETURN LENGTH(secrets)";
        fake.plan(aql, returning(call("LENGTH", collection("secrets"))));

        assertTrue(refused(aql, ANALYST).getMessage().startsWith("AQL refused: secrets is not among"));
    }

    @Test
    void documentWithAConstantIdIsCheckedAgainstTheSelection() {
        String outside = "RETURN DOCUMENT('secrets/1')";
        String inside = "RETURN DOCUMENT('users/1')";
        fake.plan(outside, returning(call("DOCUMENT", string("secrets/1"))))
                .plan(inside, returning(call("DOCUMENT", string("users/1")))).rows(inside, "[{\"n\":1}]");

        assertTrue(refused(outside, ANALYST).getMessage().startsWith("AQL refused: secrets is not among"));
        assertEquals(List.of(List.of("1")), bridge.run(inside, ExecutionMode.READ_ONLY, ANALYST).rows());
    }

    @Test
    void aTraversalOverAnUnselectedEdgeCollectionIsRefused() {
        String aql = "FOR v IN 1..2 OUTBOUND 'users/1' GRAPH 'payments' RETURN v";
        fake.plan(aql, Plans312.traversal("\"payments\"", "[\"paid\"]", "[\"users\"]",
                "[{\"name\":\"paid\",\"type\":\"read\"},{\"name\":\"users\",\"type\":\"read\"}]"));

        assertTrue(refused(aql, ANALYST).getMessage().startsWith("AQL refused: paid is not among"));
    }

    @Test
    void aTraversalOverSelectedCollectionsRuns() {
        String aql = "FOR v IN 1..2 OUTBOUND 'users/1' GRAPH 'social' RETURN v";
        fake.plan(aql, Plans312.traversal("\"social\"", "[\"knows\"]", "[\"users\"]",
                "[{\"name\":\"knows\",\"type\":\"read\"},{\"name\":\"users\",\"type\":\"read\"}]"))
                .rows(aql, "[{\"n\":2}]");

        assertEquals(List.of(List.of("2")), bridge.run(aql, ExecutionMode.READ_ONLY, ANALYST).rows());
    }

    @Test
    void aTraversalWhoseVertexCollectionsAreNotListedIsRefused() {
        String aql = "FOR v IN 1 OUTBOUND 'users/1' knows RETURN v";
        fake.plan(aql, Plans312.traversal("[\"knows\"]", "[\"knows\"]", "[]",
                "[{\"name\":\"knows\",\"type\":\"read\"}]"));

        AqlException e = refused(aql, AqlPolicy.UNRESTRICTED);

        assertTrue(e.getMessage().contains("does not list its vertex collections"), e.getMessage());
        assertEquals(AqlException.Reason.REFUSED, e.reason());
    }

    @Test
    void theLoginsRowCapLowersTheDatabases() {
        String aql = "FOR i IN 1..3 RETURN i";
        fake.reads(aql).rows(aql, "[1,2,3]");
        AqlPolicy capped = new AqlPolicy("analyst", Optional.empty(), 2, null);

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY, capped));

        assertEquals(AqlException.Reason.ROW_CAP, e.reason());
        assertTrue(e.getMessage().contains("more than 2 rows"), e.getMessage());
        AqlPolicy generous = new AqlPolicy("analyst", Optional.empty(), 1_000_000, null);
        assertEquals("SELECT 3", bridge.run(aql, ExecutionMode.READ_ONLY, generous).commandTag(),
                "a login's cap never raises the database's");
    }

    @Test
    void theLoginsTimeoutBoundsTheExplainAndTheStatement() {
        String aql = "FOR u IN users RETURN u";
        fake.plan(aql, ReadOnlyGateTest.READ_USERS.formatted("users", "users"));
        AqlPolicy quick = new AqlPolicy("analyst", Optional.empty(), 0, Duration.ofMillis(1500));

        bridge.run(aql, ExecutionMode.READ_ONLY, quick);

        JsonNode explain = fake.explains(aql).getFirst().body();
        assertEquals(1.5, explain.path("options").path("maxRuntime").asDouble());
        assertEquals(1L << 30, explain.path("options").path("memoryLimit").asLong());
        JsonNode cursor = fake.cursorRequests(aql).getFirst().body();
        assertEquals(1.5, cursor.path("options").path("maxRuntime").asDouble());
    }

    @Test
    void aReadWriteLoginsTimeoutAppliesToItsRawStatements() {
        String aql = "INSERT {n: 1} INTO users";
        AqlPolicy writer = new AqlPolicy("app", Optional.empty(), 0, Duration.ofSeconds(5));

        bridge.run(aql, Map.of(), ExecutionMode.RAW, writer, new AqlResult.Collector());

        assertEquals(5.0, fake.cursorRequests(aql).getFirst().body().path("options").path("maxRuntime").asDouble());
    }

    @Test
    void theSchemaALoginSeesHoldsOnlyWhatItMayRead() {
        fake.collection("users", 2, "[]").collection("knows", 3, "[]").collection("secrets", 2, "[]")
                .graph("""
                        {"_key":"social","name":"social","edgeDefinitions":[{"collection":"knows","from":["users"],
                         "to":["users"]}],"orphanCollections":[]}""")
                .graph("""
                        {"_key":"leaks","name":"leaks","edgeDefinitions":[{"collection":"knows","from":["users"],
                         "to":["secrets"]}],"orphanCollections":[]}""");

        String prompt = bridge.schemaPrompt(ANALYST);
        List<String> names = bridge.schemaRows(Optional.empty(), ANALYST).rows().stream().map(r -> r.get(1))
                .toList();

        assertEquals(List.of("knows", "users", "social"), names);
        assertTrue(!prompt.contains("secrets") && !prompt.contains("leaks"), prompt);
        assertThrows(AqlException.class, () -> bridge.schemaRows(Optional.of("secrets"), ANALYST));
    }
}
