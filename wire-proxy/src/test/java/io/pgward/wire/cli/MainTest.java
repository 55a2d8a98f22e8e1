package io.pgward.wire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.ResourceLeakDetector;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), List.of(), args);
    }

    @Test
    void helpExplainsTheCommandsAndTheirOptions() {
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("run "), out.toString());
        assertTrue(out.toString().contains("help "), out.toString());
        out.getBuffer().setLength(0);
        assertEquals(0, run("run", "--help"));
        assertTrue(out.toString().contains("--config=FILE"), out.toString());
        assertTrue(out.toString().contains("Default: pgward.yaml"), out.toString());
    }

    @Test
    void leakDetectionIsSwitchedOffOnlyWhenNobodyAskedForALevel() {
        String asked = System.getProperty("io.netty.leakDetection.level");
        ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
        try {
            System.setProperty("io.netty.leakDetection.level", "paranoid");
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
            Main.leakDetectionOffUnlessAsked();
            assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel());

            System.clearProperty("io.netty.leakDetection.level");
            Main.leakDetectionOffUnlessAsked();
            assertEquals(ResourceLeakDetector.Level.DISABLED, ResourceLeakDetector.getLevel());
        } finally {
            if (asked == null) {
                System.clearProperty("io.netty.leakDetection.level");
            } else {
                System.setProperty("io.netty.leakDetection.level", asked);
            }
            ResourceLeakDetector.setLevel(before);
        }
    }

    @Test
    void theProductionCommandLineHasNoDemo() {
        assertEquals(0, run("--help"));
        assertFalse(out.toString().contains("demo"), out.toString());
        assertEquals(2, run("demo"));
    }

    @Test
    void runWithAMissingConfigExitsWithOneLine(@TempDir Path dir) {
        Path missing = dir.resolve("pgward.yaml");
        assertEquals(1, run("run", "--config", missing.toString()));
        assertEquals("pgward run: config file " + missing + " does not exist" + System.lineSeparator(), err.toString());
    }

    @Test
    void runWithAMalformedConfigExitsWithOneLine(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("pgward.yaml"), "backend:\n  host: [a\n");
        assertEquals(1, run("run", "-c", file.toString()));
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(err.toString().startsWith("pgward run: " + file + " is not valid YAML at line"), err.toString());
    }

    @Test
    void runWithAnInvalidSettingNamesTheKey(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("pgward.yaml"), "backend: {host: h, port: x}\nlogins: {a: {auth: trust}}\n");
        assertEquals(1, run("run", "-c", file.toString()));
        assertEquals("pgward run: backend.port: must be a whole number from 1 to 65535, was \"x\""
                + System.lineSeparator(), err.toString());
    }

    @Test
    void runOnATakenPortExitsWithOneLine(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Path file = Files.writeString(dir.resolve("pgward.yaml"), "listen: 127.0.0.1:" + taken.getLocalPort()
                    + "\nbackend: {host: 127.0.0.1}\nlogins: {a: {auth: trust}}\n");
            assertEquals(1, run("run", "-c", file.toString()));
            assertEquals(1, err.toString().lines().count(), err.toString());
            assertTrue(err.toString().startsWith("pgward run: cannot listen on 127.0.0.1:" + taken.getLocalPort()),
                    err.toString());
        }
    }
}
