package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.arango.FakeArango;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pgward run} with an {@code arango:} section: the database is probed before pgward listens, a wrong
 * credential stops the start with the probe's message, a working one is served by name. The PostgreSQL backend
 * is never contacted here.
 */
class ArangoRunCommandIT {

    private static final Pattern LISTENING = Pattern.compile("listening on /?127\\.0\\.0\\.1:(\\d+)");
    private static final String ARANGO_PASSWORD = "arango-secret-value";

    private FakeArango arango;

    @BeforeEach
    void startArango() {
        arango = FakeArango.start().requireBasic("pgward_reader", ARANGO_PASSWORD).reads("RETURN 1");
    }

    @AfterEach
    void stopArango() {
        arango.close();
    }

    @Test
    void aRefusedCredentialStopsTheStartNamingTheEntry(@TempDir Path dir) throws Exception {
        Process pgward = run(config(dir, "shop"), "wrong-password");
        try {
            assertTrue(pgward.waitFor(60, TimeUnit.SECONDS), "pgward run did not stop");
            String output = new String(pgward.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(1, pgward.exitValue(), output);
            assertTrue(output.contains("pgward run: arango.shopdocs: ArangoDB at " + arango.endpoint()
                    + " refused user 'pgward_reader' for database 'shop': the credentials are wrong, or they have "
                    + "no access to the database, or database 'shop' does not exist (HTTP 401, error 11"), output);
            assertFalse(output.contains("wrong-password"), "the password never shows");
            assertFalse(output.contains("listening"), output);
        } finally {
            pgward.destroyForcibly();
        }
    }

    @Test
    void aMissingDatabaseStopsTheStart(@TempDir Path dir) throws Exception {
        Process pgward = run(config(dir, "nosuchdb"), ARANGO_PASSWORD);
        try {
            assertTrue(pgward.waitFor(60, TimeUnit.SECONDS), "pgward run did not stop");
            String output = new String(pgward.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(1, pgward.exitValue(), output);
            // A user other than root cannot tell a missing database from a missing grant: ArangoDB answers both
            // with HTTP 401, errorNum 11.
            assertTrue(output.contains("pgward run: arango.shopdocs: ArangoDB at " + arango.endpoint()
                    + " refused user 'pgward_reader' for database 'nosuchdb': the credentials are wrong, or they "
                    + "have no access to the database, or database 'nosuchdb' does not exist (HTTP 401, error 11"),
                    output);
        } finally {
            pgward.destroyForcibly();
        }
    }

    @Test
    void servesTheProbedDatabaseByNameAndStopsOnSigterm(@TempDir Path dir) throws Exception {
        Process pgward = run(config(dir, "shop"), ARANGO_PASSWORD);
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(pgward.getInputStream(),
                    StandardCharsets.UTF_8));
            StringBuilder seen = new StringBuilder();
            int port = -1;
            String line;
            while (port < 0 && (line = out.readLine()) != null) {
                seen.append(line).append('\n');
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    port = Integer.parseInt(m.group(1));
                    assertTrue(line.contains("ArangoDB databases [shopdocs -> " + arango.endpoint() + "/shop]"),
                            line);
                }
            }
            assertTrue(port > 0, "pgward run exited before listening:\n" + seen);
            Thread.ofVirtual().start(() -> {
                try {
                    out.transferTo(java.io.Writer.nullWriter());
                } catch (java.io.IOException ignored) {
                    // the process ended
                }
            });
            assertEquals(2, arango.requests("GET", "/_api/version").size() + arango.cursorRequests("RETURN 1")
                    .size(), "the probe asked the version and ran RETURN 1");
            RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(),
                    "postgresql://viewer@127.0.0.1:" + port + "/shopdocs", "-At", "-c", "RETURN 1"));
            assertEquals(0, result.exit(), result.err());
            assertEquals("1", result.out().strip());
            pgward.destroy();
            assertTrue(pgward.waitFor(30, TimeUnit.SECONDS));
        } finally {
            pgward.destroyForcibly();
        }
    }

    private Path config(Path dir, String arangoDatabase) throws Exception {
        return Files.writeString(dir.resolve("pgward.yaml"), """
                listen: 127.0.0.1:0
                audit: {target: "off"}
                backend:
                  host: 127.0.0.1
                  port: 1
                logins:
                  viewer:
                    auth: trust
                    mode: read-only
                arango:
                  shopdocs:
                    endpoint: %s
                    database: %s
                    user: pgward_reader
                    password: ${ARANGO_PASSWORD}
                    limits: {rows: 100}
                """.formatted(arango.endpoint(), arangoDatabase));
    }

    private static Process run(Path config, String password) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder builder = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "io.pgward.wire.cli.Main", "run", "--config", config.toString()).redirectErrorStream(true);
        builder.environment().put("ARANGO_PASSWORD", password);
        return builder.start();
    }
}
