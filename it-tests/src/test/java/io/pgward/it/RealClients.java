package io.pgward.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds and runs the real client programs (psql, pgbench, node, Debian's python3 and its drivers). Where one
 * is not installed, the test that needs it is skipped; with {@code PGWARD_REQUIRE_CLIENTS=1} in the
 * environment (set by {@code .ci/run}, which installs them) it fails instead, so CI can never pass by
 * skipping.
 *
 * <p>Every client runs with the libpq variables ({@code PGHOST}, {@code PGPASSWORD}, ...) removed, so only
 * the URL it is given decides where it connects, and with {@code LC_ALL=C.UTF-8}, so psql's own messages are
 * English and its client encoding is UTF-8 wherever the build runs.
 */
final class RealClients {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Debian's interpreter: the drivers come from its packages, whatever python3 is first on the PATH. */
    static final Path DEBIAN_PYTHON = Path.of("/usr/bin/python3");

    private static final Map<String, Boolean> PYTHON_MODULES = new ConcurrentHashMap<>();

    private RealClients() {
    }

    /** A program from the PostgreSQL client package (psql, pgbench). */
    static Path require(String program) {
        return require(program, "Debian: apt-get install postgresql-client");
    }

    static Path require(String program, String howToInstall) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return missing(program + " is not installed (" + howToInstall + ")");
    }

    /** Debian's python3 with the given driver module importable. */
    static Path requirePython(String module, String debianPackage) {
        if (!Files.isExecutable(DEBIAN_PYTHON)) {
            return missing(DEBIAN_PYTHON + " is not installed (Debian: apt-get install python3)");
        }
        boolean importable = PYTHON_MODULES.computeIfAbsent(module, m -> {
            try {
                return run(List.of(DEBIAN_PYTHON.toString(), "-E", "-s", "-c", "import " + m)).exit() == 0;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        if (!importable) {
            return missing("the Python module " + module + " is not installed for " + DEBIAN_PYTHON
                    + " (Debian: apt-get install " + debianPackage + ")");
        }
        return DEBIAN_PYTHON;
    }

    /** Skips the calling test, or fails it when clients are required. */
    static <T> T missing(String reason) {
        if ("1".equals(System.getenv("PGWARD_REQUIRE_CLIENTS"))) {
            throw new AssertionError(reason);
        }
        Assumptions.abort(reason);
        throw new IllegalStateException("unreachable: Assumptions.abort returned");
    }

    /** Runs a program to completion in the current directory and returns its exit status, stdout and stderr. */
    static Result run(List<String> command) throws IOException {
        return run(command, null);
    }

    /**
     * Runs a program to completion in {@code directory} (null: the current one) with an empty stdin, and
     * fails when it has not finished within {@link #TIMEOUT}. Output is read as UTF-8.
     */
    static Result run(List<String> command, Path directory) throws IOException {
        return run(command, directory, Map.of());
    }

    /** As above, with these variables added to the cleaned environment (e.g. PGOPTIONS for one scenario). */
    static Result run(List<String> command, Path directory, Map<String, String> variables) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command))
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("PG") && !name.startsWith("PGWARD_"));
        environment.put("LC_ALL", "C.UTF-8");
        environment.putAll(variables);
        Process process = builder.start();
        Future<byte[]> out = drain(process.getInputStream());
        Future<byte[]> err = drain(process.getErrorStream());
        try {
            if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(command.getFirst() + " did not finish in " + TIMEOUT.toSeconds() + " s: "
                        + String.join(" ", redacted(command)));
            }
            return new Result(process.exitValue(), new String(out.get(), StandardCharsets.UTF_8),
                    new String(err.get(), StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + command.getFirst(), e);
        } catch (ExecutionException e) {
            throw new IOException("reading the output of " + command.getFirst(), e.getCause());
        }
    }

    /** The command with passwords in URLs masked, for messages. */
    static List<String> redacted(List<String> command) {
        return command.stream().map(arg -> arg.replaceAll("(postgres(?:ql)?://[^:/@]*:)[^@]*@", "$1***@")).toList();
    }

    /** Reads a stream to its end on its own thread, so neither pipe can fill up and stall the process. */
    private static Future<byte[]> drain(InputStream stream) {
        FutureTask<byte[]> task = new FutureTask<>(stream::readAllBytes);
        Thread.ofVirtual().start(task);
        return task;
    }

    record Result(int exit, String out, String err) {
    }
}
