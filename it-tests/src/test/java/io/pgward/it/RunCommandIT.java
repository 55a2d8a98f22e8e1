package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pgward run -c pgward.yaml} as an operator runs it, with secrets from the environment. */
@PostgresTest
class RunCommandIT {

    private static final Pattern LISTENING = Pattern.compile("listening on /?127\\.0\\.0\\.1:(\\d+)");

    @Test
    void servesTheConfiguredLoginsAndStopsOnSigterm(TestDatabase database, @TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("pgward.yaml"), """
                listen: 127.0.0.1:0
                backend:
                  host: %s
                  port: %d
                logins:
                  reporting:
                    password: ${REPORTING_PASSWORD}
                    backend_user: %s
                    backend_password: ${BACKEND_PASSWORD}
                    mode: read-only
                """.formatted(database.host(), database.port(), database.user()));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder builder = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "io.pgward.wire.cli.Main", "run", "--config", config.toString()).redirectErrorStream(true);
        builder.environment().put("REPORTING_PASSWORD", "from-the-environment");
        builder.environment().put("BACKEND_PASSWORD", database.password());
        Process pgward = builder.start();
        try {
            int port = awaitPort(pgward);
            Properties props = new Properties();
            props.setProperty("user", "reporting");
            props.setProperty("password", "from-the-environment");
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/"
                    + database.name(), props); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SHOW default_transaction_read_only")) {
                rs.next();
                assertEquals("on", rs.getString(1), "a read-only login's backend session is read-only");
            }
            pgward.destroy();
            assertTrue(pgward.waitFor(30, TimeUnit.SECONDS));
        } finally {
            pgward.destroyForcibly();
        }
    }

    private static int awaitPort(Process pgward) throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(pgward.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = reader.readLine()) != null) {
            seen.append(line).append('\n');
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> {
                    try {
                        reader.transferTo(java.io.Writer.nullWriter());
                    } catch (java.io.IOException ignored) {
                        // the process ended
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new AssertionError("pgward run exited before listening:\n" + seen);
    }
}
