package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code pgward demo} as a user runs it: a separate JVM on a free port, whose printed instructions the test reads
 * as a user would copy them. Closing it kills the process; {@link #stop} is the clean SIGTERM path.
 */
final class DemoProcess implements AutoCloseable {

    private final Process process;
    private final BufferedReader output;

    private DemoProcess(Process process) {
        this.process = process;
        this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Starts the demo with {@code --scale scale --port 0} and the given options. The LLM settings of the
     * environment are removed so that only the command line decides whether the demo has a model.
     */
    static DemoProcess start(String scale, String... options) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                "io.pgward.demo.DemoMain", "demo", "--scale", scale, "--port", "0"));
        command.addAll(List.of(options));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("PGWARD_LLM_") || name.endsWith("_API_KEY"));
        return new DemoProcess(builder.start());
    }

    /** The command-line options that point the demo at {@code llm}. */
    static String[] modelOptions(ScriptedLlmServer llm) {
        return new String[] {"--llm-provider", "openai", "--llm-base-url", llm.baseUrl().toString(),
                "--llm-model", ScriptedLlmServer.MODEL};
    }

    /**
     * Reads the demo's output until each pattern has matched a line, and returns each one's first group in the
     * order of {@code patterns}. The rest of the output is drained in the background so that the demo never
     * blocks on a full pipe.
     */
    List<String> awaitPrinted(String what, Pattern... patterns) throws IOException {
        String[] found = new String[patterns.length];
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = output.readLine()) != null) {
            seen.append(line).append('\n');
            for (int i = 0; i < patterns.length; i++) {
                Matcher matcher = patterns[i].matcher(line);
                if (found[i] == null && matcher.find()) {
                    found[i] = matcher.group(1);
                }
            }
            if (Stream.of(found).allMatch(value -> value != null)) {
                drainInTheBackground();
                return List.of(found);
            }
        }
        throw new AssertionError("demo exited before printing " + what + ":\n" + seen);
    }

    private void drainInTheBackground() {
        Thread drain = new Thread(() -> {
            try {
                output.transferTo(Writer.nullWriter());
            } catch (IOException ignored) {
                // the demo closed its output: nothing left to drain
            }
        });
        drain.setDaemon(true);
        drain.start();
    }

    /** SIGTERM, the shutdown path Ctrl-C shares: the demo must stop pgward and PostgreSQL and exit. */
    void stop() throws InterruptedException {
        process.destroy();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "demo exits on SIGTERM");
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
