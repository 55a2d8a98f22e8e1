package io.pgward.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoMainTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return DemoMain.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    @Test
    void helpListsRunAndDemoWithTheirOptions() {
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("run "), out.toString());
        assertTrue(out.toString().contains("demo "), out.toString());
        assertTrue(out.toString().contains("help "), out.toString());
        out.getBuffer().setLength(0);
        assertEquals(0, run("demo", "--help"));
        assertTrue(out.toString().contains("--pg-port=PORT"), out.toString());
        assertTrue(out.toString().contains("--scale=FACTOR"), out.toString());
    }

    @Test
    void runBehavesAsInTheProductionJar(@TempDir Path dir) {
        Path missing = dir.resolve("pgward.yaml");
        assertEquals(1, run("run", "--config", missing.toString()));
        assertEquals("pgward run: config file " + missing + " does not exist" + System.lineSeparator(), err.toString());
    }

    @Test
    void demoOnATakenPortExitsWithOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            assertEquals(1, run("demo", "--port", "0", "--pg-port", Integer.toString(taken.getLocalPort())));
            assertEquals("pgward demo: port " + taken.getLocalPort() + " on 127.0.0.1 is already in use"
                    + System.lineSeparator(), err.toString());
        }
    }

    @Test
    void demoOnATakenProxyPortExitsWithOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            assertEquals(1, run("demo", "--port", Integer.toString(taken.getLocalPort())));
            assertEquals("pgward demo: port " + taken.getLocalPort() + " on 127.0.0.1 is already in use"
                    + System.lineSeparator(), err.toString());
        }
    }

    @Test
    void demoRefusesANonsenseScaleAsAUsageError() {
        assertEquals(2, run("demo", "--scale", "-1"));
        assertTrue(err.toString().contains("--scale: scale must be above 0"), err.toString());
    }
}
