package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.gate.GateRequest;
import io.pgward.wire.gate.StatementGate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A gate that wants the session's search_path gets it current with every statement: from the server at the
 * start, and again after each statement that may change it — in both protocols, inside transactions that set
 * it locally or roll it back, and in an aborted transaction — without the client ever seeing pgward ask.
 */
@PostgresTest
class SearchPathTrackingIT {

    private static final List<GateRequest> SEEN = new CopyOnWriteArrayList<>();
    private static final StatementGate RECORDING = new StatementGate() {
        @Override
        public CompletionStage<Verdict> check(GateRequest request) {
            SEEN.add(request);
            String sql = request.sql().stripLeading().toLowerCase();
            boolean changes = sql.startsWith("set") || sql.startsWith("reset") || sql.startsWith("rollback")
                    || sql.startsWith("commit") || sql.startsWith("discard");
            return CompletableFuture.completedFuture(changes ? Verdict.ALLOW_CHANGING_SEARCH_PATH : Verdict.ALLOW);
        }

        @Override
        public boolean wantsSearchPath() {
            return true;
        }
    };

    private static ProxyFixture proxy;
    private static String databaseName;

    @BeforeAll
    static void start(TestDatabase db) throws SQLException {
        databaseName = db.name();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS hr");
        }
        proxy = ProxyFixture.start(db, login -> RECORDING, null, PgwardConfig.TlsMode.DISABLE, 4);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @BeforeEach
    void forget() {
        SEEN.clear();
    }

    @Test
    void followsSetResetAndTransactionsInTheSimpleProtocol() throws Exception {
        Properties simple = new Properties();
        simple.setProperty("preferQueryMode", "simple");
        try (Connection c = proxy.connect("app", simple); Statement s = c.createStatement()) {
            assertEquals("\"$user\", public", pathSeenBy(s, "SELECT 1"));
            s.execute("SET search_path = hr, public");
            assertEquals("hr, public", pathSeenBy(s, "SELECT 2"));

            s.execute("BEGIN");
            s.execute("SET LOCAL search_path = pg_temp, hr");
            assertEquals("pg_temp, hr", pathSeenBy(s, "SELECT 3"));
            s.execute("ROLLBACK");
            assertEquals("hr, public", pathSeenBy(s, "SELECT 4"));

            s.execute("BEGIN");
            assertThrows(SQLException.class, () -> s.execute("SELECT 1/0"));
            assertThrows(SQLException.class, () -> s.execute("SET search_path = public"));
            assertEquals("hr, public", pathSeenBy(s, "ROLLBACK"), "the failed SET changed nothing");
            s.execute("RESET search_path");
            assertEquals("\"$user\", public", pathSeenBy(s, "SELECT 5"));
        }
    }

    @Test
    void followsSetInTheExtendedProtocol() throws Exception {
        try (Connection c = proxy.connect("app")) {
            try (PreparedStatement set = c.prepareStatement("SET search_path = hr")) {
                set.execute();
            }
            try (Statement s = c.createStatement()) {
                assertEquals("hr", pathSeenBy(s, "SELECT 6"));
            }
        }
    }

    @Test
    void theClientNeverSeesPgwardAsk() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", databaseName)) {
            client.query("SET search_path = hr");
            List<RawClient.Message> reply = client.readUntilReady();
            // PostgreSQL 18 reports search_path itself (ParameterStatus 'S'); pgward adds nothing to what it sends.
            assertEquals(List.of('C', 'Z'), reply.stream().map(RawClient.Message::type).filter(t -> t != 'S').toList());
            client.query("SELECT 7");
            assertEquals(List.of('T', 'D', 'C', 'Z'),
                    client.readUntilReady().stream().map(RawClient.Message::type).toList());
            assertEquals("hr", SEEN.getLast().searchPath());
        }
    }

    private static String pathSeenBy(Statement s, String sql) throws SQLException {
        s.execute(sql);
        return SEEN.getLast().searchPath();
    }
}
