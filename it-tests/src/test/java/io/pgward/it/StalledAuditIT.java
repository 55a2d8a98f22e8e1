package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit cannot exhaust pgward's memory: {@code pgward run} writes audit lines to a stdout nobody reads (as
 * {@code pgward run | sleep 900} does), while a read-only login sends refused statements of 4 MiB each, 600 MiB in
 * all, more than the heap pgward's launcher gives it. Before the audit queue was bounded and long statements cut,
 * every one of them stayed queued in full and pgward ran out of memory within seconds. Now it keeps answering, and
 * what stays alive in its heap after a full collection (the JVM's class histogram of live objects, the one
 * {@code jcmd GC.class_histogram} prints) is a small fraction of what was sent.
 */
@PostgresTest
class StalledAuditIT {

    private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("^Total\\s+\\d+\\s+(\\d+)", Pattern.MULTILINE);
    private static final int STATEMENTS = 150;
    private static final int STATEMENT_BYTES = 4 << 20;
    /** The queue holds at most 32 Mi characters; everything else pgward keeps is a few MiB. */
    private static final long LIVE_HEAP_LIMIT = 128L << 20;

    @Test
    void refusedStatementsWithAStalledStdoutCostLinesNotMemory(TestDatabase database, @TempDir Path dir)
            throws Exception {
        int port = freePort();
        Path config = Files.writeString(dir.resolve("pgward.yaml"), """
                listen: 127.0.0.1:%d
                backend:
                  host: %s
                  port: %d
                audit:
                  target: stdout
                logins:
                  analyst:
                    password: analyst-pw
                    backend_user: %s
                    backend_password: %s
                    mode: read-only
                """.formatted(port, database.host(), database.port(), database.user(), database.password()));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        // The launcher's heap and collector (the pgward script), so that running out of memory means what it means
        // in production; stdout is a pipe this test never reads, and fills after 64 KiB.
        Process pgward = new ProcessBuilder(java.toString(), "-XX:+UseSerialGC", "-Xms32m", "-Xmx512m",
                "-XX:MaxDirectMemorySize=512m", "-cp", System.getProperty("java.class.path"),
                "io.pgward.wire.cli.Main", "run", "--config", config.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            awaitListening(pgward, port);
            try (Connection c = connect(port, database.name()); Statement s = c.createStatement()) {
                String padding = "x".repeat(STATEMENT_BYTES);
                for (int i = 0; i < STATEMENTS; i++) {
                    String sql = "DELETE FROM pg_class WHERE relname = '" + i + padding + "'";
                    SQLException refused = assertThrows(SQLException.class, () -> s.execute(sql));
                    assertTrue(refused.getMessage().startsWith("ERROR: pgward refused"), refused.getMessage());
                }
                long live = liveHeapBytes(pgward.pid());
                assertTrue(live < LIVE_HEAP_LIMIT, "pgward keeps " + (live >> 20) + " MiB alive after "
                        + (((long) STATEMENTS * STATEMENT_BYTES) >> 20) + " MiB of refused statements");
                try (ResultSet rs = s.executeQuery("SELECT 1")) {
                    assertTrue(rs.next(), "the session still works");
                }
            }
            assertTrue(pgward.isAlive(), "pgward is still running");
        } finally {
            pgward.destroyForcibly();
            pgward.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static Connection connect(int port, String database) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", "analyst");
        props.setProperty("password", "analyst-pw");
        props.setProperty("preferQueryMode", "simple");
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, props);
    }

    /** Live objects only: {@code GC.class_histogram} runs a full collection first. */
    private static long liveHeapBytes(long pid) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process histogram = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
                .redirectErrorStream(true).start();
        String out = new String(histogram.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(histogram.waitFor(60, TimeUnit.SECONDS));
        Matcher total = HISTOGRAM_TOTAL.matcher(out);
        assertTrue(total.find(), out);
        return Long.parseLong(total.group(1));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** stdout, where pgward says where it listens, is the pipe this test leaves unread: try to connect instead. */
    private static void awaitListening(Process pgward, int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            assertTrue(pgward.isAlive(), "pgward run exited with " + (pgward.isAlive() ? "" : pgward.exitValue()));
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new AssertionError("pgward run did not listen on " + port + " within 120 s");
    }
}
