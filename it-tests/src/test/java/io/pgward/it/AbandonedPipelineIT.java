package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * psycopg 3 in pipeline mode reads an error and leaves without ever sending a Sync. PostgreSQL skips every
 * message after the error until a Sync, so a reset that only sent ROLLBACK and DISCARD ALL would wait forever,
 * and behind a pool of one connection the next client would get 53300 when its wait ran out. The next client
 * must be served at once, round after round.
 */
@PostgresTest
class AbandonedPipelineIT {

    private static final int ROUNDS = 3;
    private static ProxyFixture proxy;

    @BeforeAll
    static void start(TestDatabase database) {
        proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 1);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void theNextClientIsServedAtOnceAfterAPipelineLeftInItsError() throws Exception {
        for (String login : List.of("app", "analyst")) {
            JsonNode result = run(proxy.uri(login));
            assertEquals("[\"22012\",\"22012\",\"22012\"]", result.get("sqlstates").toString(), login);
            // The fixture's clients wait 2 s for a place; a backend stuck until the reset's own bound would
            // fail the next client with 53300 instead.
            double slowest = result.get("slowestNextClientSeconds").asDouble();
            assertTrue(slowest < 1.5, login + ": the next client waited " + slowest + " s");
        }
    }

    private static JsonNode run(String uri) throws Exception {
        var python = RealClients.requirePython("psycopg", "python3-psycopg");
        RealClients.Result result = RealClients.run(List.of(python.toString(), "abandoned_pipeline.py",
                uri + "?sslmode=disable", String.valueOf(ROUNDS)),
                ClientScript.clientsDirectory().resolve("python"), Map.of());
        assertEquals(0, result.exit(), result.out() + result.err());
        return ClientScript.JSON.readTree(result.out());
    }
}
