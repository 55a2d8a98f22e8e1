package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgward.guard.SqlStates;
import io.pgward.nl.NlSettings;
import io.pgward.nl.ProviderConfig;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Questions in plain language through pgward, from psql and pgjdbc, with an OpenAI-compatible provider that is a
 * scripted chat-completions server in this test: the generated SQL passes every guard layer and EXPLAIN, runs on
 * the client's own session, and what the model sees is only the login's table selection.
 */
@PostgresTest(sampleData = SampleData.SMALL)
class NaturalLanguageIT {

    static final List<String> SELECTION = List.of("public.orders", "public.customers", "public.products",
            "public.order_items", "public.v_sales", "public.mv_region_revenue");
    static final String DESCRIPTION = "The sample web shop; revenue counts orders neither cancelled nor refunded.";
    static final String RULES = "Amounts are in euros. Never show customer emails.";
    static final int MAX_ATTEMPTS = 3;
    static final int ROW_CAP = 60;

    static final String TOP_CUSTOMERS = "top 3 customers by revenue";
    static final String TOP_CUSTOMERS_SQL = "SELECT c.name, sum(o.total) AS revenue FROM public.customers AS c "
            + "JOIN public.orders AS o ON o.customer_id = c.id GROUP BY c.name ORDER BY revenue DESC LIMIT 3";
    static final String PER_STATUS = "how many orders per status";
    static final String PER_STATUS_WRONG = "SELECT state, count(*) AS orders FROM public.orders GROUP BY state "
            + "LIMIT 10";
    static final String PER_STATUS_SQL = "SELECT status, count(*) AS orders FROM public.orders GROUP BY status "
            + "ORDER BY status LIMIT 10";
    static final String AUDITED = "orders per status, for the audit";
    static final String DELETE_CANCELLED = "delete the cancelled orders";
    static final String DELETE_SQL = "DELETE FROM public.orders WHERE status = 'cancelled'";
    static final String CAPITAL = "what is the capital of France";
    static final String HOPELESS = "the average shoe size of our customers";
    static final String ALL_CUSTOMERS = "every customer";
    static final String ASKED_AGAIN = "orders per status, asked again";
    static final String UNQUALIFIED = "how many orders, by a name the search_path resolves";

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ScriptedLlmServer llm;
    private static ProxyFixture proxy;
    private static TestDatabase database;
    private static Path auditFile;

    @BeforeAll
    static void start(TestDatabase db) throws IOException {
        database = db;
        llm = new ScriptedLlmServer();
        llm.script(TOP_CUSTOMERS, ScriptedLlmServer.sql(TOP_CUSTOMERS_SQL));
        llm.script(PER_STATUS, ScriptedLlmServer.sql(PER_STATUS_WRONG), ScriptedLlmServer.sql(PER_STATUS_SQL));
        llm.script(AUDITED, ScriptedLlmServer.sql(PER_STATUS_WRONG), ScriptedLlmServer.sql(PER_STATUS_SQL));
        llm.script(DELETE_CANCELLED, ScriptedLlmServer.sql(DELETE_SQL),
                ScriptedLlmServer.notAboutTheDatabase("Questions are read-only: pgward cannot delete orders."));
        llm.script(CAPITAL, ScriptedLlmServer.notAboutTheDatabase("Paris; that is not a question about the shop."));
        llm.script(HOPELESS, ScriptedLlmServer.sql("SELECT shoe_size FROM public.customers LIMIT 5"),
                ScriptedLlmServer.sql("SELECT avg(shoe_size) FROM public.customers LIMIT 1"),
                ScriptedLlmServer.sql("SELECT name, shoe FROM public.customers LIMIT 5"));
        llm.script(ASKED_AGAIN, ScriptedLlmServer.sql(PER_STATUS_WRONG), ScriptedLlmServer.sql(PER_STATUS_SQL));
        llm.script(UNQUALIFIED, ScriptedLlmServer.sql("SELECT count(*) AS orders FROM orders LIMIT 1"));
        llm.script(ALL_CUSTOMERS, ScriptedLlmServer.sql("SELECT id, name FROM public.customers ORDER BY id LIMIT 1000"));
        auditFile = Files.createTempFile("pgward-nl-audit-", ".jsonl");
        NlSettings settings = NlSettings.defaults()
                .withProvider(new ProviderConfig.OpenAiCompatible(llm.baseUrl(), ScriptedLlmServer.MODEL,
                        Optional.empty(), Duration.ofSeconds(20), true))
                .withDescription(DESCRIPTION)
                .withMaxAttempts(MAX_ATTEMPTS);
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                config -> {
                    Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>(config.logins());
                    PgwardConfig.Login analyst = logins.get("analyst");
                    PgwardConfig.Policy policy = analyst.policy();
                    PgwardConfig.Policy asked = new PgwardConfig.Policy(policy.mode(), policy.statementTimeout(),
                            ROW_CAP, SELECTION, RULES);
                    logins.put("analyst", analyst.withPolicy(asked));
                    // The same policy behind trust, for raw protocol messages.
                    logins.put("reader", logins.get("reader").withPolicy(asked));
                    return config.withLogins(logins)
                            .withAudit(new PgwardConfig.Audit(PgwardConfig.AuditTarget.FILE, auditFile))
                            .withNl(settings).withMetrics(new PgwardConfig.Listen("127.0.0.1", 0));
                });
    }

    @AfterAll
    static void stop() throws IOException {
        proxy.close();
        llm.close();
        Files.deleteIfExists(auditFile);
    }

    private static List<List<String>> rows(ResultSet rs) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= columns; i++) {
                row.add(rs.getString(i));
            }
            rows.add(row);
        }
        return rows;
    }

    private static List<List<String>> direct(String sql) throws SQLException {
        try (Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rows(rs);
        }
    }

    private static String notices(Statement statement) throws SQLException {
        StringBuilder text = new StringBuilder();
        for (SQLWarning w = statement.getWarnings(); w != null; w = w.getNextWarning()) {
            text.append(w.getMessage()).append('\n');
        }
        return text.toString();
    }

    private static RealClients.Result psql(String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(RealClients.require("psql").toString(), "-X", "-A", "-t",
                "-F", "|", "-d", proxy.uri("analyst")));
        command.addAll(List.of(arguments));
        return RealClients.run(command);
    }

    @Test
    void askAnswersWithTheRowsOfTheGeneratedQueryAndShowsItInANotice() throws SQLException {
        List<List<String>> expected = direct(TOP_CUSTOMERS_SQL);
        assertEquals(3, expected.size());
        for (String mode : List.of("simple", "extended")) {
            try (Connection c = proxy.connectInMode("analyst", mode); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + TOP_CUSTOMERS + "')")) {
                assertEquals("name", rs.getMetaData().getColumnName(1), mode);
                assertEquals("revenue", rs.getMetaData().getColumnName(2), mode);
                assertEquals(expected, rows(rs), mode);
                String notices = notices(s);
                assertTrue(notices.contains(TOP_CUSTOMERS_SQL), mode + ": " + notices);
            }
        }
    }

    @Test
    void questionsAndTheirAttemptsAreCounted() throws Exception {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + TOP_CUSTOMERS + "')")) {
            assertEquals(3, rows(rs).size());
        }
        String scrape = Scrape.metrics(proxy);
        assertTrue(Scrape.value(scrape, "pgward_nl_questions_total\\{login=\"analyst\",outcome=\"valid-sql\"\\}")
                >= 1, scrape);
        assertTrue(Scrape.value(scrape, "pgward_nl_attempts_total\\{login=\"analyst\",result=\"passed\"\\}")
                >= 1, scrape);
        assertTrue(Scrape.value(scrape, "pgward_catalog_check_connections\\{state=\"idle\"\\}")
                + Scrape.value(scrape, "pgward_catalog_check_connections\\{state=\"active\"\\}") >= 1, scrape);
        assertFalse(scrape.contains(TOP_CUSTOMERS), "a question shows in the metrics");
    }

    @Test
    void psqlShowsTheRowsAndTheNotice() throws Exception {
        RealClients.Result result = psql("-c", "select * from pgward.ask('" + TOP_CUSTOMERS + "');");
        assertEquals(0, result.exit(), result.err());
        List<String> expected = direct(TOP_CUSTOMERS_SQL).stream().map(r -> String.join("|", r)).toList();
        assertEquals(expected, result.out().strip().lines().toList());
        assertTrue(result.err().contains("NOTICE:  pgward ran this query for the question"), result.err());
        assertTrue(result.err().contains(TOP_CUSTOMERS_SQL), result.err());
    }

    @Test
    void psqlScriptAsksWithTheBlockCommentForm() throws Exception {
        Path script = Files.createTempFile("pgward-nl-", ".sql");
        try {
            Files.writeString(script, "/* nl: " + TOP_CUSTOMERS + " */;\n");
            RealClients.Result result = psql("-f", script.toString());
            assertEquals(0, result.exit(), result.err());
            List<String> expected = direct(TOP_CUSTOMERS_SQL).stream().map(r -> String.join("|", r)).toList();
            assertEquals(expected, result.out().strip().lines().toList());
            assertTrue(result.err().contains(TOP_CUSTOMERS_SQL), result.err());
        } finally {
            Files.deleteIfExists(script);
        }
    }

    @Test
    void pgjdbcAsksWithTheLineCommentForm() throws SQLException {
        List<List<String>> expected = direct(TOP_CUSTOMERS_SQL);
        for (String mode : List.of("extended", "simple")) {
            try (Connection c = proxy.connectInMode("analyst", mode); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("-- nl: top 3 customers\n-- by revenue\n;")) {
                assertEquals(expected, rows(rs), mode);
                assertTrue(notices(s).contains(TOP_CUSTOMERS_SQL), mode);
            }
        }
    }

    @Test
    void aWrongColumnIsCorrectedAfterTheDatabaseErrorIsFedBack() throws Exception {
        try (Connection c = proxy.connect("analyst");
             PreparedStatement ps = c.prepareStatement("SELECT * FROM pgward.ask('" + PER_STATUS + "')");
             ResultSet rs = ps.executeQuery()) {
            assertEquals(direct(PER_STATUS_SQL), rows(rs));
        }
        List<JsonNode> requests = llm.requestsFor(PER_STATUS);
        assertEquals(2, requests.size(), "one correction");
        JsonNode messages = requests.get(1).get("messages");
        assertEquals(4, messages.size(), messages.toString());
        assertEquals(PER_STATUS_WRONG, JSON.readTree(messages.get(2).get("content").asText()).get("sql").asText());
        String feedback = messages.get(3).get("content").asText();
        assertTrue(feedback.contains(PER_STATUS_WRONG), feedback);
        assertTrue(feedback.contains("column \"state\" does not exist"), feedback);
    }

    /**
     * PostgreSQL analyses a prepared statement again after search_path changed, and so does pgward: the statement the
     * server holds is the one pgward wrote for the question, and that is what is judged again. Judging the client's
     * text again would ask the model again, and run whatever it answered the second time.
     */
    @Test
    void aPreparedQuestionBoundAfterSearchPathChangedIsNotAskedAgain() throws Exception {
        List<RawClient.Message> reply = askPreparedThenBindOnPath(ASKED_AGAIN, "public, pg_catalog");
        assertTrue(reply.stream().noneMatch(m -> m.type() == 'E'), () -> reply.stream()
                .map(m -> m.type() + " " + m.text()).toList().toString());
        assertEquals(direct(PER_STATUS_SQL).size(), reply.stream().filter(m -> m.type() == 'D').count());
        assertEquals(2, llm.requestsFor(ASKED_AGAIN).size(), "asked once, with one correction");
    }

    /**
     * Prepares a question as a named statement on the session's first path, sets {@code path}, then binds and runs
     * the statement: the reply to that.
     */
    private static List<RawClient.Message> askPreparedThenBindOnPath(String question, String path) throws IOException {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "reader", database.name())) {
            client.parse("question", "SELECT * FROM pgward.ask('" + question + "')");
            client.sync();
            assertTrue(client.readUntilReady().stream().anyMatch(m -> m.type() == '1'), "ParseComplete");
            client.query("SET search_path = " + path);
            assertTrue(client.readUntilReady().stream().noneMatch(m -> m.type() == 'E'));
            client.bind("", "question");
            client.execute("");
            client.sync();
            return client.readUntilReady();
        }
    }

    /** The statement pgward wrote for a question names what the path resolves: bound on another path, it is refused. */
    @Test
    void aPreparedQuestionBoundWhereItsNamesResolveToAHiddenTableIsRefused() throws Exception {
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS hr.orders(id bigint)");
            s.execute("TRUNCATE hr.orders");
            s.execute("INSERT INTO hr.orders VALUES (1)");
        }
        try {
            List<RawClient.Message> reply = askPreparedThenBindOnPath(UNQUALIFIED, "hr, public");
            assertTrue(reply.stream().noneMatch(m -> m.type() == 'D'), "rows of hr.orders: " + reply);
            assertTrue(reply.stream().anyMatch(m -> m.type() == 'E'
                    && SqlState.INSUFFICIENT_PRIVILEGE.equals(m.fields().get('C'))), reply::toString);
        } finally {
            try (Connection c = database.connect(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE hr.orders");
            }
        }
        assertEquals(1, llm.requestsFor(UNQUALIFIED).size());
    }

    @Test
    void aGeneratedDeleteIsRefusedFedBackAndNeverRun() throws SQLException {
        List<List<String>> before = direct("SELECT count(*) FROM orders WHERE status = 'cancelled'");
        assertNotEquals0(before);
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + DELETE_CANCELLED + "')")) {
            assertEquals("answer", rs.getMetaData().getColumnName(1));
            assertEquals(List.of(List.of("Questions are read-only: pgward cannot delete orders.")), rows(rs));
        }
        assertEquals(before, direct("SELECT count(*) FROM orders WHERE status = 'cancelled'"));
        List<JsonNode> requests = llm.requestsFor(DELETE_CANCELLED);
        assertEquals(2, requests.size());
        String feedback = requests.get(1).get("messages").get(3).get("content").asText();
        assertTrue(feedback.contains(DELETE_SQL) && feedback.contains("pgward refused"), feedback);
    }

    private static void assertNotEquals0(List<List<String>> count) {
        assertFalse(count.getFirst().getFirst().equals("0"), "the sample has cancelled orders");
    }

    @Test
    void aQuestionNotAboutTheDatabaseGetsOneAnswerRow() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + CAPITAL + "')")) {
            assertEquals(1, rs.getMetaData().getColumnCount());
            assertEquals("answer", rs.getMetaData().getColumnName(1));
            assertEquals(List.of(List.of("Paris; that is not a question about the shop.")), rows(rs));
        }
    }

    @Test
    void whenEveryAttemptFailsTheErrorListsEachAttempt() {
        for (String mode : List.of("simple", "extended")) {
            Properties props = new Properties();
            props.setProperty("preferQueryMode", mode);
            SQLException e = assertThrows(SQLException.class, () -> {
                try (Connection c = proxy.connect("analyst", props); Statement s = c.createStatement()) {
                    s.executeQuery("SELECT * FROM pgward.ask('" + HOPELESS + "')");
                }
            });
            assertEquals("XX000", e.getSQLState(), mode);
            String message = e.getMessage();
            assertTrue(message.contains("in " + MAX_ATTEMPTS + " attempts"), message);
            assertTrue(message.contains("attempt 1: column \"shoe_size\" does not exist"), message);
            assertTrue(message.contains("attempt 2: column \"shoe_size\" does not exist"), message);
            assertTrue(message.contains("attempt 3: column \"shoe\" does not exist"), message);
        }
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next(), "the session goes on after the error");
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void thePromptHoldsTheSelectionDescriptionAndRulesAndNothingElse() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + CAPITAL + "')")) {
            assertTrue(rs.next());
        }
        JsonNode request = llm.requestsFor(CAPITAL).getLast();
        assertEquals(ScriptedLlmServer.MODEL, request.get("model").asText());
        assertEquals("json_schema", request.at("/response_format/type").asText(), request.toString());
        String system = request.at("/messages/0/content").asText();
        for (String relation : SELECTION) {
            assertTrue(system.contains(relation), relation + " in\n" + system);
        }
        assertTrue(system.contains(DESCRIPTION), system);
        assertTrue(system.contains("<analyst_rules>\n" + RULES + "\n</analyst_rules>"), system);
        assertTrue(system.contains("'delivered'"), "value samples of the status enum:\n" + system);
        for (String hidden : List.of("salaries", "hr.", "payment_tokens", "card_brand")) {
            assertFalse(system.contains(hidden), hidden + " in\n" + system);
        }
    }

    @Test
    void theRowLimitAndTheLoginsRowCapBoundTheRows() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + ALL_CUSTOMERS + "', 7)")) {
                List<List<String>> rows = rows(rs);
                assertEquals(direct("SELECT id::text, name FROM customers ORDER BY customers.id LIMIT 7"), rows);
            }
            try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + ALL_CUSTOMERS + "')")) {
                assertEquals(ROW_CAP, rows(rs).size(), "the default 250 lowered to the login's row cap");
                assertTrue(notices(s).contains("at most " + ROW_CAP + " rows"), notices(s));
            }
            try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + ALL_CUSTOMERS + "', 100000)")) {
                assertEquals(ROW_CAP, rows(rs).size(), "a larger limit is lowered");
            }
            SQLException e = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM pgward.ask('" + ALL_CUSTOMERS + "', 0)"));
            assertEquals("22023", e.getSQLState());
        }
    }

    @Test
    void sqlGivesTheQueryWithoutRunningIt() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.sql('" + TOP_CUSTOMERS + "')")) {
                assertEquals(List.of("sql", "valid", "error", "answer"), columns(rs));
                assertEquals(List.of(java.util.Arrays.asList(TOP_CUSTOMERS_SQL, "true", null, null)), rows(rs));
            }
            try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.sql('" + HOPELESS + "')")) {
                List<List<String>> rows = rows(rs);
                assertEquals("SELECT name, shoe FROM public.customers LIMIT 5", rows.getFirst().get(0));
                assertEquals("false", rows.getFirst().get(1));
                assertTrue(rows.getFirst().get(2).contains("attempt 3: column \"shoe\" does not exist"),
                        rows.getFirst().get(2));
                assertNull(rows.getFirst().get(3));
            }
        }
    }

    private static List<String> columns(ResultSet rs) throws SQLException {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
            names.add(rs.getMetaData().getColumnName(i));
        }
        return names;
    }

    @Test
    void schemaAndDialectFromPgjdbcAndPsql() throws Exception {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            List<String> relations = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.schema()")) {
                assertEquals(List.of("relation", "kind", "column_name", "data_type", "not_null", "primary_key",
                        "references", "comment"), columns(rs));
                for (List<String> row : rows(rs)) {
                    if (!relations.contains(row.getFirst())) {
                        relations.add(row.getFirst());
                    }
                }
            }
            assertEquals(SELECTION.stream().sorted().toList(), relations.stream().sorted().toList());
            try (PreparedStatement ps = c.prepareStatement("SELECT * FROM pgward.schema('orders')");
                 ResultSet rs = ps.executeQuery()) {
                List<List<String>> rows = rows(rs);
                assertEquals(List.of("public.orders", "table", "id", "integer", "true", "true"),
                        rows.getFirst().subList(0, 6));
                List<String> customerId = rows.stream().filter(r -> r.get(2).equals("customer_id")).findFirst()
                        .orElseThrow();
                assertEquals(List.of("integer", "true", "false", "public.customers(id)"), customerId.subList(3, 7));
            }
            SQLException hidden = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM pgward.schema('hr.salaries')"));
            assertEquals(SqlStates.UNDEFINED_TABLE, hidden.getSQLState());
            try (ResultSet rs = s.executeQuery("SELECT pgward.dialect()")) {
                assertEquals(List.of(List.of("{\"dialect\": \"postgres\"}")), rows(rs));
            }
        }
        RealClients.Result schema = psql("-c", "select * from pgward.schema('customers');");
        assertEquals(0, schema.exit(), schema.err());
        assertTrue(schema.out().lines().anyMatch(l -> l.startsWith("public.customers|table|name|text|true|false")),
                schema.out());
        RealClients.Result dialect = psql("-c", "SELECT pgward.dialect();");
        assertEquals("{\"dialect\": \"postgres\"}", dialect.out().strip(), dialect.err());
    }

    @Test
    void refreshSchemaSeesDdlAndAQuestionCanUseIt() throws Exception {
        try (Connection admin = database.connect(); Statement ddl = admin.createStatement()) {
            Instant before = Instant.now();
            try {
                ddl.execute("ALTER TABLE products ADD COLUMN nl_colour text");
                RealClients.Result refreshed = psql("-c", "select pgward.refresh_schema();");
                assertEquals(0, refreshed.exit(), refreshed.err());
                assertFalse(Instant.parse(refreshed.out().strip()).isBefore(before.minusSeconds(1)), refreshed.out());
                try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT * FROM pgward.schema('products')")) {
                    assertTrue(rows(rs).stream().anyMatch(r -> r.get(2).equals("nl_colour")));
                }
            } finally {
                ddl.execute("ALTER TABLE products DROP COLUMN IF EXISTS nl_colour");
            }
        }
    }

    @Test
    void ddlThroughPgwardIsSeenWithoutARefresh() throws Exception {
        try (Connection analyst = proxy.connect("analyst"); Statement s = analyst.createStatement();
             Connection app = proxy.connect("app"); Statement ddl = app.createStatement()) {
            assertFalse(schemaColumns(s, "customers").contains("nl_nickname"));
            try {
                ddl.execute("ALTER TABLE customers ADD COLUMN nl_nickname text");
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (!schemaColumns(s, "customers").contains("nl_nickname")) {
                    assertTrue(System.nanoTime() < deadline, "the schema was not read again after the DDL");
                    java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
                }
            } finally {
                ddl.execute("ALTER TABLE customers DROP COLUMN IF EXISTS nl_nickname");
            }
        }
    }

    private static List<String> schemaColumns(Statement s, String relation) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.schema('" + relation + "')")) {
            return rows(rs).stream().map(r -> r.get(2)).toList();
        }
    }

    @Test
    void aFailingProviderIsAnErrorAndTheSessionGoesOn() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM pgward.ask('a question the model server has no reply for')"));
            assertEquals("XX000", e.getSQLState());
            assertTrue(e.getMessage().contains("the LLM provider failed"), e.getMessage());
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void aqlIsForArangoDatabasesOnly() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT * FROM pgward.aql('" + TOP_CUSTOMERS + "')"));
            assertEquals(SqlState.FEATURE_NOT_SUPPORTED, e.getSQLState());
            assertTrue(e.getMessage().contains("pgward.sql('question')"), e.getMessage());
        }
    }

    @Test
    void aBoundQuestionWithoutAColumnDefinitionListIsRefusedWithTheReason() throws SQLException {
        try (Connection c = proxy.connect("analyst");
             PreparedStatement ps = c.prepareStatement("SELECT * FROM pgward.ask(?)")) {
            ps.setString(1, TOP_CUSTOMERS);
            SQLException e = assertThrows(SQLException.class, ps::executeQuery);
            assertEquals("42601", e.getSQLState());
            assertTrue(e.getMessage().contains("needs a column definition list"), e.getMessage());
            assertTrue(e.getMessage().contains("as a string literal instead of $n"), e.getMessage());
        }
    }

    @Test
    void theAuditLogHasTheQuestionEachAttemptAndTheVerdict() throws Exception {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM pgward.sql('" + AUDITED + "')")) {
            assertTrue(rs.next());
        }
        List<JsonNode> lines = awaitAudit(AUDITED, 4);
        assertEquals(List.of("nl-question", "nl-attempt", "nl-attempt", "nl-verdict"),
                lines.stream().map(l -> l.get("verdict").asText()).toList(), lines.toString());
        assertEquals(AUDITED, lines.get(0).get("statement").asText());
        assertEquals("rejected", lines.get(1).get("rule").asText());
        assertTrue(lines.get(1).get("statement").asText().contains(PER_STATUS_WRONG));
        assertTrue(lines.get(1).get("statement").asText().contains("column \"state\" does not exist"));
        assertEquals("passed", lines.get(2).get("rule").asText());
        assertTrue(lines.get(2).get("statement").asText().endsWith(PER_STATUS_SQL));
        assertEquals("valid-sql", lines.get(3).get("rule").asText());
        assertTrue(lines.stream().allMatch(l -> l.get("login").asText().equals("analyst")));
    }

    /** The audit lines of the last asking of {@code question}, once the writer has written them. */
    private static List<JsonNode> awaitAudit(String question, int count) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            List<JsonNode> all = new ArrayList<>();
            for (String line : Files.readAllLines(auditFile)) {
                all.add(JSON.readTree(line));
            }
            int start = -1;
            for (int i = 0; i < all.size(); i++) {
                JsonNode l = all.get(i);
                if (l.get("verdict").asText().equals("nl-question") && l.get("statement").asText().equals(question)) {
                    start = i;
                }
            }
            if (start >= 0) {
                List<JsonNode> mine = all.subList(start, all.size()).stream()
                        .filter(l -> l.get("verdict").asText().startsWith("nl-")).limit(count).toList();
                if (mine.size() == count) {
                    return mine;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("audit lines for \"" + question + "\" not written: " + all);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }
}
