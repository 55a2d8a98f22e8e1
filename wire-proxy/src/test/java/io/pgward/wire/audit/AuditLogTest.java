package io.pgward.wire.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    }

    @Test
    void aWriterThatCannotKeepUpLosesLinesAndSaysHowMany() throws Exception {
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
        // The writer takes some lines into its own buffer before it stalls; well over the limit, some are lost.
        int total = AuditLog.QUEUE_LIMIT + 10_000;
        AuditLog audit = AuditLog.to(stalled);
        for (int i = 0; i < total; i++) {
            audit.record(new AuditLog.Entry("c", "app", "db", "allow", null, "SELECT " + i, i));
        }
        release.countDown();
        audit.close();

        List<String> lines = written.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        List<JsonNode> overflow = new java.util.ArrayList<>();
        for (String line : lines) {
            JsonNode node = JSON.readTree(line);
            if ("audit-overflow".equals(node.path("verdict").asText())) {
                overflow.add(node);
            }
        }
        assertEquals(1, overflow.size(), "one line says lines were lost");
        long dropped = overflow.getFirst().get("dropped").asLong();
        assertEquals(total, lines.size() - 1 + dropped, "every line is either written or counted");
        assertEquals(true, dropped > 0, "lines were lost: " + dropped);
    }
}
