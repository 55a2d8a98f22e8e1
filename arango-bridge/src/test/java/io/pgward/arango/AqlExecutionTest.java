package io.pgward.arango;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.guard.SqlStates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AqlExecutionTest {

    private FakeArango fake;
    private ArangoBridge bridge;

    @BeforeEach
    void start() {
        fake = FakeArango.start();
    }

    @AfterEach
    void stop() {
        if (bridge != null) {
            bridge.close();
        }
        fake.close();
    }

    @Test
    void objectsBecomeColumnsInOrderOfFirstAppearanceWithNestedValuesAsJson() {
        String aql = "FOR u IN users RETURN u";
        fake.reads(aql).rows(aql, """
                [{"name":"Ada","age":36,"tags":["math","engines"]},
                 {"name":"Grace","address":{"city":"Arlington"},"age":null,"active":true},
                 null]""");
        bridge = BridgeFixture.start(fake);

        AqlResult result = bridge.run(aql, ExecutionMode.READ_ONLY);

        assertEquals(List.of("name", "age", "tags", "address", "active"), result.columns());
        assertEquals(List.of(
                Arrays.asList("Ada", "36", "[\"math\",\"engines\"]", null, null),
                Arrays.asList("Grace", null, null, "{\"city\":\"Arlington\"}", "true"),
                Arrays.asList(null, null, null, null, null)), result.rows());
        assertEquals("SELECT 3", result.commandTag());
        assertEquals(OptionalLong.empty(), result.affectedRows());
    }

    @Test
    void anythingButObjectsIsOneValueColumn() {
        String aql = "FOR x IN [1, 'two', [3], {\"four\": 4}, null, 2.5, false] RETURN x";
        fake.reads(aql).rows(aql, "[1, \"two\", [3], {\"four\": 4}, null, 2.5, false]");
        bridge = BridgeFixture.start(fake);

        AqlResult result = bridge.run(aql, ExecutionMode.READ_ONLY);

        assertEquals(List.of("value"), result.columns());
        assertEquals(List.of(List.of("1"), List.of("two"), List.of("[3]"), List.of("{\"four\":4}"),
                Arrays.asList((String) null), List.of("2.5"), List.of("false")), result.rows());
        assertEquals("SELECT 7", result.commandTag());
    }

    @Test
    void anEmptyReadHasOneValueColumnAndNoRows() {
        fake.reads("FOR u IN users FILTER u.age > 200 RETURN u");
        bridge = BridgeFixture.start(fake);

        AqlResult result = bridge.run("FOR u IN users FILTER u.age > 200 RETURN u", ExecutionMode.READ_ONLY);

        assertEquals(List.of("value"), result.columns());
        assertEquals(List.of(), result.rows());
        assertEquals("SELECT 0", result.commandTag());
    }

    @Test
    void batchesAreFetchedAsTheyAreConsumedAndColumnsComeFromTheFirstBatch() {
        String aql = "FOR i IN 1..5 RETURN {n: i}";
        fake.reads(aql).rows(aql, "[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":4,\"late\":true},{\"n\":5}]");
        bridge = ArangoBridge.start(BridgeFixture.config(fake.requireBasic(BridgeFixture.USER, BridgeFixture.PASSWORD))
                .withLimits(AqlLimits.DEFAULTS.withBatchSize(2)));
        List<String> events = new ArrayList<>();

        AqlCompletion completion = bridge.run(aql, Map.of(), ExecutionMode.READ_ONLY, new RowSink() {
            @Override
            public void columns(List<String> names) {
                events.add("columns " + names + " after " + fake.cursorRequests(aql).size()
                        + " cursor call(s) and " + followUps() + " follow-up(s)");
            }

            @Override
            public void row(List<String> values) {
                events.add("row " + values + " after " + followUps() + " follow-up(s)");
            }
        });

        assertEquals(List.of(
                "columns [n] after 1 cursor call(s) and 0 follow-up(s)",
                "row [1] after 0 follow-up(s)",
                "row [2] after 0 follow-up(s)",
                "row [3] after 1 follow-up(s)",
                "row [4] after 1 follow-up(s)",
                "row [5] after 2 follow-up(s)"), events);
        assertEquals("SELECT 5", completion.commandTag());
        List<FakeArango.Recorded> followUps = fake.requests().stream()
                .filter(r -> r.method().equals("POST") && r.path().startsWith("/_api/cursor/")).toList();
        assertEquals(List.of("/_api/cursor/77/2", "/_api/cursor/77/3"),
                followUps.stream().map(FakeArango.Recorded::path).toList());
    }

    private long followUps() {
        return fake.requests().stream()
                .filter(r -> r.method().equals("POST") && r.path().startsWith("/_api/cursor/")).count();
    }

    @Test
    void runtimeMemoryCountAndBatchSizeAreSentWithTheCursorRequest() {
        String aql = "FOR u IN users RETURN u.name";
        fake.reads(aql);
        bridge = ArangoBridge.start(BridgeFixture.config(fake.requireBasic(BridgeFixture.USER, BridgeFixture.PASSWORD))
                .withLimits(AqlLimits.DEFAULTS.withMaxRuntime(Duration.ofMillis(2500)).withMemoryLimit(64L << 20)
                        .withBatchSize(300)));

        bridge.run(aql, ExecutionMode.READ_ONLY);

        JsonNode body = fake.cursorRequests(aql).getFirst().body();
        assertEquals(2.5, body.path("options").path("maxRuntime").asDouble());
        assertEquals(64L << 20, body.path("memoryLimit").asLong());
        assertTrue(body.path("count").asBoolean());
        assertEquals(300, body.path("batchSize").asInt());
    }

    @Test
    void defaultLimitsAreThirtySecondsAndOneGibibyte() {
        String aql = "FOR u IN users RETURN u.name";
        bridge = BridgeFixture.start(fake);

        bridge.run(aql, ExecutionMode.RAW);

        JsonNode body = fake.cursorRequests(aql).getFirst().body();
        assertEquals(30.0, body.path("options").path("maxRuntime").asDouble());
        assertEquals(1L << 30, body.path("memoryLimit").asLong());
    }

    @Test
    void aResultPastTheRowCapFailsTheStatementBeforeAnyRowIsSent() {
        String aql = "FOR i IN 1..4 RETURN i";
        fake.reads(aql).rows(aql, "[1,2,3,4]");
        bridge = ArangoBridge.start(BridgeFixture.config(fake.requireBasic(BridgeFixture.USER, BridgeFixture.PASSWORD))
                .withLimits(AqlLimits.DEFAULTS.withMaxRows(3).withBatchSize(2)));
        List<List<String>> sent = new ArrayList<>();

        AqlException e = assertThrows(AqlException.class,
                () -> bridge.run(aql, Map.of(), ExecutionMode.READ_ONLY, collectingInto(sent)));

        assertEquals(AqlException.Reason.ROW_CAP, e.reason());
        assertEquals(SqlStates.PROGRAM_LIMIT_EXCEEDED, e.sqlState());
        assertTrue(e.getMessage().contains("more than 3 rows"), e.getMessage());
        assertEquals(List.of(), sent);
        assertEquals(0, fake.openCursors(), "the cursor is deleted, not left to time out");
        assertEquals(1, fake.requests("DELETE", "/_api/cursor/77").size());
    }

    @Test
    void theRowCapHoldsWhenTheServerSendsNoCount() {
        String aql = "FOR i IN 1..4 RETURN i";
        fake.reads(aql).rows(aql, "[1,2,3,4]").omitCount();
        bridge = ArangoBridge.start(BridgeFixture.config(fake.requireBasic(BridgeFixture.USER, BridgeFixture.PASSWORD))
                .withLimits(AqlLimits.DEFAULTS.withMaxRows(3).withBatchSize(2)));

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertEquals(AqlException.Reason.ROW_CAP, e.reason());
        assertEquals(0, fake.openCursors());
    }

    @Test
    void aResultExactlyAtTheRowCapIsReturnedWhole() {
        String aql = "FOR i IN 1..3 RETURN i";
        fake.reads(aql).rows(aql, "[1,2,3]");
        bridge = ArangoBridge.start(BridgeFixture.config(fake.requireBasic(BridgeFixture.USER, BridgeFixture.PASSWORD))
                .withLimits(AqlLimits.DEFAULTS.withMaxRows(3).withBatchSize(2)));

        assertEquals("SELECT 3", bridge.run(aql, ExecutionMode.READ_ONLY).commandTag());
    }

    @Test
    void theRuntimeLimitComesBackAsQueryCanceled() {
        String aql = "FOR i IN 1..100000000 RETURN SLEEP(1)";
        fake.reads(aql).cursorError(aql, 410, 1500, "query killed");
        bridge = BridgeFixture.start(fake);

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.READ_ONLY));

        assertEquals(AqlException.Reason.RUNTIME_LIMIT, e.reason());
        assertEquals(SqlStates.QUERY_CANCELED, e.sqlState());
        assertEquals(1500, e.errorNum());
        assertEquals("query killed", e.arangoMessage());
    }

    @Test
    void theMemoryLimitComesBackAsOutOfMemory() {
        String aql = "FOR i IN 1..100000000 RETURN i";
        fake.reads(aql).cursorError(aql, 500, 32,
                "query would use more memory than allowed (while allocating 65536 bytes)");
        bridge = BridgeFixture.start(fake);

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.RAW));

        assertEquals(AqlException.Reason.MEMORY_LIMIT, e.reason());
        assertEquals("53200", e.sqlState());
    }

    @Test
    void rawWritesReportAffectedRowsFromTheCursorStatistics() {
        String insert = "FOR i IN 1..3 INSERT {n: i} INTO users";
        String update = "FOR u IN users UPDATE u WITH {seen: true} IN users";
        String remove = "FOR u IN users FILTER u.n == 1 REMOVE u IN users";
        fake.writes(insert, 3).writes(update, 7).writes(remove, 1);
        bridge = BridgeFixture.start(fake);

        AqlResult inserted = bridge.run(insert, ExecutionMode.RAW);
        AqlResult updated = bridge.run(update, ExecutionMode.RAW);
        AqlResult removed = bridge.run(remove, ExecutionMode.RAW);

        assertEquals("INSERT 0 3", inserted.commandTag());
        assertEquals(OptionalLong.of(3), inserted.affectedRows());
        assertEquals(List.of(), inserted.columns(), "a write without rows has no row description");
        assertEquals("UPDATE 7", updated.commandTag());
        assertEquals("DELETE 1", removed.commandTag());
        assertEquals(OptionalLong.of(1), removed.affectedRows());
        assertEquals(List.of(), fake.explains(insert), "raw execution has no gate");
    }

    @Test
    void aRawWriteThatReturnsRowsIsASelectWithAffectedRows() {
        String aql = "INSERT {name: 'Lin'} INTO users RETURN NEW._key";
        fake.reads(aql).rows(aql, "[\"123\"]").writes(aql, 1);
        bridge = BridgeFixture.start(fake);

        AqlResult result = bridge.run(aql, ExecutionMode.RAW);

        assertEquals(List.of("value"), result.columns());
        assertEquals(List.of(List.of("123")), result.rows());
        assertEquals("SELECT 1", result.commandTag());
        assertEquals(OptionalLong.of(1), result.affectedRows());
    }

    @Test
    void arangoDbsWarningsComeWithTheCompletion() {
        String aql = "RETURN 1 / 0";
        fake.reads(aql).rows(aql, "[null]").warnings(aql, "[{\"code\":1562,\"message\":\"division by zero\"}]");
        bridge = BridgeFixture.start(fake);

        AqlResult result = bridge.run(aql, ExecutionMode.READ_ONLY);

        assertEquals(List.of("1562: division by zero"), result.completion().warnings());
        assertEquals(List.of(Arrays.asList((String) null)), result.rows());
    }

    @Test
    void aRawReadOfAnAttributeNamedLikeAKeywordIsStillASelect() {
        String aql = "FOR u IN users FILTER u.update == 1 RETURN u";
        bridge = BridgeFixture.start(fake);

        assertEquals("SELECT 0", bridge.run(aql, ExecutionMode.RAW).commandTag());
    }

    private static RowSink collectingInto(List<List<String>> rows) {
        return new RowSink() {
            @Override
            public void columns(List<String> names) {
            }

            @Override
            public void row(List<String> values) {
                rows.add(values);
            }
        };
    }
}
