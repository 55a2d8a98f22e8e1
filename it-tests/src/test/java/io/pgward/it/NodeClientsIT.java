package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * node-postgres, postgres.js and Drizzle ORM (over node-postgres), each running the scenarios in
 * {@code it-tests/clients/node}. The Node packages come from {@code npm ci} there, which {@code .ci/run}
 * does; without them these tests are skipped (failed in CI).
 */
@PostgresTest
@ExtendWith(Targets.StopAfterClass.class)
class NodeClientsIT {

    static final ClientScript NODE_POSTGRES = ClientScript.node("node-postgres", "pg-scenarios.mjs",
            "params", "rowModeArray", "transaction", "listenNotify", "error");
    static final ClientScript POSTGRES_JS = ClientScript.node("postgres.js", "postgresjs-scenarios.mjs",
            "params", "pipeline", "listenNotify", "error");
    static final ClientScript DRIZZLE = ClientScript.node("drizzle-orm", "drizzle-scenarios.mjs",
            "crud", "transaction");

    /** Parameters as PostgreSQL read them (the *_text columns) and as the drivers decoded the reply. */
    private static final String PARAMS_ROW = """
            {"int": 42, "int8": "9223372036854775807", "text": "héllo \\"wörld\\" \\\\ 'quoted'",
             "timestamptz": "2024-02-29T23:59:59.123Z", "numeric": "12345678901234567890.123456789012345678",
             "json": {"a": [1, 2.5, null, true], "b": {"c": "ü"}}, "bytea": "\\\\x0001027f80feff",
             "uuid": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "int_array": [1, null, 3],
             "text_array": ["a", null, "with \\"quotes\\"", "comma,here", "NULL", ""],
             "timestamptz_text": "2024-02-29 23:59:59.123+00",
             "json_text": "{\\"a\\":[1,2.5,null,true],\\"b\\":{\\"c\\":\\"ü\\"}}",
             "int_array_text": "{1,NULL,3}",
             "text_array_text": "{a,NULL,\\"with \\\\\\"quotes\\\\\\"\\",\\"comma,here\\",\\"NULL\\",\\"\\"}"}
            """;

    private static final String UNDEFINED_COLUMN = """
            {"severity": "ERROR", "code": "42703", "message": "column \\"no_such_column\\" does not exist",
             "position": 30}
            """;

    private final TestDatabase database;

    NodeClientsIT(TestDatabase database) {
        this.database = database;
    }

    @Test
    void nodePostgresEncodesAndDecodesTypedParameters() throws Exception {
        Targets.forEach(database, target -> {
            JsonNode out = NODE_POSTGRES.output("params", target);
            SameOutput.assertSameJson("decoded row", json(PARAMS_ROW), out.get("row"));
            // The type OIDs in RowDescription decide how pg parses each column.
            List<Integer> types = new ArrayList<>();
            out.get("fields").forEach(field -> types.add(field.get("type").asInt()));
            assertEquals(List.of(23, 20, 25, 1184, 1700, 114, 17, 2950, 1007, 1009, 25, 25, 25, 25), types);
        });
    }

    @Test
    void nodePostgresReturnsRowsAsArraysInRowModeArray() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("rowMode array",
                json("{\"fields\": [\"a\", \"b\"], \"rows\": [[1, \"x\"], [2, null]], \"rowCount\": 2}"),
                NODE_POSTGRES.output("rowModeArray", target)));
    }

    @Test
    void nodePostgresRollsBackCommitsAndRecoversAtASavepoint() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("transaction", json("""
                {"insideFirst": 1, "afterRollback": 0,
                 "duplicate": {"severity": "ERROR", "code": "23505", "position": null,
                   "message": "duplicate key value violates unique constraint \\"pgward_tx_pkey\\""},
                 "commitCommand": "COMMIT", "afterCommit": [{"id": 2, "note": "kept"}]}
                """), NODE_POSTGRES.output("transaction", target)));
    }

    @Test
    void nodePostgresReceivesNotificationsFromAnotherConnection() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("notifications", json("""
                {"notifications": [
                  {"channel": "pgward_channel", "payload": "first: ünïcode ✓", "fromNotifier": true},
                  {"channel": "pgward_channel", "payload": "second", "fromNotifier": true}]}
                """), NODE_POSTGRES.output("listenNotify", target)));
    }

    @Test
    void nodePostgresReportsSqlstateAndPositionAndStaysUsable() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("errors", json("""
                {"simple": %s,
                 "badParameter": {"severity": "ERROR", "code": "22P02", "position": null,
                   "message": "invalid input syntax for type integer: \\"not a number\\""},
                 "afterwards": 7}
                """.formatted(UNDEFINED_COLUMN)), NODE_POSTGRES.output("error", target)));
    }

    @Test
    void postgresJsEncodesAndDecodesParameters() throws Exception {
        Targets.forEach(database, target -> {
            JsonNode row = POSTGRES_JS.output("params", target).get("row");
            JsonNode expected = json(PARAMS_ROW);
            // sql.json() sends jsonb, whose text form PostgreSQL normalises.
            ((ObjectNode) expected).put("json_text",
                    "{\"a\": [1, 2.5, null, true], \"b\": {\"c\": \"ü\"}}");
            // postgres.js 3.4 parses a NULL element of text[] as the string "NULL" (text_array_text shows it
            // arrived as NULL): the driver's behaviour on PostgreSQL itself, recorded as such.
            ((ArrayNode) expected.get("text_array")).set(1, "NULL");
            SameOutput.assertSameJson("decoded row", expected, row);
        });
    }

    @Test
    void postgresJsPipelinesConcurrentQueriesOnOneConnection() throws Exception {
        Targets.forEach(database, target -> {
            JsonNode out = POSTGRES_JS.output("pipeline", target);
            assertTrue(out.get("oneConnection").asBoolean(), "all pipelined queries ran on one backend");
            JsonNode results = out.get("results");
            assertEquals(12, results.size());
            for (int i = 0; i < 12; i++) {
                JsonNode expected = i == 6
                        ? json("""
                                {"error": {"severity": "ERROR", "code": "22012", "message": "division by zero",
                                           "position": null}}
                                """)
                        : json("{\"n\": " + i + "}");
                SameOutput.assertSameJson("pipelined query " + i, expected, results.get(i));
            }
            SameOutput.assertSameJson("pipelined transaction",
                    json("{\"total\": 55, \"isolation\": \"read committed\"}"), out.get("transaction"));
        });
    }

    @Test
    void postgresJsListensAndNotifies() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("payloads",
                json("{\"payloads\": [\"first: ünïcode ✓\", \"second\"]}"),
                POSTGRES_JS.output("listenNotify", target)));
    }

    @Test
    void postgresJsReportsSqlstateAndPosition() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("errors", json("""
                {"parameterised": %s,
                 "syntax": {"severity": "ERROR", "code": "42601", "message": "syntax error at or near \\"SELEC\\"",
                   "position": 1},
                 "afterwards": 7}
                """.formatted(UNDEFINED_COLUMN)), POSTGRES_JS.output("error", target)));
    }

    @Test
    void drizzleInsertsReturningSelectsWithWhereUpdatesAndDeletes() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("crud", json("""
                {"inserted": [{"id": 1, "name": "lamp"}, {"id": 2, "name": "desk"},
                              {"id": 3, "name": "chair \\"pro\\""}],
                 "inStock": [
                   {"id": 1, "name": "lamp", "price": "19.90", "stock": 3, "tags": ["home", "light"],
                    "attributes": {"watts": 40}, "addedAt": "2024-03-01T10:00:00.000Z"},
                   {"id": 3, "name": "chair \\"pro\\"", "price": "89.50", "stock": 12, "tags": null,
                    "attributes": {"colors": ["red", "black"]}, "addedAt": "2024-03-01T10:00:00.000Z"}],
                 "updated": [{"name": "desk", "stock": 1}],
                 "duplicate": {"severity": "ERROR", "code": "23505", "position": null,
                   "message": "duplicate key value violates unique constraint \\"pgward_items_name_key\\""},
                 "deleted": [{"id": 1}],
                 "remaining": [{"name": "chair \\"pro\\""}, {"name": "desk"}]}
                """), DRIZZLE.output("crud", target)));
    }

    @Test
    void drizzleRollsBackWhenTheTransactionThrows() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("transaction", json("""
                {"thrown": "abort the order", "afterThrow": 0,
                 "constraint": {"severity": "ERROR", "code": "23505", "position": null,
                   "message": "duplicate key value violates unique constraint \\"pgward_items_name_key\\""},
                 "afterConstraint": 0,
                 "committed": [{"name": "kept"}], "afterCommit": 1}
                """), DRIZZLE.output("transaction", target)));
    }

    @Test
    void everyScenarioPrintsTheSameOutputOnEveryTarget() throws Exception {
        Target reference = Targets.reference(database);
        for (Target other : Targets.comparedWithReference(database)) {
            for (ClientScript script : new ClientScript[] {NODE_POSTGRES, POSTGRES_JS, DRIZZLE}) {
                SameOutput.assertSameOutputs(script, reference, other);
            }
        }
    }

    private static JsonNode json(String text) throws Exception {
        return ClientScript.JSON.readTree(text);
    }
}
