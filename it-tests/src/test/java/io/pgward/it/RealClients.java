package io.pgward.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds and runs the real client programs (psql, pgbench, ...). Where one is not installed, the test that
 * needs it is skipped; with {@code PGWARD_REQUIRE_CLIENTS=1} in the environment (set by {@code .ci/run}, which
 * installs them) it fails instead, so CI can never pass by skipping.
 */
final class RealClients {

    private RealClients() {
    }

    static Path require(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        String reason = program + " is not installed (Debian: apt-get install postgresql-client)";
        if ("1".equals(System.getenv("PGWARD_REQUIRE_CLIENTS"))) {
            throw new AssertionError(reason);
        }
        Assumptions.abort(reason);
        return null;
    }

    /** Runs a program to completion and returns its exit status, stdout and stderr. */
    static Result run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(new ArrayList<>(command)).start();
        process.getOutputStream().close();
        byte[] out = process.getInputStream().readAllBytes();
        byte[] err = process.getErrorStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish in 60 s");
        }
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8),
                new String(err, StandardCharsets.UTF_8));
    }

    record Result(int exit, String out, String err) {
    }
}
