package io.pgward.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the image the way a container runtime does, without one: its layers unpacked into a directory, its
 * entrypoint and command started there with chroot as the image's user, with /proc mounted in a mount and
 * PID namespace of its own (the JVM finds its libraries through /proc/self/exe), in front of a real PostgreSQL.
 * Needs root for chroot and
 * unshare; elsewhere it is skipped, and ImageTarIT still checks the image's contents.
 */
@PostgresTest
class ImageRunsIT {

    private static Path root;
    private static JsonNode runConfig;
    private static String unshare;
    private static String chroot;

    @BeforeAll
    static void unpack() throws IOException {
        unshare = onPath("unshare");
        chroot = onPath("chroot");
        assumeTrue(isRoot() && unshare != null && chroot != null,
                "running the unpacked image needs root, unshare and chroot");
        root = ImagePaths.buildDirectory().resolve("image-run-root");
        deleteRecursively(root);
        Files.createDirectories(root);
        try (OciImageTar image = new OciImageTar(ImagePaths.imageTar())) {
            image.unpackTo(root);
            runConfig = image.runConfig();
        }
        // What a runtime provides: a mount point for /proc, and the configuration mounted at /etc/pgward.
        Files.createDirectories(root.resolve("proc"));
        Files.createDirectories(root.resolve("etc/pgward"));
    }

    @Test
    void theEntrypointPrintsPgwardsVersionAsTheImageUser() throws Exception {
        Result result = run(List.of("--version"), Duration.ofSeconds(60));
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().lines().anyMatch(line -> line.matches("pgward \\S+")), result.output());
    }

    @Test
    void theCommandReadsTheMountedConfigurationAndGuardsARealDatabase(TestDatabase database) throws Exception {
        int port = freePort();
        int metricsPort = freePort();
        // Secrets come from the environment, as deploy/ gives them from a Secret; the probes and Prometheus use the
        // metrics listener, as in deploy/.
        Files.writeString(root.resolve("etc/pgward/pgward.yaml"), """
                listen: 127.0.0.1:%d
                metrics:
                  listen: 127.0.0.1:%d
                backend:
                  host: %s
                  port: %d
                logins:
                  analyst:
                    password: ${ANALYST_PASSWORD}
                    backend_user: %s
                    backend_password: ${ANALYST_DB_PASSWORD}
                    mode: read-only
                """.formatted(port, metricsPort, database.host(), database.port(), database.user()));
        Process process = start(strings(runConfig.path("Cmd")),
                Map.of("ANALYST_PASSWORD", "analyst-secret", "ANALYST_DB_PASSWORD", database.password()));
        try {
            Properties props = new Properties();
            props.setProperty("user", "analyst");
            props.setProperty("password", "analyst-secret");
            String url = "jdbc:postgresql://127.0.0.1:" + port + "/" + database.name();
            try (Connection c = connectWhenListening(url, props, process); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SHOW default_transaction_read_only")) {
                    rs.next();
                    assertEquals("on", rs.getString(1));
                }
                SQLException refused = assertThrows(SQLException.class, () -> s.execute("CREATE TABLE t (a int)"));
                assertEquals("42501", refused.getSQLState(), refused.getMessage());
            }
            // The Kubernetes probes and the Prometheus scrape of deploy/.
            assertEquals("200 ok\n", get(metricsPort, "/livez", process));
            assertEquals("200 ok\n", get(metricsPort, "/readyz", process));
            String metrics = get(metricsPort, "/metrics", process);
            assertTrue(metrics.startsWith("200 ") && metrics.contains("pgward_"), metrics);
        } finally {
            stop(process);
        }
    }

    /** Status and body of a GET on pgward's metrics listener, or a failure with the image's output. */
    private static String get(int port, String path, Process process) throws InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() + " " + response.body();
        } catch (IOException e) {
            throw new AssertionError("GET " + path + " on the image's metrics port failed: " + e + "\n"
                    + output(process), e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    private static Connection connectWhenListening(String url, Properties props, Process process) throws Exception {
        Instant deadline = Instant.now().plusSeconds(90);
        while (true) {
            try {
                return DriverManager.getConnection(url, props);
            } catch (SQLException e) {
                // 08001: nothing listens yet. Anything else is pgward's answer, and a failure.
                if (!"08001".equals(e.getSQLState()) || Instant.now().isAfter(deadline) || !process.isAlive()) {
                    throw new AssertionError("could not connect through the image: " + e + "\n" + output(process), e);
                }
                process.waitFor(200, TimeUnit.MILLISECONDS);
            }
        }
    }

    @Test
    void aMissingConfigurationStopsItWithTheMountedPathNamed() throws Exception {
        Files.deleteIfExists(root.resolve("etc/pgward/pgward.yaml"));
        Result result = run(strings(runConfig.path("Cmd")), Duration.ofSeconds(60));
        assertTrue(result.exitCode() != 0, result.output());
        assertTrue(result.output().contains("/etc/pgward/pgward.yaml"), result.output());
    }

    private record Result(int exitCode, String output) { }

    /**
     * Stops the JVM itself: unshare ignores SIGTERM while it waits, and the parent-death signal of --kill-child
     * does not survive chroot's change of user.
     */
    private static void stop(Process process) throws InterruptedException {
        List<ProcessHandle> jvm = process.descendants().toList();
        jvm.forEach(ProcessHandle::destroy);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            jvm.forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    private static Result run(List<String> args, Duration timeout) throws Exception {
        Process process = start(args);
        if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            stop(process);
            throw new AssertionError("the image's entrypoint did not end within " + timeout + ": " + output(process));
        }
        return new Result(process.exitValue(), output(process));
    }

    /** The image's entrypoint with {@code args}, as its user, in its file system, with only its environment. */
    private static Process start(List<String> args) throws IOException {
        return start(args, Map.of());
    }

    private static Process start(List<String> args, Map<String, String> secrets) throws IOException {
        List<String> command = new ArrayList<>(List.of(unshare, "--mount", "--pid", "--fork",
                "--mount-proc=" + root.resolve("proc"), chroot, "--userspec=" + runConfig.path("User").asText(),
                root.toString()));
        command.addAll(strings(runConfig.path("Entrypoint")));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().clear();
        runConfig.path("Env").forEach(pair -> {
            String[] kv = pair.asText().split("=", 2);
            builder.environment().put(kv[0], kv[1]);
        });
        builder.environment().putAll(secrets);
        builder.redirectOutput(root.resolveSibling("image-run.log").toFile());
        return builder.start();
    }

    private static String output(Process process) {
        try {
            return Files.readString(root.resolveSibling("image-run.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(node -> out.add(node.asText()));
        return out;
    }

    private static boolean isRoot() throws IOException {
        return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
    }

    /** The program's absolute path (the image's environment replaces ours, PATH included), or null. */
    private static String onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return Path.of(dir, program).toString();
            }
        }
        return null;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
