package io.pgward.arango;

import dev.langchain4j.model.chat.request.ResponseFormatType;
import io.pgward.guard.SqlStates;
import io.pgward.nl.Attempt;
import io.pgward.nl.Generation;
import io.pgward.nl.NlAuditListener;
import io.pgward.nl.NlException;
import io.pgward.nl.NlSettings;
import io.pgward.testkit.ScriptedChatModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static io.pgward.testkit.ScriptedChatModel.Language.AQL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Questions on an ArangoDB database: a scripted model, the in-process ArangoDB, the bridge's real gate. */
class AqlAssistantTest {

    private static final String DESCRIPTION = "People of the computing pioneers club and who knows whom.";
    private static final String RULES = "Only count members who joined before 1960.";
    private static final String READ = "FOR u IN users SORT u.name LIMIT 5 RETURN {name: u.name}";

    private FakeArango fake;
    private ArangoBridge bridge;
    private final List<String> audit = new ArrayList<>();

    @BeforeEach
    void start() {
        fake = FakeArango.start()
                .collection("users", 2, """
                        [{"_key":"1","_id":"users/1","_rev":"_a","name":"Ada","age":36},
                         {"_key":"2","_id":"users/2","_rev":"_b","name":"Grace","email":"g@navy.mil"}]""")
                .collection("knows", 3, """
                        [{"_key":"k1","_id":"knows/k1","_rev":"_c","_from":"users/1","_to":"users/2","since":1950}]""")
                .indexes("users", """
                        [{"id":"users/12","name":"by_email","type":"persistent","fields":["email"],"unique":true,
                          "sparse":true}]""")
                .graph("""
                        {"_key":"social","_id":"_graphs/social","_rev":"_x","name":"social",
                         "edgeDefinitions":[{"collection":"knows","from":["users"],"to":["users"]}],
                         "orphanCollections":[]}""")
                .view("users_search", "arangosearch", """
                        {"links":{"users":{"fields":{"name":{"analyzers":["text_en"]}},"includeAllFields":false}}}""");
        // READ and the row-limit wrappers around it read users, as ArangoDB would plan them.
        fake.planWhere(aql -> aql.contains(READ), ReadOnlyGateTest.READ_USERS.formatted("users", "users"));
        fake.requireBasic(BridgeFixture.USER, BridgeFixture.PASSWORD);
        bridge = ArangoBridge.start(BridgeFixture.config(fake).withDescription(DESCRIPTION));
    }

    @AfterEach
    void stop() {
        bridge.close();
        fake.close();
    }

    private AqlAssistant assistant(ScriptedChatModel model, NlSettings settings) {
        return AqlAssistant.builder("analyst", bridge, settings)
                .chatModel(model)
                .rules(RULES)
                .audit(new NlAuditListener() {
                    @Override
                    public void question(String login, String question) {
                        audit.add("question " + login + " " + question);
                    }

                    @Override
                    public void attempt(String login, String question, Attempt attempt) {
                        audit.add("attempt " + attempt.number() + " " + attempt.sql() + " -> "
                                + attempt.error().orElse("ok"));
                    }

                    @Override
                    public void verdict(String login, String question, Generation generation) {
                        audit.add("verdict " + generation.getClass().getSimpleName());
                    }
                })
                .build();
    }

    private AqlAssistant assistant(ScriptedChatModel model) {
        return assistant(model, NlSettings.defaults());
    }

    /** The AQL statements pgward ran (not explained), leaving out the schema sample. */
    private List<String> ranStatements() {
        return fake.requests("POST", "/_api/cursor").stream().map(r -> r.body().path("query").asText())
                .filter(q -> !q.equals("RETURN 1") && !q.contains("@@collection")).toList();
    }

    @Test
    void syntaxErrorIsCorrectedAfterArangoDbsErrorIsFedBack() throws Exception {
        String wrong = "FOR u IN users RETRN u.name";
        String message = "syntax error, unexpected identifier near 'RETRN u.name' at position 1:16";
        fake.explainError(wrong, 400, 1501, message);
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(AQL, wrong),
                ScriptedChatModel.valid(AQL, READ));

        AqlAskResult result = assistant(model).ask("the first five member names", OptionalInt.empty());

        AqlAskResult.Rows rows = assertInstanceOf(AqlAskResult.Rows.class, result);
        assertEquals(READ, rows.generatedAql());
        assertEquals(2, rows.attempts());
        String feedback = model.lastUserText(1);
        assertEquals("That query was rejected.\nQuery:\n" + wrong + "\nError: ArangoDB error 1501: " + message
                + "\nReply with a corrected query in the same JSON form.", feedback);
        assertEquals(List.of("question analyst the first five member names",
                "attempt 1 " + wrong + " -> ArangoDB error 1501: " + message,
                "attempt 2 " + READ + " -> ok", "verdict Valid"), audit);
        assertEquals(List.of(), ranStatements(), "nothing runs before the proxy runs the answer");
    }

    @Test
    void generatedWritesAreRefusedByThePlanGateFedBackAndNeverRun() throws Exception {
        String insert = "INSERT {name: 'Linus'} INTO users";
        String remove = "FOR u IN users FILTER u.age > 30 REMOVE u IN users";
        fake.plan(insert, ReadOnlyGateTest.writePlan("InsertNode", ""))
                .plan(remove, ReadOnlyGateTest.writePlan("RemoveNode", ""));
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(AQL, insert),
                ScriptedChatModel.valid(AQL, remove), ScriptedChatModel.valid(AQL, READ));
        AqlAssistant assistant = assistant(model);

        AqlAskResult.Rows rows = assertInstanceOf(AqlAskResult.Rows.class,
                assistant.ask("add Linus, then forget the over-thirties", OptionalInt.of(5)));

        assertEquals(READ, rows.generatedAql());
        assertEquals(3, rows.attempts());
        String first = model.lastUserText(1);
        assertTrue(first.contains(insert), first);
        assertTrue(first.contains("Error: AQL refused: this login may only read, and the plan contains InsertNode "
                + "on collection users"), first);
        String second = model.lastUserText(2);
        assertTrue(second.contains(remove) && second.contains("RemoveNode on collection users"), second);
        assertEquals(1, fake.explains(insert).size());
        assertEquals(1, fake.explains(remove).size());

        fake.rows(rows.aqlToRun(), "[{\"name\":\"Ada\"},{\"name\":\"Grace\"}]");
        AqlResult.Collector collector = new AqlResult.Collector();
        AqlResult result = collector.result(assistant.run(rows, collector));
        assertEquals(List.of("name"), result.columns());
        assertEquals(List.of(List.of("Ada"), List.of("Grace")), result.rows());
        assertEquals(List.of(rows.aqlToRun()), ranStatements(), "only the validated read ran");
    }

    @Test
    void aQuestionNotAboutTheDatabaseIsAnsweredAndNothingIsExplained() throws Exception {
        ScriptedChatModel model = new ScriptedChatModel(
                ScriptedChatModel.notAboutTheDatabase(AQL, "I can only answer questions about the club's members."));

        AqlAskResult result = assistant(model).ask("what is the weather in Paris?", OptionalInt.empty());

        assertEquals(new AqlAskResult.Answer("I can only answer questions about the club's members."), result);
        assertEquals(List.of(), fake.requests("POST", "/_api/explain"));
        assertEquals(List.of("question analyst what is the weather in Paris?", "verdict NotAboutDatabase"), audit);

        GeneratedAql aql = assistant(new ScriptedChatModel(ScriptedChatModel.notAboutTheDatabase(AQL, "No.")))
                .aql("tell me a joke");
        assertEquals(new GeneratedAql(Optional.empty(), false, Optional.empty(), Optional.of("No.")), aql);
    }

    @Test
    void whenEveryAttemptFailsTheErrorListsEachAttempt() {
        String first = "FOR u IN userz RETURN u";
        String second = "FOR u IN users RETURN u.name +";
        fake.explainError(first, 404, 1203, "AQL: collection or view not found: userz (while parsing)")
                .explainError(second, 400, 1501, "syntax error, unexpected end of query string near '+'");
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(AQL, first),
                ScriptedChatModel.valid(AQL, second));

        NlException e = assertThrows(NlException.class, () -> assistant(model, NlSettings.defaults().withMaxAttempts(2))
                .ask("all members", OptionalInt.empty()));

        assertEquals(NlException.NO_VALID_SQL, e.sqlState());
        assertEquals("pgward could not write a valid query for this question in 2 attempts:"
                + "\nattempt 1: ArangoDB error 1203: AQL: collection or view not found: userz (while parsing)"
                + "\nattempt 2: ArangoDB error 1501: syntax error, unexpected end of query string near '+'",
                e.getMessage());
        assertEquals("verdict Exhausted", audit.getLast());
        assertEquals(List.of(), ranStatements());
    }

    @Test
    void aqlReportsTheGeneratedQueryWithoutRunningItAndReportsFailureAsARow() throws Exception {
        GeneratedAql valid = assistant(new ScriptedChatModel(ScriptedChatModel.valid(AQL, READ))).aql("five names");
        assertEquals(new GeneratedAql(Optional.of(READ), true, Optional.empty(), Optional.empty()), valid);
        assertEquals(Arrays.asList(READ, "true", null, null), valid.row());

        String wrong = "FOR u IN users RETRN u";
        fake.explainError(wrong, 400, 1501, "syntax error, unexpected identifier");
        GeneratedAql invalid = assistant(new ScriptedChatModel(ScriptedChatModel.valid(AQL, wrong)),
                NlSettings.defaults().withMaxAttempts(1)).aql("names");
        assertEquals(Optional.of(wrong), invalid.aql());
        assertFalse(invalid.valid());
        assertEquals(Optional.of("pgward could not write a valid query for this question in 1 attempt:"
                + "\nattempt 1: ArangoDB error 1501: syntax error, unexpected identifier"), invalid.error());
        assertEquals(List.of(), ranStatements());
    }

    @Test
    void thePromptHoldsCollectionsGraphsViewsDescriptionAndRules() throws Exception {
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(AQL, READ));
        assistant(model).ask("who knows Ada?", OptionalInt.of(40));

        String prompt = model.systemText(0);
        for (String part : List.of("AQL", "no bind parameters", "Never INSERT, UPDATE, REPLACE, REMOVE or UPSERT",
                "Always bound the result with a LIMIT of at most 40.",
                "Document collections:\n- users: fields _key (string), name (string), age (number), email (string); "
                        + "indexes persistent on email unique",
                "Edge collections (_from, _to):\n- knows: fields _key (string), _from (string), _to (string), "
                        + "since (number)",
                "- social: knows: users -> users",
                "- users_search (arangosearch): users [name [text_en]]",
                "About this database: " + DESCRIPTION,
                "<analyst_rules>\n" + RULES + "\n</analyst_rules>")) {
            assertTrue(prompt.contains(part), part + " missing from:\n" + prompt);
        }
        assertEquals("who knows Ada?", model.lastUserText(0));
        assertEquals(ResponseFormatType.JSON, model.requests().getFirst().responseFormat().type());
        assertEquals("pgward_aql", model.requests().getFirst().responseFormat().jsonSchema().name());
        assertTrue(model.requests().getFirst().responseFormat().jsonSchema().rootElement().toString().contains("aql"));
    }

    @Test
    void theRowLimitWrapsTheQueryAndIsValidatedOnce() throws Exception {
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(AQL, READ + ";"));

        AqlAskResult.Rows rows = assertInstanceOf(AqlAskResult.Rows.class,
                assistant(model).ask("five names", OptionalInt.of(10)));

        assertEquals(READ, rows.generatedAql(), "a trailing semicolon is dropped before EXPLAIN");
        assertEquals("FOR pgward_row IN (\n" + READ + "\n) LIMIT 10 RETURN pgward_row", rows.aqlToRun());
        assertEquals(10, rows.rowLimit());
        assertEquals(1, fake.explains(READ).size());
        assertEquals(1, fake.explains(rows.aqlToRun()).size());

        assistant(model).run(rows, new AqlResult.Collector());
        assertEquals(1, fake.explains(rows.aqlToRun()).size(), "the gate remembers the read it checked");
        assertEquals(List.of(rows.aqlToRun()), ranStatements());
    }

    @Test
    void theRowLimitIsTheDefaultAndNeverMoreThanTheCaps() throws Exception {
        AqlAskResult.Rows byDefault = assertInstanceOf(AqlAskResult.Rows.class,
                assistant(new ScriptedChatModel(ScriptedChatModel.valid(AQL, READ))).ask("q", OptionalInt.empty()));
        assertEquals(NlSettings.DEFAULT_ROW_LIMIT, byDefault.rowLimit());

        AqlAssistant capped = AqlAssistant.builder("analyst", bridge, NlSettings.defaults())
                .chatModel(new ScriptedChatModel(ScriptedChatModel.valid(AQL, READ))).rowCap(100).build();
        AqlAskResult.Rows loginCap = assertInstanceOf(AqlAskResult.Rows.class,
                capped.ask("q", OptionalInt.of(5_000)));
        assertEquals(100, loginCap.rowLimit());
        assertTrue(loginCap.aqlToRun().endsWith(") LIMIT 100 RETURN pgward_row"), loginCap.aqlToRun());

        try (ArangoBridge small = ArangoBridge.start(BridgeFixture.config(fake)
                .withLimits(AqlLimits.DEFAULTS.withMaxRows(30)))) {
            AqlAssistant databaseCap = AqlAssistant.builder("analyst", small, NlSettings.defaults())
                    .chatModel(new ScriptedChatModel(ScriptedChatModel.valid(AQL, READ))).build();
            assertEquals(30, assertInstanceOf(AqlAskResult.Rows.class,
                    databaseCap.ask("q", OptionalInt.empty())).rowLimit());
        }

        NlException negative = assertThrows(NlException.class, () -> assistant(new ScriptedChatModel())
                .ask("q", OptionalInt.of(-1)));
        assertEquals(NlException.INVALID_PARAMETER, negative.sqlState());
    }

    @Test
    void arangoDbGoingAwayDuringAQuestionIsAnErrorNotFeedback() {
        bridge.schema();
        fake.close();
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(AQL, READ));

        NlException e = assertThrows(NlException.class, () -> assistant(model).ask("names", OptionalInt.empty()));

        assertEquals(SqlStates.CONNECTION_FAILURE, e.sqlState());
        assertTrue(e.getMessage().startsWith("ArangoDB cannot be reached"), e.getMessage());
        assertEquals(1, model.requests().size(), "a fault is not fed back to the model");
    }

    @Test
    void aRefusedCredentialDuringAQuestionIsAnAccessErrorNotFeedback() {
        String other = "FOR u IN users RETURN u.name";
        fake.explainError(other, 401, 11, "not authorized to execute this request");
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(AQL, other),
                ScriptedChatModel.valid(AQL, READ));

        NlException e = assertThrows(NlException.class, () -> assistant(model).ask("names", OptionalInt.empty()));

        assertEquals("28000", e.sqlState());
        assertTrue(e.getMessage().contains("ArangoDB refused the credentials"), e.getMessage());
        assertEquals(1, model.requests().size(), "an access failure is not fed back to the model");
    }

    @Test
    void aLoginsSelectionRefusalIsFedBackAndThePromptShowsOnlyTheSelection() throws Exception {
        String secrets = "FOR s IN secrets RETURN s";
        fake.plan(secrets, ReadOnlyGateTest.READ_USERS.formatted("secrets", "secrets"));
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(AQL, secrets),
                ScriptedChatModel.valid(AQL, READ));
        AqlAssistant assistant = AqlAssistant.builder("analyst", bridge, NlSettings.defaults())
                .chatModel(model).policy(new AqlPolicy("analyst", Optional.of(java.util.Set.of("users")), 0, null))
                .build();

        AqlAskResult.Rows rows = assertInstanceOf(AqlAskResult.Rows.class, assistant.ask("q", OptionalInt.empty()));

        assertEquals(READ, rows.generatedAql());
        assertTrue(model.lastUserText(1).contains("Error: AQL refused: secrets is not among the collections and "
                + "views login \"analyst\" may read"), model.lastUserText(1));
        String prompt = model.systemText(0);
        assertTrue(prompt.contains("- users:") && !prompt.contains("- knows") && !prompt.contains("social"), prompt);
    }

    @Test
    void dialectAndSchemaRows() throws Exception {
        assertEquals("{\"dialect\": \"arango\"}", AqlAssistant.dialect());

        AqlAssistant assistant = assistant(new ScriptedChatModel());
        AqlResult all = assistant.schema(Optional.empty());
        assertEquals(List.of("kind", "name", "definition"), all.columns());
        assertEquals(List.of("edge collection knows", "document collection users", "graph social",
                        "view users_search"),
                all.rows().stream().map(r -> r.get(0) + " " + r.get(1)).toList());
        AqlResult users = assistant.schema(Optional.of("users"));
        assertEquals(List.of("document collection users", "graph social", "view users_search"),
                users.rows().stream().map(r -> r.get(0) + " " + r.get(1)).toList());
        assertTrue(users.rows().getFirst().get(2).contains("\"by_email\""), users.rows().getFirst().get(2));

        NlException unknown = assertThrows(NlException.class, () -> assistant.schema(Optional.of("nope")));
        assertEquals(SqlStates.UNDEFINED_TABLE, unknown.sqlState());
    }

    @Test
    void withoutAProviderQuestionsSayHowToConfigureOne() throws Exception {
        AqlAssistant unconfigured = AqlAssistant.builder("analyst", bridge, NlSettings.defaults()).build();

        NlException ask = assertThrows(NlException.class, () -> unconfigured.ask("q", OptionalInt.empty()));
        assertEquals(NlException.NOT_CONFIGURED, ask.sqlState());
        assertTrue(ask.getMessage().contains("nl.provider"), ask.getMessage());
        assertEquals(NlException.NOT_CONFIGURED,
                assertThrows(NlException.class, () -> unconfigured.aql("q")).sqlState());
        assertEquals(4, unconfigured.schema(Optional.empty()).rows().size());

        NlException empty = assertThrows(NlException.class,
                () -> assistant(new ScriptedChatModel()).ask(" ", OptionalInt.empty()));
        assertEquals(NlException.INVALID_PARAMETER, empty.sqlState());
    }
}
