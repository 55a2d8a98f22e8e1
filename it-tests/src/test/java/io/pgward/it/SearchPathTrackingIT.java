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

    /**
     * PostgreSQL keeps the unnamed prepared statement until the next Parse of it or Query: the SET in a request of its
     * own, and pgward's question after it, must leave it for the client's next Bind. The Bind is sent behind the SET
     * without waiting for its reply, so it reaches pgward while pgward asks.
     */
    @Test
    void theUnnamedStatementOutlivesPgwardsQuestionAfterASetInTheExtendedProtocol() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", databaseName)) {
            client.parse("", "SELECT 42");
            client.sync();
            assertEquals(List.of('1', 'Z'), types(client.readUntilReady()));

            client.parse("set_hr", "SET search_path = hr");
            client.bind("", "set_hr");
            client.execute("");
            client.send('S', new byte[0]);
            client.bind("", "");
            client.execute("");
            client.sync();
            assertEquals(List.of('1', '2', 'C', 'Z'), withoutReports(client.readUntilReady()));
            List<RawClient.Message> bound = client.readUntilReady();
            assertEquals(List.of('2', 'D', 'C', 'Z'), types(bound), () -> "as PostgreSQL answers: " + shown(bound));
            assertEquals("42", bound.get(1).text().substring(6));
            assertEquals("hr", SEEN.getLast().searchPath(), "judged again with the path pgward asked for");
            assertNothingOfPgwardsLeft(client);
        }
    }

    /**
     * PostgreSQL keeps a portal until its transaction ends: the unnamed portal of a result read in part runs on after
     * a SET in the same transaction block, and pgward's question after it, as it would without pgward. pgward's
     * question takes no snapshot either: SET TRANSACTION still works after one at the start of a block.
     */
    @Test
    void theUnnamedPortalOfATransactionOutlivesPgwardsQuestionAfterASet() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", databaseName)) {
            client.query("BEGIN");
            client.readUntilReady();
            client.parse("", "SELECT g FROM generate_series(1, 3) g");
            client.bind("", "");
            client.execute("", 1);
            client.sync();
            assertEquals(List.of('1', '2', 'D', 's', 'Z'), types(client.readUntilReady()), "one row, then suspended");

            client.parse("set_hr", "SET search_path = hr");
            client.bind("set_portal", "set_hr");
            client.execute("set_portal");
            client.sync();
            assertEquals(List.of('1', '2', 'C', 'Z'), withoutReports(client.readUntilReady()));
            client.execute("", 0);
            client.sync();
            List<RawClient.Message> rest = client.readUntilReady();
            assertEquals(List.of('D', 'D', 'C', 'Z'), types(rest), () -> "as PostgreSQL answers: " + shown(rest));
            assertEquals('T', (char) rest.getLast().body()[0], "still in the transaction block");
            assertEquals("hr", pathSeenBy(client, "SELECT 1"));
            assertNothingOfPgwardsLeft(client);
            client.query("COMMIT");
            assertEquals(List.of('C', 'Z'), withoutReports(client.readUntilReady()));

            client.query("BEGIN");
            client.readUntilReady();
            client.query("SET search_path = public");
            client.readUntilReady();
            client.query("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
            assertEquals(List.of('C', 'Z'), withoutReports(client.readUntilReady()), "no snapshot was taken");
            assertEquals("public", pathSeenBy(client, "COMMIT"));
        }
    }

    /** pgward's statement and portal are closed in the request that made them: the client never finds them. */
    private static void assertNothingOfPgwardsLeft(RawClient client) throws Exception {
        client.query("SELECT (SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'pgward%')"
                + " + (SELECT count(*) FROM pg_cursors WHERE name LIKE 'pgward%')");
        List<RawClient.Message> reply = client.readUntilReady();
        assertEquals(List.of('T', 'D', 'C', 'Z'), types(reply));
        assertEquals("0", reply.get(1).text().substring(6));
    }

    /** What the session's last statement was judged with, after {@code sql} ran through the raw client. */
    private static String pathSeenBy(RawClient client, String sql) throws Exception {
        client.query(sql);
        client.readUntilReady();
        return SEEN.getLast().searchPath();
    }

    private static List<Character> types(List<RawClient.Message> messages) {
        return messages.stream().map(RawClient.Message::type).toList();
    }

    /** The types of the messages, with an error's SQLSTATE and message. */
    private static List<String> shown(List<RawClient.Message> messages) {
        return messages.stream().map(m -> m.type() == 'E' ? "E " + m.fields().get('C') + " " + m.fields().get('M')
                : String.valueOf(m.type())).toList();
    }

    /** PostgreSQL 18 reports search_path itself (ParameterStatus 'S'); the rest is what a client sees on any version. */
    private static List<Character> withoutReports(List<RawClient.Message> messages) {
        return types(messages).stream().filter(t -> t != 'S').toList();
    }

    private static String pathSeenBy(Statement s, String sql) throws SQLException {
        s.execute(sql);
        return SEEN.getLast().searchPath();
    }
}
