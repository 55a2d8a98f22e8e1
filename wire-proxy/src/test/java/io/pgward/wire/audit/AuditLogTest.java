package io.pgward.wire.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void writesOneJsonObjectPerDecisionWithAwkwardTextEscaped() throws Exception {
        String line = AuditLog.format(Instant.parse("2026-12-02T10:15:30Z"), new AuditLog.Entry("c7", "analyst",
                "shop", "refuse", "denied-function", "SELECT \"x\"\n, E'\\t' -- \u00e9", 42));
        assertEquals(1, line.lines().count());
        JsonNode node = JSON.readTree(line);
        assertEquals("2026-12-02T10:15:30Z", node.get("time").asText());
        assertEquals("c7", node.get("connection").asText());
        assertEquals("analyst", node.get("login").asText());
        assertEquals("shop", node.get("database").asText());
        assertEquals("refuse", node.get("verdict").asText());
        assertEquals("denied-function", node.get("rule").asText());
        assertEquals("SELECT \"x\"\n, E'\\t' -- \u00e9", node.get("statement").asText());
        assertEquals(42, node.get("duration_us").asLong());
    }

    @Test
    void leavesOutTheRuleOfAnAllow() throws Exception {
        JsonNode node = JSON.readTree(AuditLog.format(Instant.EPOCH,
                new AuditLog.Entry("c1", "app", "db", "allow", null, "SELECT 1", 3)));
        assertEquals(false, node.has("rule"));
    }

    @Test
    void appendsToAFileAndWritesEverythingQueuedOnClose(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("audit.jsonl");
        Files.writeString(file, "{\"earlier\":true}\n");
        try (AuditLog audit = AuditLog.toFile(file)) {
            for (int i = 0; i < 500; i++) {
                audit.record(new AuditLog.Entry("c" + i, "app", "db", "allow", null, "SELECT " + i, i));
            }
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(501, lines.size());
        assertEquals("SELECT 499", JSON.readTree(lines.get(500)).get("statement").asText());
        // Streamed in batches, each line still is exactly one object: no separator before it, nothing after it.
        for (String line : lines.subList(1, lines.size())) {
            assertTrue(line.startsWith("{\"time\":\"") && line.endsWith("}"), line);
        }
    }

    @Test
    void aWriterThatCannotKeepUpLosesLinesAndSaysHowMany() throws Exception {
        // The writer takes some lines into its own buffer before it stalls; well over the limit, some are lost.
        int total = AuditLog.QUEUE_LIMIT + 10_000;
        Outcome outcome = recordWhileStalled(total, i -> "SELECT " + i);
        assertEquals(total, outcome.lines().size() + outcome.dropped(), "every line is either written or counted");
        assertTrue(outcome.dropped() > 0, "lines were lost: " + outcome.dropped());
        assertEquals(outcome.dropped(), outcome.counted(), "the metric counts every lost line");
    }

    @Test
    void bigStatementsAreBoundedInCharactersNotOnlyInLines() throws Exception {
        // 20,000 statements of a megabyte would be 40 GiB of strings: the queue keeps at most its character
        // bound of them, each cut to the statement limit.
        int total = 20_000;
        String big = "SELECT '" + "x".repeat(1 << 20) + "'";
        Outcome outcome = recordWhileStalled(total, i -> big);
        assertEquals(total, outcome.lines().size() + outcome.dropped());
        long keptAtMost = AuditLog.QUEUED_CHARACTERS_LIMIT / AuditLog.STATEMENT_LIMIT + 2;
        assertTrue(outcome.lines().size() <= keptAtMost, outcome.lines().size() + " lines kept");
        String statement = JSON.readTree(outcome.lines().getFirst()).get("statement").asText();
        assertTrue(statement.endsWith("... (" + big.length() + " characters)"), statement.substring(
                statement.length() - 40));
        assertTrue(statement.length() < AuditLog.STATEMENT_LIMIT + 40);
    }

    @Test
    void aCutNeverSplitsACharacterOutsideTheBasicPlane(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("audit.jsonl");
        String statement = "x".repeat(AuditLog.STATEMENT_LIMIT - 1) + "😀".repeat(10);
        try (AuditLog audit = AuditLog.toFile(file)) {
            audit.record(new AuditLog.Entry("c", "app", "db", "allow", null, statement, 1));
        }
        String logged = JSON.readTree(Files.readAllLines(file).getFirst()).get("statement").asText();
        assertEquals("x".repeat(AuditLog.STATEMENT_LIMIT - 1) + "... (" + statement.length() + " characters)",
                logged);
    }

    /** @param counted {@link AuditLog#droppedLines()} after the close, what the metric shows */
    private record Outcome(List<String> lines, long dropped, long counted) {
    }

    /** Records {@code total} statements while the output blocks, then releases it and closes the log. */
    private static Outcome recordWhileStalled(int total, java.util.function.IntFunction<String> statement)
            throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
        java.io.OutputStream stalled = new java.io.OutputStream() {
            @Override
            public void write(int b) throws java.io.IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws java.io.IOException {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
                written.write(b, off, len);
            }
        };
        AuditLog audit = AuditLog.to(stalled);
        for (int i = 0; i < total; i++) {
            audit.record(new AuditLog.Entry("c", "app", "db", "allow", null, statement.apply(i), i));
        }
        release.countDown();
        audit.close();

        List<String> lines = new java.util.ArrayList<>();
        List<JsonNode> overflow = new java.util.ArrayList<>();
        for (String line : written.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList()) {
            JsonNode node = JSON.readTree(line);
            if ("audit-overflow".equals(node.path("verdict").asText())) {
                overflow.add(node);
            } else {
                lines.add(line);
            }
        }
        assertEquals(1, overflow.size(), "one line says lines were lost");
        return new Outcome(lines, overflow.getFirst().get("dropped").asLong(), audit.droppedLines());
    }
}
