package io.pgward.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the image the way a container runtime does, without one: its layers unpacked into a directory, its
 * entrypoint and command started there with chroot as the image's user, with /proc mounted in a mount and
 * PID namespace of its own (the JVM finds its libraries through /proc/self/exe). Needs root for chroot and
 * unshare; elsewhere it is skipped, and ImageTarIT still checks the image's contents.
 */
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
    void theCommandReadsTheMountedConfigurationAndServes() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        // No PostgreSQL is needed to listen: the backend is reached per client session.
        Files.writeString(root.resolve("etc/pgward/pgward.yaml"), """
                listen: 127.0.0.1:%d
                backend:
                  host: 127.0.0.1
                  port: 1
                logins:
                  analyst:
                    auth: trust
                """.formatted(port));
        Process process = start(strings(runConfig.path("Cmd")));
        try {
            // SSLRequest: int32 8 | int32 80877103. Without tls, pgward answers 'N', as PostgreSQL does.
            Instant deadline = Instant.now().plusSeconds(90);
            while (true) {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                    socket.setSoTimeout(10_000);
                    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    out.writeInt(8);
                    out.writeInt(80877103);
                    out.flush();
                    assertEquals('N', new DataInputStream(socket.getInputStream()).readByte());
                    break;
                } catch (java.net.ConnectException notYet) {
                    assertTrue(process.isAlive(), () -> "pgward exited: " + output(process));
                    assertTrue(Instant.now().isBefore(deadline), "pgward did not listen within 90 s");
                    process.waitFor(200, TimeUnit.MILLISECONDS);
                }
            }
        } finally {
            stop(process);
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
