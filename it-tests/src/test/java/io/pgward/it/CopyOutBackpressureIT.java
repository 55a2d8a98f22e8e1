package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.net.SelfSignedCertificate;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * A large binary {@code COPY (SELECT ...) TO STDOUT} read by a client that stops reading for a while must arrive
 * whole, byte for byte, and end. While the client does not read, its socket buffers and pgward's fill up (the
 * COPY is larger than both), pgward's write to the client stalls, and the relay stops reading the server (the
 * server's connection shows a full receive queue); when the client reads again the relay must resume, for the
 * last bytes too (CopyDone, CommandComplete, ReadyForQuery), or the client waits forever while the server sits
 * idle having sent everything. Each round pauses at another row, so the stall meets the stream at a different
 * place each time; 100 rounds over TCP and 50 over TLS, each compared with the bytes PostgreSQL sends directly.
 * A round that stalls fails on the socket timeout instead of hanging.
 */
@PostgresTest
class CopyOutBackpressureIT {

    /** Rounds over plain TCP; TLS costs more per round, and the TLS relay has the same flow control under it. */
    private static final int ROUNDS = 100;
    private static final int TLS_ROUNDS = 50;
    private static final int PSYCOPG_ROUNDS = 25;
    private static final int ROWS = 1800;
    /**
     * About 5.8 MB in binary: more than the client's receive buffer (64 kB), pgward's write buffer (64 kB) and
     * the kernel's send buffer of pgward's client socket (up to 4 MB) hold together.
     */
    private static final String COPY = "copy (select i, repeat(md5(i::text), 99 + i % 3), i * 0.5::float8"
            + " from generate_series(1, " + ROWS + ") i) to stdout (format binary)";
    /** Long enough for every buffer between the server and the paused client to fill. */
    private static final long PAUSE_MILLIS = 120;

    @TempDir
    static Path certificates;
    private static TestDatabase database;
    private static ProxyFixture plain;
    private static ProxyFixture tls;
    private static byte[] direct;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        database = db;
        plain = ProxyFixture.start(db);
        SelfSignedCertificate.PemFiles pem = SelfSignedCertificate.write(certificates);
        tls = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, new Path[] {pem.certificate(), pem.key()},
                PgwardConfig.TlsMode.REQUIRE, 4);
        try (Connection c = db.connect()) {
            direct = copyOut(c, new Random(0), false);
        }
    }

    @AfterAll
    static void stop() {
        plain.close();
        tls.close();
    }

    @Test
    void aSlowlyReadCopyArrivesWholeEveryTime() throws Exception {
        rounds(plain, "disable", ROUNDS);
    }

    @Test
    void aSlowlyReadCopyArrivesWholeEveryTimeOverTls() throws Exception {
        rounds(tls, "require", TLS_ROUNDS);
    }

    /**
     * The shape of psycopg's own {@code test_copy_to_leaks}, which once stalled through pgward: a new async
     * connection per round, executemany in pipeline mode, then a small binary COPY read four ways.
     */
    @Test
    void psycopgAsyncCopiesEndRoundAfterRound() throws Exception {
        var python = RealClients.requirePython("psycopg", "python3-psycopg");
        RealClients.Result result = RealClients.run(List.of(python.toString(), "async_copy_rounds.py",
                tls.uri("app") + "?sslmode=require", String.valueOf(PSYCOPG_ROUNDS)),
                ClientScript.clientsDirectory().resolve("python"), Map.of());
        assertEquals(0, result.exit(), result.out() + result.err());
        assertEquals("{\"rounds\": " + PSYCOPG_ROUNDS + ", \"rows\": " + PSYCOPG_ROUNDS * 200 + "}",
                result.out().strip());
    }

    /**
     * The server ends the session (idle_session_timeout) while a slow client is still reading the COPY it sent
     * before: as directly, the client gets the whole COPY and then the server's FATAL, not a connection cut short
     * with the tail of the result still in pgward's write buffer.
     */
    @Test
    void whatTheServerSentBeforeItsFatalReachesASlowClient() throws Exception {
        Properties props = new Properties();
        props.setProperty("receiveBufferSize", "65536");
        props.setProperty("socketTimeout", "15");
        try (Connection c = plain.connect("app", props)) {
            try (Statement s = c.createStatement()) {
                s.execute("set idle_session_timeout = '200ms'");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CopyOut copy = c.unwrap(PGConnection.class).getCopyAPI().copyOut(COPY);
            int read = 0;
            byte[] data;
            try {
                while ((data = copy.readFromCopy()) != null) {
                    out.writeBytes(data);
                    if (++read == 300) {
                        // The server sends the rest into the buffers, goes idle and ends the session meanwhile.
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1000));
                    } else if (read > 300) {
                        // Then slowly (about 3 MB/s), so that pgward's buffers are full when it reads the end.
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                }
            } catch (SQLException e) {
                throw new AssertionError("the COPY was cut short after " + out.size() + " of " + direct.length
                        + " bytes", e);
            }
            assertSameBytes(1, out.toByteArray());
            SQLException fatal = assertThrows(SQLException.class, () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("select 1");
                }
            });
            assertEquals("57P05", fatal.getSQLState(), fatal.toString());
        }
    }

    private static void rounds(ProxyFixture proxy, String sslmode, int rounds) throws Exception {
        Properties props = new Properties();
        props.setProperty("sslmode", sslmode);
        props.setProperty("sslfactory", "org.postgresql.ssl.NonValidatingFactory");
        // A fixed receive buffer: the kernel's autotuning would otherwise let the client's socket take megabytes.
        props.setProperty("receiveBufferSize", "65536");
        props.setProperty("socketTimeout", "15");
        Random pace = new Random(17);
        for (int round = 1; round <= rounds; round++) {
            // A new session each round, as psycopg's leak test does, so each starts from a fresh backend lease.
            try (Connection c = proxy.connect("app", props)) {
                byte[] received;
                try {
                    received = copyOut(c, pace, true);
                } catch (SQLException e) {
                    throw new AssertionError("round " + round + " over sslmode=" + sslmode + " did not end", e);
                }
                assertSameBytes(round, received);
            }
        }
    }

    /**
     * Reads the COPY's CopyData messages one at a time; when {@code slowly}, stops reading once for {@link
     * #PAUSE_MILLIS}, after a row of the first half chosen by {@code pace}.
     */
    private static byte[] copyOut(Connection c, Random pace, boolean slowly) throws SQLException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CopyOut copy = c.unwrap(PGConnection.class).getCopyAPI().copyOut(COPY);
        // In the first half: the rest is more than the buffers hold, so the server finishes while the relay waits.
        int pauseAfter = slowly ? pace.nextInt(ROWS / 2) : -1;
        int read = 0;
        byte[] data;
        while ((data = copy.readFromCopy()) != null) {
            out.writeBytes(data);
            if (read++ == pauseAfter) {
                // The reader, not the network, sets the pace: this is the slow client, not a wait for a condition.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PAUSE_MILLIS));
            }
        }
        assertEquals(ROWS, copy.getHandledRowCount());
        return out.toByteArray();
    }

    private static void assertSameBytes(int round, byte[] received) throws Exception {
        if (!Arrays.equals(direct, received)) {
            int at = Arrays.mismatch(direct, received);
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            throw new AssertionError("round " + round + ": " + received.length + " bytes (sha-256 "
                    + HexFormat.of().formatHex(sha.digest(received)) + ") differ from PostgreSQL's " + direct.length
                    + " at byte " + at);
        }
    }
}
