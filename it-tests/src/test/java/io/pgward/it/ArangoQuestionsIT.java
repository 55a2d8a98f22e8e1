package io.pgward.it;

import static io.pgward.testkit.ScriptedChatModel.Language.AQL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.arango.AqlLimits;
import io.pgward.arango.ArangoAuth;
import io.pgward.arango.ArangoConfig;
import io.pgward.arango.FakeArango;
import io.pgward.nl.NlSettings;
import io.pgward.nl.ProviderConfig;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.ScriptedChatModel;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.arango.ArangoServing;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Questions on an ArangoDB database through pgward: the model (a scripted OpenAI-compatible server) writes AQL,
 * the plan gate and ArangoDB's EXPLAIN validate it, and the rows come back to psql and pgjdbc.
 */
@PostgresTest
class ArangoQuestionsIT {

    static final String SHOPDOCS = "shopdocs";
    static final String OLDEST = "Who is the oldest user?";
    static final String OLDEST_AQL = "FOR u IN users SORT u.age DESC LIMIT 1 RETURN u.name";
    static final String PURGE = "Remove the users nobody follows";
    static final String PURGE_AQL = "FOR u IN users REMOVE u IN users";
    static final String COUNT_AQL = "RETURN LENGTH(users)";

    private static FakeArango arango;
    private static ScriptedLlmServer llm;
    private static ArangoServing serving;
    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        arango = FakeArango.start();
        arango.rows(wrapped(OLDEST_AQL, 250), "[\"Ada\"]");
        arango.rows(wrapped(COUNT_AQL, 250), "[3]");
        arango.plan(PURGE_AQL, ArangoThroughProxyIT.REMOVE_PLAN);
        for (String read : List.of(OLDEST_AQL, wrapped(OLDEST_AQL, 250), COUNT_AQL, wrapped(COUNT_AQL, 250))) {
            arango.plan(read, ArangoThroughProxyIT.READ_PLAN.formatted("users", "users"));
        }
        llm = new ScriptedLlmServer();
        llm.script(OLDEST, ScriptedChatModel.valid(AQL, OLDEST_AQL));
        llm.script(PURGE, ScriptedChatModel.valid(AQL, PURGE_AQL), ScriptedChatModel.valid(AQL, COUNT_AQL));
        NlSettings settings = NlSettings.defaults().withProvider(new ProviderConfig.OpenAiCompatible(llm.baseUrl(),
                ScriptedLlmServer.MODEL, Optional.empty(), Duration.ofSeconds(20), true));
        ArangoConfig config = ArangoConfig.of(SHOPDOCS, arango.endpoint(), "shop",
                new ArangoAuth.UserPassword("", "")).withLimits(AqlLimits.DEFAULTS);
        serving = ArangoServing.start(List.of(config), List.of(), settings, null);
        proxy = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 4,
                c -> c.withArango(List.of(config)), serving.localDatabases());
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (serving != null) {
            serving.close();
        }
        llm.close();
        arango.close();
    }

    /** How pgward.ask runs generated AQL: limited, whatever the model wrote. */
    static String wrapped(String aql, int limit) {
        return "FOR pgward_row IN (\n" + aql + "\n) LIMIT " + limit + " RETURN pgward_row";
    }

    @Test
    void psqlAsksAQuestionAndGetsTheRowsAndTheAql() throws Exception {
        RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(), "-X", "-A", "-t",
                proxy.uri("analyst", SHOPDOCS), "-c", "select * from pgward.ask('" + OLDEST + "')"));
        assertEquals(0, result.exit(), result.err());
        assertEquals("Ada", result.out().strip());
        assertTrue(result.err().contains("AQL: " + OLDEST_AQL), result.err());
    }

    @Test
    void psqlAsksInTheCommentForm() throws Exception {
        RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(), "-X", "-A", "-t",
                proxy.uri("analyst", SHOPDOCS), "-c", "/* nl: " + OLDEST + " */"));
        assertEquals(0, result.exit(), result.err());
        assertEquals("Ada", result.out().strip());
    }

    @Test
    void pgjdbcAsksAndAGeneratedWriteIsFedBackNeverRun() throws SQLException {
        for (String mode : List.of("simple", "extended")) {
            Properties props = new Properties();
            props.setProperty("preferQueryMode", mode);
            try (Connection c = proxy.connectTo(SHOPDOCS, "analyst", props); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.ask('" + PURGE + "')")) {
                    assertTrue(rs.next());
                    assertEquals("3", rs.getString(1));
                    assertFalse(rs.next());
                }
                try (ResultSet rs = s.executeQuery("SELECT pgward.dialect()")) {
                    assertTrue(rs.next());
                    assertEquals("{\"dialect\": \"arango\"}", rs.getString(1));
                }
                try (ResultSet rs = s.executeQuery("SELECT * FROM pgward.aql('" + OLDEST + "')")) {
                    assertTrue(rs.next());
                    assertEquals(OLDEST_AQL, rs.getString("aql"));
                    assertEquals("true", rs.getString("valid"));
                }
                SQLException sqlOnly = assertThrows(SQLException.class,
                        () -> s.executeQuery("SELECT * FROM pgward.sql('" + OLDEST + "')"));
                assertEquals(SqlState.FEATURE_NOT_SUPPORTED, sqlOnly.getSQLState());
            }
        }
        List<JsonNode> requests = llm.requestsFor(PURGE);
        assertTrue(requests.size() >= 2, "the refusal was fed back");
        String feedback = requests.get(1).get("messages").toString();
        assertTrue(feedback.contains(PURGE_AQL) && feedback.contains("RemoveNode"), feedback);
        assertEquals(List.of(), arango.cursorRequests(PURGE_AQL), "the generated write never ran");
    }
}
