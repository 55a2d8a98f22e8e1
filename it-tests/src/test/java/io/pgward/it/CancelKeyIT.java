package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.protocol.SqlState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The BackendKeyData a client gets: its backend's real process id with a secret pgward made for the session. A
 * CancelRequest with that key reaches the backend; once the session has ended, its key cancels nothing, even
 * though the next client of the same pooled backend is told the same process id.
 */
@PostgresTest
class CancelKeyIT {

    private static final int CANCEL_REQUEST_CODE = 80877102;

    private static ProxyFixture proxy;
    private static TestDatabase database;

    private record Key(int processId, int secret) {
    }

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        proxy = ProxyFixture.start(db);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void aClientIsToldItsBackendsProcessId() throws Exception {
        try (RawClient client = new RawClient(proxy.port())) {
            Key key = logIn(client);
            client.query("SELECT pg_backend_pid()");
            assertEquals(Integer.toString(key.processId()), firstValue(client.readUntilReady()));
        }
    }

    @Test
    void aPooledBackendsNextClientGetsItsProcessIdWithANewSecretAndTheOldKeyCancelsNothing() throws Exception {
        Key first;
        try (RawClient client = new RawClient(proxy.port())) {
            first = logIn(client);
        }
        // The backend returns to the pool once its reset is done, on the I/O thread it was made on: log in until
        // a session is given it.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            RawClient next = new RawClient(proxy.port());
            Key key = logIn(next);
            if (key.processId() == first.processId()) {
                try (next) {
                    assertNotEquals(first.secret(), key.secret(), "a new secret for the new session");
                    assertOldKeyCancelsNothing(next, first);
                    assertKeyCancels(next, key);
                }
                return;
            }
            next.close();
            if (System.nanoTime() > deadline) {
                fail("no session was given the pooled backend " + first.processId() + " again within 10 s");
            }
        }
    }

    private static void assertOldKeyCancelsNothing(RawClient client, Key old) throws Exception {
        client.query("SELECT 'finished' FROM pg_sleep(2)");
        awaitActive(old.processId());
        cancel(old);
        List<RawClient.Message> reply = client.readUntilReady();
        assertTrue(reply.stream().noneMatch(m -> m.type() == 'E'), "the ended session's key cancelled: " + reply);
        assertEquals("finished", firstValue(reply));
    }

    private static void assertKeyCancels(RawClient client, Key key) throws Exception {
        client.query("SELECT pg_sleep(60)");
        awaitActive(key.processId());
        cancel(key);
        List<RawClient.Message> reply = client.readUntilReady();
        RawClient.Message error = reply.stream().filter(m -> m.type() == 'E').findFirst()
                .orElseThrow(() -> new AssertionError("not cancelled: " + reply));
        assertEquals(SqlState.QUERY_CANCELED, error.fields().get('C'));
        assertEquals("canceling statement due to user request", error.fields().get('M'));
    }

    /** Logs in with the trust login and returns the BackendKeyData it was given. */
    private static Key logIn(RawClient client) throws IOException {
        client.startup(Map.of("user", "trusted", "database", database.name()));
        for (RawClient.Message m : client.readUntilReady()) {
            if (m.type() == 'K') {
                ByteBuffer body = ByteBuffer.wrap(m.body());
                return new Key(body.getInt(), body.getInt());
            }
        }
        throw new AssertionError("no BackendKeyData");
    }

    /** Sends a CancelRequest on a connection of its own, as clients do; pgward closes it at once. */
    private static void cancel(Key key) throws IOException {
        try (RawClient canceller = new RawClient(proxy.port())) {
            canceller.raw(ByteBuffer.allocate(16).putInt(16).putInt(CANCEL_REQUEST_CODE).putInt(key.processId())
                    .putInt(key.secret()).array());
            assertEquals(List.of(), canceller.readUntilClosed());
        }
    }

    /** Waits until the backend runs the statement the client sent, so that a cancel cannot arrive before it. */
    private static void awaitActive(int processId) throws SQLException {
        try (Connection direct = Target.direct(database).connect();
             PreparedStatement ps = direct.prepareStatement(
                     "SELECT state = 'active' AND query LIKE '%pg_sleep%' FROM pg_stat_activity WHERE pid = ?")) {
            ps.setInt(1, processId);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getBoolean(1)) {
                        return;
                    }
                }
            }
            fail("backend " + processId + " did not start the statement within 10 s");
        }
    }

    /** The first column of the first DataRow, as text. */
    private static String firstValue(List<RawClient.Message> messages) {
        for (RawClient.Message m : messages) {
            if (m.type() == 'D') {
                ByteBuffer body = ByteBuffer.wrap(m.body());
                body.getShort();
                int length = body.getInt();
                return length < 0 ? null : new String(m.body(), 6, length, java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        throw new AssertionError("no DataRow in " + messages);
    }
}
