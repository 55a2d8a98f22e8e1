package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pgward run} as an operator runs it, reloaded by a real SIGHUP and by {@code pgward reload} (a process of
 * its own too): a narrowed
 * login's session ends with 57P01, an unaffected one carries on, an added login gets in, and an invalid file is
 * rejected with its error in the log and in {@code pgward reload}'s exit status, the process serving on.
 */
@PostgresTest
class ReloadSignalIT {

    private static final Pattern LISTENING = Pattern.compile("listening on /?127\\.0\\.0\\.1:(\\d+)");

    private static String withAdmin(TestDatabase database, String aTables, String more) {
        return ReloadUnderLoadIT.config(database, aTables, """
                ops:
                  password: %s
                  backend_user: %s
                  backend_password: %s
                  mode: read-write
                %s""".formatted(ReloadUnderLoadIT.PASSWORD, database.user(), database.password(), more))
                + "admin:\n  logins: [ops]\n";
    }

    @Test
    void sighupAndPgwardReloadReadTheFileAgain(TestDatabase database, @TempDir Path dir) throws Exception {
        ReloadUnderLoadIT.createTables(database);
        Path file = Files.writeString(dir.resolve("pgward.yaml"),
                withAdmin(database, "public.kept, public.dropped", ""));
        Path password = Files.writeString(dir.resolve("ops.password"), ReloadUnderLoadIT.PASSWORD + "\n");
        Process pgward = run(file, "--default-signal=HUP");
        StringBuffer output = new StringBuffer();
        try {
            int port = awaitPort(pgward, output);
            try (Connection a = ReloadUnderLoadIT.connect(port, database, "a");
                 Connection b = ReloadUnderLoadIT.connect(port, database, "b")) {
                assertEquals("ok", ReloadUnderLoadIT.outcome(a, "SELECT count(*) FROM dropped"));
                assertEquals("ok", ReloadUnderLoadIT.outcome(b, "SELECT count(*) FROM dropped"));

                Files.writeString(file, withAdmin(database, "public.kept", ReloadUnderLoadIT.loginC(database)));
                sighup(pgward);
                long deadline = System.nanoTime() + 30_000_000_000L;
                for (String c = ReloadUnderLoadIT.loginState(port, database, "c"); !c.equals("ok");
                     c = ReloadUnderLoadIT.loginState(port, database, "c")) {
                    assertTrue(System.nanoTime() < deadline, "c never got in (the last try: " + c + "):\n" + output);
                    Thread.sleep(50);
                }
                // The reload ends a's session right after putting the new file in force, which c's login shows.
                String aEnded = ReloadUnderLoadIT.outcome(a, "SELECT 1");
                while (aEnded.equals("ok") && System.nanoTime() < deadline) {
                    aEnded = ReloadUnderLoadIT.outcome(a, "SELECT 1");
                }
                assertEquals("57P01", aEnded, "a's session ended:\n" + output);
                assertEquals("ok", ReloadUnderLoadIT.outcome(b, "SELECT count(*) FROM dropped"),
                        "b's session carries on");
                try (Connection c = ReloadUnderLoadIT.connect(port, database, "c")) {
                    assertEquals("ok", ReloadUnderLoadIT.outcome(c, "SELECT count(*) FROM kept"));
                }
                try (Connection again = ReloadUnderLoadIT.connect(port, database, "a")) {
                    assertEquals("42501", ReloadUnderLoadIT.outcome(again, "SELECT count(*) FROM dropped"));
                }

                // pgward reload: c taken out again.
                Files.writeString(file, withAdmin(database, "public.kept", ""));
                RealClients.Result reloaded = pgwardReload("--config", file.toString(), "--port",
                        Integer.toString(port), "-U", "ops", "--password-file", password.toString());
                assertEquals(0, reloaded.exit(), reloaded.err());
                assertTrue(reloaded.out().contains("configuration reloaded") && reloaded.out()
                        .contains("login \"c\" removed"), reloaded.out());
                assertEquals("28P01", ReloadUnderLoadIT.loginState(port, database, "c"));

                // An invalid file: rejected by both, logged, and pgward serves on with the last good one.
                Files.writeString(file, withAdmin(database, "public.kept", "").replace("mode: read-write",
                        "mode: admin"));
                RealClients.Result rejected = pgwardReload("--port", Integer.toString(port), "-U", "ops",
                        "--password-file", password.toString());
                assertEquals(1, rejected.exit());
                assertTrue(rejected.err().contains("pgward reload: ERROR: configuration rejected, the old one "
                        + "stays: logins.ops.mode: must be one of read-only, read-write, was \"admin\""),
                        rejected.err());
                sighup(pgward);
                awaitCount(output, "configuration rejected, the old one stays: logins.ops.mode", 2);
                assertTrue(pgward.isAlive(), "pgward serves on");
                assertEquals("ok", ReloadUnderLoadIT.outcome(b, "SELECT count(*) FROM dropped"));
            }
            pgward.destroy();
            assertTrue(pgward.waitFor(30, TimeUnit.SECONDS));
        } finally {
            pgward.destroyForcibly();
        }
    }

    /** {@code pgward reload ...} as a process of its own, as an operator runs it. */
    private static RealClients.Result pgwardReload(String... arguments) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "io.pgward.wire.cli.Main", "reload"));
        command.addAll(List.of(arguments));
        return RealClients.run(command);
    }

    /**
     * {@code pgward run} in a process of its own, through env(1) with {@code signal}: a test run under nohup would
     * otherwise hand its SIGHUP-ignored disposition down, which the JVM keeps.
     */
    private static Process run(Path file, String signal) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        // pgward's own logging (INFO), not the tests' (WARN): a failure shows whether the signal got in.
        return new ProcessBuilder("env", signal, java.toString(), "-Dlogback.configurationFile=logback.xml", "-cp",
                System.getProperty("java.class.path"), "io.pgward.wire.cli.Main", "run", "--config", file.toString())
                .redirectErrorStream(true).start();
    }

    /** Started with SIGHUP ignored (as under nohup), pgward says that SIGHUP will not reload, and serves on. */
    @Test
    void anIgnoredSighupIsSaidAtStart(TestDatabase database, @TempDir Path dir) throws Exception {
        ReloadUnderLoadIT.createTables(database);
        Path file = Files.writeString(dir.resolve("pgward.yaml"), withAdmin(database, "public.kept", ""));
        Process pgward = run(file, "--ignore-signal=HUP");
        StringBuffer output = new StringBuffer();
        try {
            int port = awaitPort(pgward, output);
            awaitCount(output, "SIGHUP does not reload the configuration: this process was started with SIGHUP "
                    + "ignored", 1);
            sighup(pgward);
            try (Connection a = ReloadUnderLoadIT.connect(port, database, "a")) {
                assertEquals("ok", ReloadUnderLoadIT.outcome(a, "SELECT count(*) FROM kept"));
            }
            assertTrue(pgward.isAlive(), "pgward serves on:\n" + output);
            assertFalse(output.toString().contains("SIGHUP: reading"), output.toString());
            pgward.destroy();
            assertTrue(pgward.waitFor(30, TimeUnit.SECONDS));
        } finally {
            pgward.destroyForcibly();
        }
    }

    private static void sighup(Process process) throws Exception {
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor());
    }

    private static void awaitCount(StringBuffer output, String text, int count) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (output.toString().split(Pattern.quote(text), -1).length - 1 < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("pgward did not log \"" + text + "\" " + count + " times:\n" + output);
            }
            Thread.sleep(20);
        }
    }

    private static int awaitPort(Process pgward, StringBuffer output) throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(pgward.getInputStream(),
                StandardCharsets.UTF_8));
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                String line;
                while ((line = reader.readLine()) != null) {
                    output.append(line).append('\n');
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (java.io.IOException ignored) {
                // the process ended
            }
            port.completeExceptionally(new AssertionError("pgward run exited before listening:\n" + output));
        });
        return port.get(60, TimeUnit.SECONDS);
    }
}
