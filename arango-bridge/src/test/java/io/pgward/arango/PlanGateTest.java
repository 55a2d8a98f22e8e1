package io.pgward.arango;

import io.pgward.guard.SqlStates;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.pgward.arango.Plans312.array;
import static io.pgward.arango.Plans312.attribute;
import static io.pgward.arango.Plans312.call;
import static io.pgward.arango.Plans312.reference;
import static io.pgward.arango.Plans312.returning;
import static io.pgward.arango.Plans312.scanning;
import static io.pgward.arango.Plans312.string;
import static io.pgward.arango.Plans312.userCall;
import static io.pgward.arango.Plans312.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gate on what a read-only login's plan may contain besides writes: user-defined functions in any node at
 * any depth, node and expression types pgward does not know, and 3.12's spliced subqueries and cluster plans.
 */
class PlanGateTest extends FakeBridgeTest {

    private AqlException refused(String aql) {
        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));
        assertEquals(AqlException.Reason.REFUSED, e.reason(), e.getMessage());
        assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, e.sqlState());
        assertEquals(List.of(), fake.cursorRequests(aql), "a refused statement never runs");
        return e;
    }

    @Test
    void aUserDefinedFunctionCallIsRefused() {
        String aql = "RETURN MYNS::FN(1)";
        fake.plan(aql, returning(userCall("MYNS::FN", value(1))));

        assertEquals("AQL refused: this login may only read, and the plan calls the user-defined function "
                + "MYNS::FN (user-defined functions run JavaScript)", refused(aql).getMessage());
    }

    @Test
    void callWithAComputedNameIsRefused() {
        String aql = "RETURN CALL(CONCAT('MYNS','::FN'))";
        // The optimizer folds the CONCAT; what is left is CALL with a constant name.
        fake.plan(aql, returning(call("CALL", string("MYNS::FN"))));

        assertTrue(refused(aql).getMessage().endsWith("the plan calls CALL, which can call any function, "
                + "user-defined ones included"));
    }

    @Test
    void applyWithABoundNameIsRefused() {
        String aql = "RETURN APPLY(@p, [])";
        fake.plan(aql, returning(call("APPLY", string("MYNS::FN"), array())));

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql,
                java.util.Map.of("p", "MYNS::FN"), ExecutionMode.READ_ONLY, new AqlResult.Collector()));

        assertTrue(e.getMessage().contains("the plan calls APPLY"), e.getMessage());
    }

    @Test
    void aUserFunctionNestedDeepInsideAFilterOfTheEnumerationIsRefused() {
        String aql = "FOR d IN users FILTER LENGTH([MYNS::FN(d.a)]) > 0 RETURN d";
        String udf = userCall("MYNS::FN", attribute("a", reference(0, "d")));
        fake.plan(aql, scanning("users", "{\"type\":\"compare >\",\"typeID\":29,\"subNodes\":["
                + call("LENGTH", array(udf)) + "," + value(0) + "]}"));

        assertTrue(refused(aql).getMessage().contains("user-defined function MYNS::FN"));
    }

    @Test
    void aUserFunctionInsideASplicedSubqueryIsRefused() {
        String aql = "LET x = (FOR u IN users RETURN MYNS::FN(u)) RETURN x";
        String inner = """
                {"type":"EnumerateCollectionNode","typeID":6,"dependencies":[6],"id":2,"parents":[4],
                 "outVariable":{"id":0,"name":"u"},"database":"shop","collection":"users"},
                {"type":"CalculationNode","typeID":7,"dependencies":[2],"id":4,"parents":[3],
                 "expression":%s,"outVariable":{"id":2,"name":"2"},"canThrow":false,"expressionType":"simple"},
                {"type":"ReturnNode","typeID":18,"dependencies":[4],"id":3,"parents":[7],
                 "inVariable":{"id":2,"name":"2"},"count":false}""".formatted(
                userCall("MYNS::FN", reference(0, "u")));
        fake.plan(aql, Plans312.splicedSubquery(inner, "[{\"name\":\"users\",\"type\":\"read\"}]", false));

        assertTrue(refused(aql).getMessage().contains("user-defined function MYNS::FN"));
    }

    @Test
    void aWriteInsideASplicedSubqueryIsRefusedByItsNodeAlone() {
        String aql = "LET x = (FOR u IN users REMOVE u IN users) RETURN x";
        // Even if the other two signals said "read", the RemoveNode in the flat list refuses.
        fake.plan(aql, Plans312.splicedSubquery(Plans312.REMOVE_INSIDE,
                "[{\"name\":\"users\",\"type\":\"read\"}]", false));

        assertEquals("AQL refused: this login may only read, and the plan contains RemoveNode on collection users",
                refused(aql).getMessage());
    }

    @Test
    void aWriteInsideASplicedSubqueryAsArangoDbPlansItIsRefused() {
        String aql = "LET x = (FOR u IN users REMOVE u IN users) RETURN x";
        fake.plan(aql, Plans312.splicedSubquery(Plans312.REMOVE_INSIDE,
                "[{\"name\":\"users\",\"type\":\"write\"}]", true));

        assertTrue(refused(aql).getMessage().contains("RemoveNode"));
    }

    @Test
    void aClusterReadThroughRemoteAndGatherRuns() {
        String aql = "FOR u IN users RETURN u";
        fake.plan(aql, Plans312.CLUSTER_READ).rows(aql, "[{\"name\":\"Ada\"}]");

        assertEquals(List.of(List.of("Ada")), bridge.run(aql, ExecutionMode.READ_ONLY).rows());
    }

    @Test
    void aClusterDistributedInsertIsRefused() {
        String aql = "FOR d IN [{a: 1}, {a: 2}] INSERT d INTO users";
        fake.plan(aql, Plans312.CLUSTER_DISTRIBUTED_INSERT);

        assertTrue(refused(aql).getMessage().endsWith("the plan contains InsertNode on collection users"));
    }

    @Test
    void aNodeTypeThatPgwardDoesNotKnowIsRefused() {
        String aql = "FOR u IN users RETURN u";
        fake.plan(aql, Plans312.CLUSTER_READ.replace("\"GatherNode\"", "\"ShinyNewNode\""));

        assertTrue(refused(aql).getMessage().endsWith("the plan contains ShinyNewNode, a node pgward does not "
                + "know"));
    }

    @Test
    void anExpressionTypeThatPgwardDoesNotKnowIsRefused() {
        String aql = "RETURN something_new";
        fake.plan(aql, returning("{\"type\":\"shiny new thing\",\"typeID\":99,\"subNodes\":[]}"));

        assertTrue(refused(aql).getMessage().endsWith("the plan has an expression of type \"shiny new thing\" "
                + "that pgward does not know"));
    }

    @Test
    void documentWithAnIdComputedAtRunTimeIsRefused() {
        String aql = "LET d = FIRST(FOR u IN users RETURN u) RETURN DOCUMENT(d.ref)";
        fake.plan(aql, returning(call("DOCUMENT", attribute("ref", reference(0, "d")))));

        assertTrue(refused(aql).getMessage().contains("DOCUMENT with a document id computed at run time"));
    }

    @Test
    void builtInFunctionsRun() {
        String aql = "RETURN CONCAT('a', 'b')";
        fake.plan(aql, returning(call("CONCAT", string("a"), string("b")))).rows(aql, "[\"ab\"]");

        assertEquals(List.of(List.of("ab")), bridge.run(aql, ExecutionMode.READ_ONLY).rows());
    }

    @Test
    void aUserFunctionIsNotRememberedAsARead() {
        String aql = "RETURN MYNS::FN(1)";
        fake.plan(aql, returning(userCall("MYNS::FN", value(1))));

        refused(aql);
        refused(aql);

        assertEquals(2, fake.explains(aql).size());
    }
}
