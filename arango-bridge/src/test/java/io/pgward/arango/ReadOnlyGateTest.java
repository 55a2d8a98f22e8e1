package io.pgward.arango;

import io.pgward.guard.SqlStates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The read-only gate against execution plans in the shape ArangoDB 3.12 returns them from
 * {@code POST /_api/explain}, single server and cluster.
 */
class ReadOnlyGateTest extends FakeBridgeTest {

    static final String READ_USERS = """
            {"nodes":[
              {"type":"SingletonNode","dependencies":[],"id":1,"estimatedCost":1,"estimatedNrItems":1},
              {"type":"EnumerateCollectionNode","dependencies":[1],"id":2,"estimatedCost":5,"estimatedNrItems":3,
               "random":false,"indexHint":{"forced":false,"lookahead":1,"type":"none"},
               "outVariable":{"id":0,"name":"u"},"projections":[],"count":false,"producesResult":true,
               "readOwnWrites":false,"useCache":true,"maxProjections":5,"database":"shop","collection":"%s",
               "satellite":false,"isSatellite":false,"isSatelliteOf":null},
              {"type":"ReturnNode","dependencies":[2],"id":3,"estimatedCost":8,"estimatedNrItems":3,
               "inVariable":{"id":0,"name":"u"},"count":true}],
             "rules":[],"collections":[{"name":"%s","type":"read"}],
             "variables":[{"id":0,"name":"u"}],"estimatedCost":8,"estimatedNrItems":3,
             "isModificationQuery":false}""";

    /** {@code <prefix nodes>} then the write node of {@code type} on users; ArangoDB marks users as written. */
    static String writePlan(String type, String extraFields) {
        return """
                {"nodes":[
                  {"type":"SingletonNode","dependencies":[],"id":1,"estimatedCost":1,"estimatedNrItems":1},
                  {"type":"EnumerateCollectionNode","dependencies":[1],"id":2,"estimatedCost":5,
                   "estimatedNrItems":3,"random":false,"outVariable":{"id":0,"name":"u"},"producesResult":true,
                   "database":"shop","collection":"users","satellite":false},
                  {"type":"CalculationNode","dependencies":[2],"id":3,"estimatedCost":8,"estimatedNrItems":3,
                   "expression":{"type":"object","subNodes":[]},"outVariable":{"id":1,"name":"#1"},
                   "canThrow":false,"expressionType":"simple"},
                  {"type":"%s","dependencies":[3],"id":4,"estimatedCost":11,"estimatedNrItems":3,
                   "database":"shop","collection":"users","satellite":false,"isSatellite":false,
                   "countStats":true,"producesResults":false,"readCompleteInput":false,
                   "modificationFlags":{"waitForSync":false,"skipDocumentValidation":false,"keepNull":true,
                     "mergeObjects":true,"ignoreRevs":true,"isRestore":false,"ignoreErrors":false,
                     "ignoreDocumentNotFound":false,"consultAqlWriteFilter":false,"exclusive":false}%s}],
                 "rules":["remove-data-modification-out-variables"],
                 "collections":[{"name":"users","type":"write"}],
                 "variables":[{"id":1,"name":"#1"},{"id":0,"name":"u"}],"estimatedCost":11,
                 "estimatedNrItems":3,"isModificationQuery":true}""".formatted(type, extraFields);
    }

    static final String CLUSTER_SINGLE_INSERT = """
            {"nodes":[
              {"type":"SingletonNode","dependencies":[],"id":1,"estimatedCost":1,"estimatedNrItems":1},
              {"type":"CalculationNode","dependencies":[1],"id":2,"estimatedCost":2,"estimatedNrItems":1,
               "expression":{"type":"object","subNodes":[]},"outVariable":{"id":0,"name":"#0"},
               "canThrow":false,"expressionType":"json"},
              {"type":"SingleRemoteOperationNode","dependencies":[2],"id":5,"estimatedCost":3,
               "estimatedNrItems":1,"database":"shop","collection":"users","satellite":false,
               "mode":"InsertNode","replaceIndexNode":false,"inVariable":{"id":0,"name":"#0"},
               "producesResult":false}],
             "rules":["remove-data-modification-out-variables","optimize-cluster-single-document-operations"],
             "collections":[{"name":"users","type":"write"}],"variables":[{"id":0,"name":"#0"}],
             "estimatedCost":3,"estimatedNrItems":1,"isModificationQuery":true}""";

    static final String CLUSTER_MULTIPLE_INSERT = """
            {"nodes":[
              {"type":"SingletonNode","dependencies":[],"id":1,"estimatedCost":1,"estimatedNrItems":1},
              {"type":"CalculationNode","dependencies":[1],"id":2,"estimatedCost":2,"estimatedNrItems":1,
               "expression":{"type":"array","subNodes":[]},"outVariable":{"id":2,"name":"#2"},
               "canThrow":false,"expressionType":"json"},
              {"type":"MultipleRemoteModificationNode","dependencies":[2],"id":5,"estimatedCost":5,
               "estimatedNrItems":3,"database":"shop","collection":"users","satellite":false,
               "inVariable":{"id":2,"name":"#2"},"modificationFlags":{"ignoreErrors":false}}],
             "rules":["remove-data-modification-out-variables","optimize-cluster-multiple-document-operations"],
             "collections":[{"name":"users","type":"write"}],"variables":[{"id":2,"name":"#2"}],
             "estimatedCost":5,"estimatedNrItems":3,"isModificationQuery":true}""";

    static final String CLUSTER_READ_BY_KEY = """
            {"nodes":[
              {"type":"SingletonNode","dependencies":[],"id":1,"estimatedCost":1,"estimatedNrItems":1},
              {"type":"SingleRemoteOperationNode","dependencies":[1],"id":6,"estimatedCost":2,
               "estimatedNrItems":1,"database":"shop","collection":"users","satellite":false,
               "mode":"IndexNode","replaceIndexNode":true,"key":"a","outVariable":{"id":0,"name":"u"},
               "producesResult":true},
              {"type":"ReturnNode","dependencies":[6],"id":5,"estimatedCost":3,"estimatedNrItems":1,
               "inVariable":{"id":0,"name":"u"},"count":true}],
             "rules":["optimize-cluster-single-document-operations"],
             "collections":[{"name":"users","type":"read"}],"variables":[{"id":0,"name":"u"}],
             "estimatedCost":3,"estimatedNrItems":1,"isModificationQuery":false}""";

    @Test
    void aReadPlanRunsAndItsRowsComeBack() {
        String aql = "FOR u IN users RETURN u";
        fake.plan(aql, READ_USERS.formatted("users", "users")).rows(aql, "[{\"name\":\"Ada\"}]");

        AqlResult result = bridge.run(aql, ExecutionMode.READ_ONLY);

        assertEquals(List.of(List.of("Ada")), result.rows());
        assertEquals(1, fake.explains(aql).size());
        assertEquals(1, fake.cursorRequests(aql).size());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "InsertNode  | INSERT {name: 'x'} INTO users",
            "UpdateNode  | FOR u IN users UPDATE u WITH {seen: true} IN users",
            "ReplaceNode | FOR u IN users REPLACE u WITH {name: 'y'} IN users",
            "RemoveNode  | FOR u IN users REMOVE u IN users",
            "UpsertNode  | UPSERT {name: 'x'} INSERT {name: 'x'} UPDATE {seen: true} IN users"})
    void eachWriteNodeIsRefusedBeforeAnythingRuns(String node, String aql) {
        fake.plan(aql, writePlan(node, ""));

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertEquals(AqlException.Reason.REFUSED, e.reason());
        assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, e.sqlState());
        assertEquals("AQL refused: this login may only read, and the plan contains " + node
                + " on collection users", e.getMessage());
        assertEquals(List.of(), fake.cursorRequests(aql));
    }

    @Test
    void clusterSingleDocumentWriteIsRefused() {
        String aql = "INSERT {_key: 'a'} INTO users";
        fake.plan(aql, CLUSTER_SINGLE_INSERT);

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertEquals("AQL refused: this login may only read, and the plan contains SingleRemoteOperationNode "
                + "in mode InsertNode on collection users", e.getMessage());
        assertEquals(List.of(), fake.cursorRequests(aql));
    }

    @Test
    void clusterBatchInsertIsRefused() {
        String aql = "FOR d IN [{a: 1}, {a: 2}] INSERT d INTO users";
        fake.plan(aql, CLUSTER_MULTIPLE_INSERT);

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertTrue(e.getMessage().endsWith("the plan contains MultipleRemoteModificationNode on collection users"),
                e.getMessage());
    }

    @Test
    void clusterSingleDocumentReadByKeyPasses() {
        String aql = "FOR u IN users FILTER u._key == 'a' RETURN u";
        fake.plan(aql, CLUSTER_READ_BY_KEY).rows(aql, "[{\"_key\":\"a\"}]");

        assertEquals(List.of(List.of("a")), bridge.run(aql, ExecutionMode.READ_ONLY).rows());
    }

    @Test
    void aPlanThatOnlySaysItModifiesDataIsRefused() {
        String aql = "FOR u IN users RETURN u";
        fake.plan(aql, READ_USERS.formatted("users", "users")
                .replace("\"isModificationQuery\":false", "\"isModificationQuery\":true"));

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertTrue(e.getMessage().endsWith("the plan is a data-modification query"), e.getMessage());
    }

    @Test
    void aPlanThatDoesNotSayWhetherItModifiesDataIsRefused() {
        String aql = "FOR u IN users RETURN u";
        fake.plan(aql, READ_USERS.formatted("users", "users").replace(",\n \"isModificationQuery\":false", "")
                .replace("\"isModificationQuery\":false", "\"other\":false"));

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertTrue(e.getMessage().endsWith("the plan does not say whether the query modifies data"), e.getMessage());
    }

    @Test
    void aCollectionUsedForWritingIsRefused() {
        String aql = "FOR u IN users RETURN u";
        fake.plan(aql, READ_USERS.formatted("users", "users").replace("\"type\":\"read\"", "\"type\":\"write\""));

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertTrue(e.getMessage().endsWith("the plan uses collection users for write"), e.getMessage());
    }

    @Test
    void aWriteInsideANestedSubqueryOfAnOlderServerIsRefused() {
        String aql = "LET x = (INSERT {a: 1} INTO users) RETURN 1";
        fake.plan(aql, """
                {"nodes":[{"type":"SingletonNode","dependencies":[],"id":1},
                  {"type":"SubqueryNode","dependencies":[1],"id":2,"subquery":{"nodes":[
                    {"type":"SingletonNode","dependencies":[],"id":3},
                    {"type":"InsertNode","dependencies":[3],"id":4,"collection":"users"}]}},
                  {"type":"ReturnNode","dependencies":[2],"id":5}],
                 "collections":[{"name":"users","type":"read"}],"isModificationQuery":false}""");

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertTrue(e.getMessage().endsWith("the plan contains InsertNode on collection users"), e.getMessage());
    }

    @Test
    void aReadOfACollectionNamedLikeAKeywordPasses() {
        String aql = "FOR u IN `update` RETURN u";
        fake.plan(aql, READ_USERS.formatted("update", "update")).rows(aql, "[{\"n\":1}]");

        assertEquals(List.of(List.of("1")), bridge.run(aql, ExecutionMode.READ_ONLY).rows());
    }

    @Test
    void aKeywordMatchDefersToTheEveryTimeFreshPlanCheckAndAReadPasses() {
        String aql = "FOR u IN users FILTER u.remove != true RETURN u.update";
        fake.plan(aql, READ_USERS.formatted("users", "users")).rows(aql, "[\"yes\"]");

        bridge.run(aql, ExecutionMode.READ_ONLY);
        AqlResult again = bridge.run(aql, ExecutionMode.READ_ONLY);

        assertEquals(List.of(List.of("yes")), again.rows());
        assertEquals(2, fake.explains(aql).size(), "a keyword match is never trusted from memory");
    }

    @Test
    void aStatementWithoutWriteKeywordsIsExplainedOnceThenRemembered() {
        String aql = "FOR u IN users RETURN u";
        fake.plan(aql, READ_USERS.formatted("users", "users"));

        bridge.run(aql, ExecutionMode.READ_ONLY);
        bridge.run(aql, ExecutionMode.READ_ONLY);

        assertEquals(1, fake.explains(aql).size());
        assertEquals(2, fake.cursorRequests(aql).size());
    }

    @Test
    void aStatementValidatedByTheQuestionPathRunsWithoutASecondExplain() {
        String aql = "FOR u IN users LIMIT 10 RETURN u.name";
        fake.plan(aql, READ_USERS.formatted("users", "users"));

        assertEquals(new Validation.Valid(aql), bridge.validate(aql));
        bridge.run(aql, ExecutionMode.READ_ONLY);

        assertEquals(1, fake.explains(aql).size());
    }

    @Test
    void aSyntaxErrorCarriesArangoDbsMessageAndNumber() {
        String aql = "FORM u IN users RETURN u";
        String message = "AQL: syntax error, unexpected identifier near 'FORM u IN users RETURN u' at position 1:1"
                + " (while parsing)";
        fake.explainError(aql, 400, 1501, message);

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertEquals(AqlException.Reason.SERVER_ERROR, e.reason());
        assertEquals(SqlStates.SYNTAX_ERROR, e.sqlState());
        assertEquals(1501, e.errorNum());
        assertEquals(message, e.arangoMessage());
        assertEquals("ArangoDB error 1501: " + message, e.getMessage());
        assertEquals(List.of(), fake.cursorRequests(aql));
    }

    @Test
    void anUnknownCollectionIsUndefinedTable() {
        String aql = "FOR u IN nope RETURN u";
        fake.explainError(aql, 404, 1203, "AQL: collection or view not found: nope (while parsing)");

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertEquals(SqlStates.UNDEFINED_TABLE, e.sqlState());
    }

    @Test
    void anExplainThatCannotBeAskedIsAnErrorNotAnAllow() {
        String aql = "FOR u IN users RETURN u";
        fake.close();

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertEquals(AqlException.Reason.UNREACHABLE, e.reason());
        assertEquals(SqlStates.CONNECTION_FAILURE, e.sqlState());
    }

    @Test
    void validateAnswersValidForAReadAndArangoDbsMessageOrTheRefusalOtherwise() {
        String read = "FOR u IN users RETURN u";
        String broken = "FOR u IN users RETURN";
        String write = "INSERT {name: 'x'} INTO users";
        fake.plan(read, READ_USERS.formatted("users", "users"))
                .explainError(broken, 400, 1501, "AQL: syntax error, unexpected end of query string")
                .plan(write, writePlan("InsertNode", ""));

        assertEquals(new Validation.Valid(read), bridge.validate(read));
        Validation.Invalid syntax = assertInstanceOf(Validation.Invalid.class, bridge.validate(broken));
        assertEquals("AQL: syntax error, unexpected end of query string", syntax.message());
        assertEquals(1501, syntax.errorNum());
        assertEquals(SqlStates.SYNTAX_ERROR, syntax.sqlState());
        Validation.Invalid refused = assertInstanceOf(Validation.Invalid.class, bridge.validate(write));
        assertEquals("AQL refused: this login may only read, and the plan contains InsertNode on collection users",
                refused.message());
        assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, refused.sqlState());
        assertEquals(List.of(), fake.requests("POST", "/_api/cursor").stream()
                .filter(r -> !r.body().path("query").asText().equals("RETURN 1")).toList(),
                "validate never runs a statement");
    }

    @Test
    void rawExecutionHasNoGate() {
        String aql = "INSERT {name: 'x'} INTO users";
        fake.plan(aql, writePlan("InsertNode", "")).writes(aql, 1);

        assertEquals("INSERT 0 1", bridge.run(aql, ExecutionMode.RAW).commandTag());
        assertEquals(List.of(), fake.explains(aql));
    }
}
