package io.pgward.wire.audit;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One JSON line per statement decision: time, connection, login, database, verdict, rule, statement text and
 * the time the decision took in microseconds. Never bind values or secrets: only statement texts as sent.
 *
 * <p>Lines are queued by the event loops and written by one writer thread, so a slow disk never stalls a
 * session; the writer flushes whenever the queue runs empty.
 */
public final class AuditLog implements AutoCloseable {

    /** The decision recorded for one statement. */
    public record Entry(String connection, String login, String database, String verdict, String rule,
                        String statement, long micros) {
    }

    private static final JsonFactory JSON = new JsonFactory();
    private static final String STOP = new String("stop");

    /** Lines waiting for the writer; bounded, so a writer that cannot keep up costs lines, not memory. */
    static final int QUEUE_LIMIT = 100_000;

    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>(QUEUE_LIMIT);
    /** Lines lost because the queue was full; the writer reports them in a line of their own. */
    private final java.util.concurrent.atomic.AtomicLong dropped = new java.util.concurrent.atomic.AtomicLong();
    private final Writer out;
    private final Thread writer;

    private AuditLog(Writer out) {
        this.out = out;
        this.writer = Thread.ofPlatform().daemon().name("pgward-audit").start(this::drain);
    }

    /** Appends to a file, creating it if needed. */
    public static AuditLog toFile(Path file) {
        try {
            return new AuditLog(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.WRITE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the audit log " + file + ": " + e.getMessage(), e);
        }
    }

    public static AuditLog to(OutputStream stream) {
        return new AuditLog(new java.io.BufferedWriter(new java.io.OutputStreamWriter(stream, StandardCharsets.UTF_8)));
    }

    /** Queues the line; never blocks the caller (an event loop). */
    public void record(Entry entry) {
        if (!lines.offer(format(Instant.now(), entry))) {
            dropped.incrementAndGet();
        }
    }

    static String format(Instant time, Entry entry) {
        StringWriter text = new StringWriter(128 + entry.statement().length());
        try (JsonGenerator json = JSON.createGenerator(text)) {
            json.writeStartObject();
            json.writeStringField("time", time.toString());
            json.writeStringField("connection", entry.connection());
            json.writeStringField("login", entry.login());
            json.writeStringField("database", entry.database());
            json.writeStringField("verdict", entry.verdict());
            if (entry.rule() != null) {
                json.writeStringField("rule", entry.rule());
            }
            json.writeStringField("statement", entry.statement());
            json.writeNumberField("duration_us", entry.micros());
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    private void drain() {
        try {
            while (true) {
                String line = lines.take();
                if (line == STOP) {
                    out.flush();
                    return;
                }
                out.write(line);
                out.write('\n');
                long lost = dropped.getAndSet(0);
                if (lost > 0) {
                    out.write("{\"time\":\"" + Instant.now() + "\",\"verdict\":\"audit-overflow\",\"dropped\":"
                            + lost + "}\n");
                }
                if (lines.isEmpty()) {
                    out.flush();
                }
            }
        } catch (IOException e) {
            System.err.println("pgward: the audit log cannot be written: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes what is queued and stops the writer. */
    @Override
    public void close() {
        try {
            lines.put(STOP);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            writer.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
