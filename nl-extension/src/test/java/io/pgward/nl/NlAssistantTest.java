package io.pgward.nl;

import static io.pgward.testkit.ScriptedChatModel.Language.SQL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.model.chat.request.ResponseFormatType;
import io.pgward.guard.policy.GuardPipeline;
import io.pgward.guard.policy.LoginPolicy;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.ScriptedChatModel;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

@PostgresTest(sampleData = SampleData.SMALL)
class NlAssistantTest {

    private static final String ROLE = "nl_analyst";
    private static final List<String> SELECTED = List.of("customers", "orders", "order_items", "v_sales");
    private static final GuardPipeline GUARD = GuardPipeline.withoutCatalog();

    private final TestDatabase db;
    private final List<String> audit = new ArrayList<>();
    private final List<String> guardedStatements = new ArrayList<>();

    NlAssistantTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    static void createRole(TestDatabase db) throws SQLException {
        execute(db, "CREATE ROLE " + ROLE + " NOLOGIN",
                "GRANT USAGE ON SCHEMA public TO " + ROLE,
                "GRANT SELECT ON customers, orders, order_items, products, v_sales, mv_region_revenue TO " + ROLE);
    }

    @AfterAll
    static void closeGuard() {
        GUARD.close();
    }

    private SchemaCatalog catalog() {
        return SchemaCatalog.builder(db::connect).role(ROLE).selection(RelationSelection.names(SELECTED)).build();
    }

    private NlAssistant assistant(ScriptedChatModel model, NlSettings settings) {
        SqlGuard recordingGuard = sql -> {
            guardedStatements.add(sql);
            return Optional.empty();
        };
        StatementValidator validator = new ExplainValidator(db::connect, Optional.of(ROLE), Optional.of("public"),
                Duration.ofSeconds(5)).after(recordingGuard.then(SqlGuard.readOnly(GUARD,
                new LoginPolicy("analyst", ROLE, null, List.of(), "logins.analyst.tables", null))));
        return NlAssistant.builder("analyst", settings, catalog())
                .chatModel(model)
                .rules("Revenue means orders.total of orders that were not cancelled.")
                .validator(validator)
                .audit(new NlAuditListener() {
                    @Override
                    public void question(String login, String question) {
                        audit.add("question " + question);
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

    private NlAssistant assistant(ScriptedChatModel model) {
        return assistant(model, NlSettings.defaults().withDescription("The EU webshop: customers, orders, lines."));
    }

    @Test
    void wrongColumnIsCorrectedAfterTheDatabaseErrorIsFedBack() throws Exception {
        String wrong = "SELECT customer_name FROM public.customers LIMIT 5";
        String right = "SELECT name FROM public.customers ORDER BY name LIMIT 5";
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(SQL, wrong),
                ScriptedChatModel.valid(SQL, right));

        AskResult result = assistant(model).ask("the first five customer names", OptionalInt.empty());

        AskResult.Rows rows = assertInstanceOf(AskResult.Rows.class, result);
        assertEquals(right, rows.generatedSql());
        assertEquals(2, rows.attempts());
        String feedback = model.lastUserText(1);
        assertTrue(feedback.contains(wrong), feedback);
        assertTrue(feedback.contains("column \"customer_name\" does not exist"), feedback);
        assertEquals(List.of("question the first five customer names",
                "attempt 1 " + wrong + " -> column \"customer_name\" does not exist",
                "attempt 2 " + right + " -> ok", "verdict Valid"), audit);
    }

    @Test
    void generatedDeleteIsRefusedByTheGuardFedBackAndNeverRun() throws Exception {
        long ordersBefore = count("orders");
        String delete = "DELETE FROM public.orders WHERE status = 'cancelled'";
        String select = "SELECT count(*) FROM public.orders WHERE status = 'cancelled' LIMIT 1";
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(SQL, delete),
                ScriptedChatModel.valid(SQL, select));

        AskResult result = assistant(model).ask("remove the cancelled orders", OptionalInt.empty());

        assertEquals(select, assertInstanceOf(AskResult.Rows.class, result).generatedSql());
        String feedback = model.lastUserText(1);
        assertTrue(feedback.contains(delete), feedback);
        String refusal = audit.get(1).substring(("attempt 1 " + delete + " -> ").length());
        assertTrue(refusal.startsWith("pgward refused"), audit.toString());
        assertTrue(feedback.contains("Error: " + refusal), feedback);
        assertEquals(List.of(delete, select), guardedStatements);
        assertEquals(ordersBefore, count("orders"));
    }

    @Test
    void questionNotAboutTheDatabaseIsAnsweredAndNothingIsValidated() throws Exception {
        ScriptedChatModel model = new ScriptedChatModel(
                ScriptedChatModel.notAboutTheDatabase(SQL, "I can only answer questions about the shop data."));

        AskResult result = assistant(model).ask("what is the capital of France?", OptionalInt.empty());

        assertEquals(new AskResult.Answer("I can only answer questions about the shop data."), result);
        assertTrue(guardedStatements.isEmpty());
        assertEquals("verdict NotAboutDatabase", audit.getLast());
    }

    @Test
    void exhaustingMaxAttemptsListsEveryAttemptsError() {
        ScriptedChatModel model = new ScriptedChatModel(
                ScriptedChatModel.valid(SQL, "SELECT nope FROM public.customers LIMIT 1"),
                "this is not JSON",
                ScriptedChatModel.valid(SQL, "SELECT * FROM hr.salaries LIMIT 1"));

        NlException e = assertThrows(NlException.class, () -> assistant(model,
                NlSettings.defaults().withMaxAttempts(3)).ask("anything", OptionalInt.empty()));

        assertEquals(3, model.requests().size());
        assertEquals(NlException.NO_VALID_SQL, e.sqlState());
        assertEquals("""
                pgward could not write a valid query for this question in 3 attempts:
                attempt 1: column "nope" does not exist
                attempt 2: the reply was not the JSON object asked for
                attempt 3: permission denied for schema hr""", e.getMessage());
        assertEquals("verdict Exhausted", audit.getLast());
    }

    @Test
    void sqlReportsTheErrorsWhenNoAttemptPasses() throws Exception {
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(SQL, "SELECT 1 FROM nowhere"));

        SqlResult result = assistant(model, NlSettings.defaults().withMaxAttempts(1)).sql("anything");

        assertFalse(result.valid());
        assertEquals(Optional.of("SELECT 1 FROM nowhere"), result.sql());
        assertTrue(result.error().orElseThrow().endsWith("attempt 1: relation \"nowhere\" does not exist"));
    }

    @Test
    void rowLimitWrapsTheQueryAndIsCappedByTheMaximumAndTheLoginRowCap() throws Exception {
        String query = "SELECT id, name FROM public.customers ORDER BY id DESC LIMIT 1000";
        AskResult.Rows seven = (AskResult.Rows) assistant(new ScriptedChatModel(ScriptedChatModel.valid(SQL, query)))
                .ask("customers", OptionalInt.of(7));
        assertEquals(7, seven.rowLimit());
        assertEquals("SELECT * FROM (\n" + query + "\n) AS pgward_nl LIMIT 7", seven.sqlToRun());
        List<Integer> ids = ids(seven.sqlToRun());
        assertEquals(7, ids.size());
        assertEquals(ids.stream().sorted((a, b) -> b - a).toList(), ids);

        assertEquals(250, ((AskResult.Rows) assistant(new ScriptedChatModel(ScriptedChatModel.valid(SQL, query)))
                .ask("customers", OptionalInt.empty())).rowLimit());
        assertEquals(25_000, ((AskResult.Rows) assistant(new ScriptedChatModel(ScriptedChatModel.valid(SQL, query)))
                .ask("customers", OptionalInt.of(1_000_000))).rowLimit());
        NlAssistant capped = NlAssistant.builder("analyst", NlSettings.defaults(), catalog())
                .chatModel(new ScriptedChatModel(ScriptedChatModel.valid(SQL, query + ";")))
                .rowCap(40).validator(sql -> Optional.empty()).build();
        AskResult.Rows cappedRows = (AskResult.Rows) capped.ask("customers", OptionalInt.of(100));
        assertEquals(40, cappedRows.rowLimit());
        assertEquals(query, cappedRows.generatedSql());
        NlException zero = assertThrows(NlException.class, () -> capped.ask("customers", OptionalInt.of(0)));
        assertEquals(NlException.INVALID_PARAMETER, zero.sqlState());
    }

    @Test
    void promptHoldsSelectedRelationsDescriptionRulesAndSamplesAndNothingElse() throws Exception {
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(SQL, "SELECT 1 LIMIT 1"));
        assistant(model).ask("revenue per region", OptionalInt.empty());

        String prompt = model.systemText(0);
        for (String name : List.of("table public.customers -- People and companies who buy from the shop.",
                "table public.orders", "table public.order_items", "view public.v_sales")) {
            assertTrue(prompt.contains(name), name + " missing from:\n" + prompt);
        }
        assertTrue(prompt.contains("The EU webshop: customers, orders, lines."), prompt);
        assertTrue(prompt.contains("<analyst_rules>\nRevenue means orders.total of orders that were not cancelled."
                + "\n</analyst_rules>"), prompt);
        assertTrue(prompt.contains("status order_status NOT NULL -- Lifecycle state of the order. [values: "), prompt);
        assertTrue(prompt.contains("'pending'"), prompt);
        assertTrue(prompt.contains("PRIMARY KEY (order_id, line_no)"), prompt);
        assertTrue(prompt.contains("FOREIGN KEY (customer_id) REFERENCES public.customers (id)"), prompt);
        assertTrue(prompt.contains("PostgreSQL") && prompt.contains("LIMIT"), prompt);
        for (String hidden : List.of("salaries", "hr.", "payment_tokens", "public.products", "mv_region_revenue",
                "card_brand", "SENSITIVE")) {
            assertFalse(prompt.contains(hidden), hidden + " leaked into:\n" + prompt);
        }
        assertEquals(ResponseFormatType.JSON, model.requests().getFirst().responseFormat().type());
        assertEquals("pgward_sql", model.requests().getFirst().responseFormat().jsonSchema().name());
    }

    @Test
    void withoutSelectionThePromptHoldsWhatTheRoleMaySelect() throws Exception {
        SchemaCatalog everything = SchemaCatalog.builder(db::connect).role(ROLE).build();
        List<String> names = everything.snapshot().relations().stream().map(Relation::qualifiedName).toList();
        assertEquals(List.of("public.customers", "public.mv_region_revenue", "public.order_items", "public.orders",
                "public.products", "public.v_sales"), names);
    }

    @Test
    void valueSamplesFollowTheDescribeRules() throws Exception {
        Relation customers = catalog().snapshot().find("customers").orElseThrow();
        // name and email have more than 10 distinct values; region and segment are low-cardinality.
        assertFalse(customers.samples().containsKey("name"));
        assertFalse(customers.samples().containsKey("email"));
        assertTrue(customers.samples().containsKey("segment"), customers.samples().toString());
        List<String> segments = customers.samples().get("segment");
        assertEquals(segments.stream().sorted().toList(), segments);
        assertTrue(segments.size() <= 10);
    }

    @Test
    void schemaRowsShowColumnsTypesAndKeys() throws Exception {
        NlAssistant assistant = assistant(new ScriptedChatModel());
        List<SchemaRow> rows = assistant.schema(Optional.of("public.ORDERS"));
        SchemaRow id = rows.getFirst();
        assertEquals(new SchemaRow("public.orders", "table", Optional.of("id"), Optional.of("integer"), true, true,
                Optional.empty(), Optional.empty()), id);
        SchemaRow customer = rows.get(1);
        assertEquals(Optional.of("public.customers(id)"), customer.references());
        assertTrue(assistant.schema(Optional.empty()).stream().anyMatch(r -> r.relation().equals("public.v_sales")));
        NlException unknown = assertThrows(NlException.class, () -> assistant.schema(Optional.of("hr.salaries")));
        assertEquals(NlException.UNDEFINED_TABLE, unknown.sqlState());
        assertEquals("{\"dialect\": \"postgres\"}", NlAssistant.dialect());
    }

    @Test
    void withoutProviderEveryQuestionSaysHowToConfigureOne() {
        NlAssistant assistant = NlAssistant.builder("analyst", NlSettings.defaults(), catalog())
                .validator(sql -> Optional.empty()).build();
        NlException ask = assertThrows(NlException.class, () -> assistant.ask("anything", OptionalInt.empty()));
        assertEquals(NlException.NOT_CONFIGURED, ask.sqlState());
        assertTrue(ask.getMessage().contains("nl.provider"), ask.getMessage());
        NlException sql = assertThrows(NlException.class, () -> assistant.sql("anything"));
        assertEquals(ask.getMessage(), sql.getMessage());
    }

    @Test
    void emptyAndOverlongQuestionsAreRefusedBeforeTheModelIsAsked() {
        ScriptedChatModel model = new ScriptedChatModel();
        NlAssistant assistant = assistant(model);
        assertEquals("the question is empty",
                assertThrows(NlException.class, () -> assistant.ask("  ", OptionalInt.empty())).getMessage());
        assertEquals(NlException.INVALID_PARAMETER, assertThrows(NlException.class,
                () -> assistant.sql("x".repeat(NlAssistant.MAX_QUESTION_LENGTH + 1))).sqlState());
        assertTrue(model.requests().isEmpty());
    }

    private long count(String table) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
            r.next();
            return r.getLong(1);
        }
    }

    private List<Integer> ids(String sql) throws SQLException {
        List<Integer> ids = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                ids.add(r.getInt(1));
            }
        }
        return ids;
    }

    static void execute(TestDatabase db, String... statements) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }
}
