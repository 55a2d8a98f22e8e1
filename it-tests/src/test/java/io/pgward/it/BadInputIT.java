package io.pgward.it;

import static io.pgward.it.RawClient.concat;
import static io.pgward.it.RawClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.protocol.SqlState;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed input, dead backends and vanished clients: the affected connection gets PostgreSQL's error for it (an
 * ERROR after which the session goes on, or a FATAL that closes it), while a second session, opened before and used
 * after, keeps working.
 */
@PostgresTest
class BadInputIT {

    private static ProxyFixture proxy;
    private static TestDatabase database;
    private Connection bystander;

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        proxy = ProxyFixture.start(db);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @BeforeEach
    void openBystander() throws SQLException {
        bystander = proxy.connect("app");
        assertWorks(bystander);
    }

    @AfterEach
    void bystanderStillWorks() throws SQLException {
        assertWorks(bystander);
        bystander.close();
    }

    @Test
    void garbageInsteadOfAStartupPacketIsClosedWithoutAnAnswer() throws Exception {
        assertClosedWithoutAnswer(new byte[] {0, 0, 0, 3, 1, 2, 3, 4});
    }

    @Test
    void anAbsurdStartupLengthIsClosedWithoutAnAnswer() throws Exception {
        assertClosedWithoutAnswer(ByteBuffer.allocate(8).putInt(0x7fffffff).putInt(196608).array());
    }

    @Test
    void aTerminateBeforeTheStartupPacketIsClosedWithoutAnAnswer() throws Exception {
        // node-postgres's connect(); end(): its Terminate goes out before the startup packet that follows it.
        ByteBuffer startup = ByteBuffer.allocate(5 + 8 + 10).put((byte) 'X').putInt(4).putInt(8 + 10).putInt(196608)
                .put("user\0app\0\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertClosedWithoutAnswer(startup.array());
        assertClosedWithoutAnswer(new byte[] {'X', 0, 0, 0, 4});
    }

    @Test
    void anUnsupportedProtocolVersion() throws Exception {
        assertFatal(ByteBuffer.allocate(9).putInt(9).putInt(2 << 16).put((byte) 0).array(),
                SqlState.FEATURE_NOT_SUPPORTED,
                "unsupported frontend protocol 2.0: server supports 3.0 to 3.0");
    }

    @Test
    void anUnterminatedStartupPacket() throws Exception {
        byte[] body = "user\0app".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer packet = ByteBuffer.allocate(8 + body.length).putInt(8 + body.length).putInt(196608).put(body);
        assertFatal(packet.array(), SqlState.PROTOCOL_VIOLATION,
                "invalid startup packet layout: expected terminator as last byte");
    }

    @Test
    void aMissingUserName() throws Exception {
        try (RawClient client = new RawClient(proxy.port())) {
            client.startup(Map.of("database", "x"));
            List<RawClient.Message> reply = client.readUntilClosed();
            assertEquals(SqlState.INVALID_AUTHORIZATION_SPECIFICATION, reply.get(0).fields().get('C'));
            assertEquals("no PostgreSQL user name specified in startup packet", reply.get(0).fields().get('M'));
        }
    }

    @Test
    void aReadOnlyLoginCannotUseAnEncodingThatHidesQuotes() throws Exception {
        try (RawClient client = new RawClient(proxy.port())) {
            client.startup(java.util.Map.of("user", "reader", "database", database.name(), "client_encoding", "SJIS"));
            List<RawClient.Message> reply = client.readUntilClosed();
            RawClient.Message error = reply.getLast();
            assertEquals("FATAL", error.fields().get('S'));
            assertEquals(SqlState.FEATURE_NOT_SUPPORTED, error.fields().get('C'));
            assertEquals("pgward does not accept client_encoding \"SJIS\" for the read-only login \"reader\": "
                    + "statements in it cannot be checked reliably; use UTF8", error.fields().get('M'));
        }
        for (String readable : new String[] {"UTF8", "utf-8", "Unicode"}) {
            try (RawClient client = new RawClient(proxy.port())) {
                client.startup(java.util.Map.of("user", "reader", "database", database.name(),
                        "client_encoding", readable));
                assertEquals('I', (char) client.readUntilReady().getLast().body()[0], readable);
            }
        }
        try (RawClient client = new RawClient(proxy.port())) {
            client.startup(java.util.Map.of("user", "trusted", "database", database.name(), "client_encoding", "SJIS"));
            assertEquals('Z', client.readUntilReady().getLast().type(), "read-write logins are not checked");
        }
    }

    @Test
    void anUnknownMessageTypeMidSession() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.send('Y', new byte[] {1, 2, 3});
            client.flush();
            List<RawClient.Message> reply = client.readUntilClosed();
            assertEquals(1, reply.size());
            assertEquals("FATAL", reply.get(0).fields().get('S'));
            assertEquals(SqlState.PROTOCOL_VIOLATION, reply.get(0).fields().get('C'));
            assertEquals("invalid frontend message type 89", reply.get(0).fields().get('M'));
        }
    }

    /**
     * Messages framed correctly (type and length) whose body is malformed, each in the exchanges around it: every
     * exchange is sent whole and read up to its ReadyForQuery, and the errors of all of them are listed. The last
     * exchange, a SELECT 1, shows that the session goes on.
     */
    static Stream<Arguments> malformedBodies() {
        byte[] sync = frame('S', "");
        byte[] describeX = frame('D', "Xfoo\0");
        byte[] badQuery = frame('Q', "select 1");
        byte[] failing = concat(frame('P', "\0select 1/0\0\0\0"), frame('B', "\0\0\0\0\0\0\0\0"),
                frame('E', "\0\0\0\0\0"));
        String divisionByZero = "ERROR 22012 division by zero";
        String insufficientData = "ERROR 08P01 insufficient data left in message";
        return Stream.of(
                Arguments.of("Describe of kind X", List.of("ERROR 08P01 invalid DESCRIBE message subtype 88"),
                        List.of(concat(describeX, sync))),
                Arguments.of("Close of kind X", List.of("ERROR 08P01 invalid CLOSE message subtype 88"),
                        List.of(concat(frame('C', "Xfoo\0"), sync))),
                Arguments.of("Execute with a two-byte body", List.of(insufficientData),
                        List.of(concat(frame('E', "\0\0"), sync))),
                Arguments.of("FunctionCall with a two-byte body", List.of(insufficientData),
                        List.of(frame('F', "\0\0"))),
                Arguments.of("Parse announcing 60,000 parameter types and carrying none",
                        List.of(insufficientData),
                        List.of(concat(frame('P', "\0select 1\0\u00ea\u0060"), sync))),
                Arguments.of("Query without its terminating NUL", List.of("ERROR 08P01 invalid string in message"),
                        List.of(badQuery)),
                // PostgreSQL reads a message before it looks at the transaction: 08P01, not 25P02.
                Arguments.of("Execute with a two-byte body in a failed transaction",
                        List.of(divisionByZero, insufficientData),
                        List.of(frame('Q', "begin\0"), frame('Q', "select 1/0\0"),
                                concat(frame('E', "\0\0"), sync), frame('Q', "rollback\0"))),
                // The server skips to the Sync after an error and says nothing for what it skips.
                Arguments.of("Describe of kind X after an error in its batch", List.of(divisionByZero),
                        List.of(concat(failing, describeX, sync))),
                Arguments.of("Query without its NUL after an error in a batch", List.of(divisionByZero),
                        List.of(concat(failing, badQuery, sync))));
    }

    /** Each exchange goes to PostgreSQL itself and through pgward for either login; the answers must be the same. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedBodies")
    void aMalformedBodyGetsPostgresqlsErrorAndTheSessionGoesOn(String name, List<String> errors,
                                                              List<byte[]> exchanges) throws Exception {
        List<byte[]> thenSelectOne = new java.util.ArrayList<>(exchanges);
        thenSelectOne.add(frame('Q', "select 1\0"));
        List<String> direct;
        try (RawClient client = RawClient.loggedIn(database.port(), database.user(), database.password(),
                database.name())) {
            direct = client.replies(thenSelectOne);
        }
        assertEquals(errors, String.join("", direct).lines().filter(line -> line.startsWith("E "))
                .map(line -> line.substring(2)).toList(), "PostgreSQL's errors: " + direct);
        assertTrue(direct.getLast().endsWith("C SELECT 1|\nZ I\n"), direct.getLast());
        for (String login : new String[] {"reader", "trusted"}) {
            try (RawClient client = RawClient.loggedIn(proxy.port(), login, database.name())) {
                assertEquals(direct, client.replies(thenSelectOne), login);
            }
        }
    }

    @Test
    void anAbsurdMessageLengthMidSession() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.raw(new byte[] {'S', 0x7f, 0, 0, 0});
            List<RawClient.Message> reply = client.readUntilClosed();
            assertEquals(SqlState.PROTOCOL_VIOLATION, reply.get(0).fields().get('C'));
            assertEquals("invalid message length", reply.get(0).fields().get('M'));
        }
    }

    @Test
    void passwordMessagesAreRefusedAfterLogin() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.send('p', "secret\0".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            client.flush();
            List<RawClient.Message> reply = client.readUntilClosed();
            assertEquals(SqlState.PROTOCOL_VIOLATION, reply.get(0).fields().get('C'));
        }
    }

    @Test
    void aBackendThatDiesEndsOnlyItsOwnSession() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.query("SELECT pg_backend_pid()");
            List<RawClient.Message> reply = client.readUntilReady();
            String pid = reply.stream().filter(m -> m.type() == 'D').findFirst().orElseThrow().text().substring(6);
            try (Connection admin = database.connect(); Statement s = admin.createStatement()) {
                s.execute("SELECT pg_terminate_backend(" + pid.trim() + ")");
            }
            List<RawClient.Message> end = client.readUntilClosed();
            assertTrue(end.stream().anyMatch(m -> m.type() == 'E' && "FATAL".equals(m.fields().get('S'))), end.toString());
        }
    }

    @Test
    void aClientThatVanishesMidQueryHasItsQueryCancelled() throws Exception {
        try (RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.query("SELECT pg_sleep(60) /* vanishing */");
            awaitActivity(1);
        }
        awaitActivity(0);
    }

    private static void awaitActivity(int expected) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int seen = -1;
        try (Connection admin = database.connect(); Statement s = admin.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity "
                        + "WHERE query LIKE '%vanishing%' AND state = 'active' AND pid <> pg_backend_pid()")) {
                    rs.next();
                    seen = rs.getInt(1);
                }
                if (seen == expected) {
                    return;
                }
            }
        }
        assertEquals(expected, seen, "running copies of the query");
    }

    /**
     * PostgreSQL logs a bad startup length (COMMERROR) and closes without a word; pgward must do the same, so the
     * bytes go to both.
     */
    private static void assertClosedWithoutAnswer(byte[] bytes) throws Exception {
        for (int port : new int[] {database.port(), proxy.port()}) {
            try (RawClient client = new RawClient(port)) {
                client.raw(bytes);
                assertEquals(List.of(), client.readUntilClosed(), port == proxy.port() ? "pgward" : "PostgreSQL");
            }
        }
    }

    private static void assertFatal(byte[] bytes, String sqlState, String message) throws Exception {
        try (RawClient client = new RawClient(proxy.port())) {
            client.raw(bytes);
            List<RawClient.Message> reply = client.readUntilClosed();
            assertEquals(1, reply.size(), reply.toString());
            assertEquals("FATAL", reply.get(0).fields().get('S'));
            assertEquals(sqlState, reply.get(0).fields().get('C'));
            assertEquals(message, reply.get(0).fields().get('M'));
        }
    }

    private static void assertWorks(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT 2 * 21")) {
            rs.next();
            assertEquals(42, rs.getInt(1));
        }
    }
}
