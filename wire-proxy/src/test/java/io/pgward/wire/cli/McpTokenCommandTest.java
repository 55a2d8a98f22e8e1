package io.pgward.wire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.mcp.TokenHash;
import io.pgward.wire.config.ConfigLoader;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class McpTokenCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String stdin, String... args) {
        InputStream before = System.in;
        System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        try {
            return Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), List.of(), args);
        } finally {
            System.setIn(before);
        }
    }

    private String line(String label) {
        return out.toString().lines().filter(l -> l.startsWith(label)).findFirst().orElseThrow()
                .substring(label.length()).strip();
    }

    @Test
    void printsANewTokenAndAHashTheConfigurationTakesAndThatOpensIt(@TempDir Path dir) throws Exception {
        assertEquals(0, run("", "mcp-token"));
        String token = line("token:");
        String hash = line("hash:");
        assertTrue(TokenHash.matches(token, hash));
        assertFalse(out.toString().contains(token + "\n" + token), "the token is printed once");
        String config = """
                backend: { host: db }
                logins: { analyst: { password: a } }
                mcp: { database: shop, logins: { analyst: { tokens: ["%s"] } } }
                """.formatted(hash);
        Path file = Files.writeString(dir.resolve("pgward.yaml"), config);
        List<String> stored = ConfigLoader.load(file).mcp().orElseThrow().logins().get("analyst").tokenHashes();
        assertEquals(List.of(hash), stored);
    }

    @Test
    void hashesTheStrippedTokenFromStdinAndPrintsOnlyTheHash() {
        assertEquals(0, run("  pgw_chosen \nsecond line\n", "mcp-token", "--hash-stdin"));
        String hash = out.toString().strip();
        assertFalse(hash.contains("\n"), hash);
        assertTrue(TokenHash.matches("pgw_chosen", hash));
        assertFalse(TokenHash.matches("  pgw_chosen ", hash));
    }

    @Test
    void refusesAnEmptyStdin() {
        assertEquals(1, run(" \n", "mcp-token", "--hash-stdin"));
        assertEquals("", out.toString());
        assertTrue(err.toString().contains("no token on stdin"), err.toString());
    }
}
