package io.pgward.it;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One real driver's scenario script under {@code it-tests/clients}: {@code <interpreter> <script> <url>
 * <scenario>} prints one JSON object on stdout and exits 0, or exits non-zero with the reason on stderr
 * (the calling convention is spelled out in {@code scenario-main.mjs} and {@code scenario_main.py}).
 *
 * <p>The interpreter is looked up when a scenario runs, not when the constant is built, so a missing client
 * skips (or, in CI, fails) the test that needs it rather than the class.
 *
 * <p>Scenarios print only what PostgreSQL determines, so a scenario's output on a target is a fact worth
 * computing once. Starting an interpreter and loading a driver is most of what a scenario costs, so the first
 * {@link #output} for a target runs all of the script's scenarios in one process ({@code <scenario>,...})
 * and remembers their outputs for the JVM: the tests that assert values and the test that compares targets
 * share that run.
 */
final class ClientScript {

    static final ObjectMapper JSON = new ObjectMapper();

    /** All scenarios' outputs by script and target (which names its database, unique per test class). */
    private static final Map<String, JsonNode> OUTPUTS = new ConcurrentHashMap<>();

    private enum Interpreter { NODE, PYTHON }

    private final String client;
    private final Interpreter interpreter;
    private final String file;
    private final String pythonModule;
    private final String debianPackage;
    private final List<String> scenarios;
    /** A directory put first on Python's path (a driver pip installed there), or null. */
    private final Path pythonPath;

    private ClientScript(String client, Interpreter interpreter, String file, String pythonModule, String debianPackage,
            List<String> scenarios) {
        this(client, interpreter, file, pythonModule, debianPackage, scenarios, null);
    }

    private ClientScript(String client, Interpreter interpreter, String file, String pythonModule, String debianPackage,
            List<String> scenarios, Path pythonPath) {
        this.client = client;
        this.interpreter = interpreter;
        this.file = file;
        this.pythonModule = pythonModule;
        this.debianPackage = debianPackage;
        this.scenarios = List.copyOf(scenarios);
        this.pythonPath = pythonPath;
    }

    /** A script in {@code clients/node}, run by node with the packages {@code npm ci} installed there. */
    static ClientScript node(String client, String file, String... scenarios) {
        return new ClientScript(client, Interpreter.NODE, file, null, null, List.of(scenarios));
    }

    /** A script in {@code clients/python}, run by Debian's python3 with the driver from its package. */
    static ClientScript python(String client, String file, String module, String debianPackage,
            String... scenarios) {
        return new ClientScript(client, Interpreter.PYTHON, file, module, debianPackage, List.of(scenarios));
    }

    /**
     * As {@link #python}, with the driver taken from the directory the environment variable {@code variable} names
     * (installed there by {@code pip install --target}, as .ci/run does) before Debian's packages.
     */
    static ClientScript pythonFrom(String variable, String client, String file, String module, String howToInstall,
            String... scenarios) {
        String directory = System.getenv(variable);
        Path path = directory == null || directory.isBlank() ? null : Path.of(directory).toAbsolutePath();
        // Without it, pythonModule is null: the scenario is then missing (skipped, or failed in CI).
        boolean installed = path != null && Files.isDirectory(path.resolve(module));
        return new ClientScript(client, Interpreter.PYTHON, file, installed ? module : null, howToInstall,
                List.of(scenarios), path);
    }

    String client() {
        return client;
    }

    /** Every scenario the script knows, for comparisons across targets. */
    List<String> scenarios() {
        return scenarios;
    }

    /** What the scenario printed on target; fails when it failed. */
    JsonNode output(String scenario, Target target) throws IOException {
        if (!scenarios.contains(scenario)) {
            throw new IllegalArgumentException(client + " has no scenario " + scenario + "; known: " + scenarios);
        }
        String key = file + " " + target;
        JsonNode all = OUTPUTS.get(key);
        if (all == null) {
            all = runAll(target);
            OUTPUTS.put(key, all);
        }
        JsonNode output = all.get(scenario);
        if (output.has("scenarioFailed")) {
            throw new AssertionError(client + " scenario " + scenario + " failed on " + target + ":\n"
                    + output.get("scenarioFailed").asText());
        }
        return output.deepCopy();
    }

    /** Runs every scenario on target in one process: {scenario: output or {"scenarioFailed": why}}. */
    private JsonNode runAll(Target target) throws IOException {
        Path directory = clientsDirectory().resolve(interpreter == Interpreter.NODE ? "node" : "python");
        List<String> command = new ArrayList<>();
        switch (interpreter) {
            case NODE -> {
                command.add(RealClients.require("node", "Node.js 20 or newer").toString());
                if (!Files.isDirectory(directory.resolve("node_modules"))) {
                    RealClients.missing("the Node drivers are not installed: run npm ci in " + directory
                            + " (.ci/run does)");
                }
            }
            case PYTHON -> {
                // -E -s: no PYTHON* variables, no user site-packages, so only Debian's packages are importable;
                // -B: no __pycache__ in the source tree.
                if (pythonPath == null && pythonModule != null) {
                    Path python = RealClients.requirePython(pythonModule, debianPackage);
                    command.addAll(List.of(python.toString(), "-E", "-s", "-B"));
                } else {
                    if (pythonModule == null || !Files.isExecutable(RealClients.DEBIAN_PYTHON)) {
                        RealClients.missing(client + " is not installed: " + debianPackage);
                    }
                    command.addAll(List.of(RealClients.DEBIAN_PYTHON.toString(), "-E", "-s", "-B", "with_path.py",
                            pythonPath.toString()));
                }
            }
        }
        command.addAll(List.of(file, target.uri(), String.join(",", scenarios)));
        RealClients.Result result = RealClients.run(command, directory);
        String what = client + " scenarios on " + target;
        JsonNode output;
        try {
            output = JSON.readTree(result.out());
        } catch (JsonProcessingException e) {
            throw new AssertionError(what + " exited with " + result.exit() + " and printed something that is not"
                    + " JSON (" + e.getOriginalMessage() + "):\n" + result.out() + result.err(), e);
        }
        // Exit 1 with every scenario present means some failed, which output() reports scenario by scenario.
        if (output == null || !output.isObject() || !scenarios.stream().allMatch(output::has)) {
            throw new AssertionError(what + " exited with " + result.exit() + " without a result for each of "
                    + scenarios + ":\n" + result.out() + result.err());
        }
        return output;
    }

    @Override
    public String toString() {
        return client;
    }

    /** {@code it-tests/clients}; Maven runs the tests with the module directory as working directory. */
    static Path clientsDirectory() {
        Path directory = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("clients");
        if (!Files.isDirectory(directory)) {
            throw new IllegalStateException("no client scripts at " + directory + ": run the tests from it-tests");
        }
        return directory;
    }
}
