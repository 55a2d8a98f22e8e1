package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code pgward demo} as a user runs it: a separate process that prints a psql command, answers psql, and on
 * SIGTERM (what Ctrl-C's shutdown path shares) stops PostgreSQL and exits.
 */
class DemoIT {

    private static final Pattern CONNECT = Pattern.compile("Connect:\\s+psql \"(postgresql://[^\"]+)\"");

    @Test
    void demoAnswersPsqlAndStopsCleanly() throws Exception {
        Path psql = RealClients.require("psql");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process demo = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "io.pgward.wire.cli.Main", "demo", "--scale", "0.1").redirectErrorStream(true).start();
        try {
            String uri = awaitConnectLine(demo);
            assertNotNull(uri, "the demo printed a psql command");

            RealClients.Result count = RealClients.run(List.of(psql.toString(), uri, "-At", "-c",
                    "select count(*) from orders"));
            assertEquals(0, count.exit(), count.err());
            assertEquals("10000", count.out().strip());

            int port = URI.create(uri).getPort();
            demo.destroy();
            assertTrue(demo.waitFor(60, TimeUnit.SECONDS), "demo exits on SIGTERM");
            assertFalse(accepts(port), "PostgreSQL stopped with the demo");
        } finally {
            demo.destroyForcibly();
        }
    }

    private static String awaitConnectLine(Process demo) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = reader.readLine()) != null) {
            seen.append(line).append('\n');
            Matcher m = CONNECT.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> {
                    try {
                        reader.transferTo(java.io.Writer.nullWriter());
                    } catch (IOException ignored) {
                        // the demo closed its output: nothing left to drain
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return m.group(1);
            }
        }
        throw new AssertionError("demo exited before printing how to connect:\n" + seen);
    }

    private static boolean accepts(int port) {
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
