package io.pgward.wire.audit;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One JSON line per statement decision: time, connection, login, database, verdict, rule, statement text and
 * the time the decision took in microseconds. Never bind values or secrets: only statement texts as sent, with
 * the literal after a PASSWORD word hidden ({@link PasswordRedaction}).
 *
 * <p>Decisions are queued by the event loops and formatted and written by one writer thread, so neither a slow
 * disk nor the JSON encoding stalls a session. The event loops never wake the writer: it looks at the queue
 * every {@link #BATCH_NANOS} and writes what it finds in one go, so the relay pays no thread hand-off and the log
 * no system call per statement; a line reaches the log at most that much later. The queue is bounded in lines
 * and in the characters of the statements it holds: a writer that cannot keep up (a stalled stdout) costs lines,
 * counted in a line of their own, never memory. A statement longer than {@link #STATEMENT_LIMIT} characters is
 * cut there, and its line says how long it was.
 */
public final class AuditLog implements AutoCloseable {

    /** The decision recorded for one statement. */
    public record Entry(String connection, String login, String database, String verdict, String rule,
                        String statement, long micros) {
    }

    private record Pending(Instant time, Entry entry) {
    }

    /** The writer's generators leave the output open: it outlives each batch. */
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

    /** Lines waiting for the writer. */
    static final int QUEUE_LIMIT = 100_000;
    /** Statement characters waiting for the writer: 32 Mi characters, at most 64 MiB of strings. */
    static final long QUEUED_CHARACTERS_LIMIT = 32L << 20;
    /** The longest statement a line carries whole. */
    static final int STATEMENT_LIMIT = 64 << 10;
    /** How often the writer looks at the queue. */
    static final long BATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queuedLines = new AtomicInteger();
    private final AtomicLong queuedCharacters = new AtomicLong();
    /** Lines lost because the queue was full; the writer reports them in a line of their own. */
    private final AtomicLong dropped = new AtomicLong();
    /** Every line ever lost so, for metrics: {@link #dropped} starts again after each report. */
    private final java.util.concurrent.atomic.LongAdder droppedTotal = new java.util.concurrent.atomic.LongAdder();
    private final Writer out;
    private final Thread writer;
    private volatile boolean closing;

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

    /** Queues the decision; never blocks the caller (an event loop), never wakes the writer. */
    public void record(Entry entry) {
        Entry kept = entry.statement().length() > STATEMENT_LIMIT ? cut(entry) : entry;
        int characters = kept.statement().length();
        if (queuedLines.incrementAndGet() > QUEUE_LIMIT
                || queuedCharacters.addAndGet(characters) > QUEUED_CHARACTERS_LIMIT) {
            queuedLines.decrementAndGet();
            queuedCharacters.addAndGet(-characters);
            dropped.incrementAndGet();
            droppedTotal.increment();
            return;
        }
        queue.add(new Pending(Instant.now(), kept));
    }

    /** Lines lost because the queue was full, since the log opened. */
    public long droppedLines() {
        return droppedTotal.sum();
    }

    private static Entry cut(Entry entry) {
        String statement = entry.statement();
        int end = STATEMENT_LIMIT;
        if (Character.isHighSurrogate(statement.charAt(end - 1))) {
            end--;
        }
        return new Entry(entry.connection(), entry.login(), entry.database(), entry.verdict(), entry.rule(),
                statement.substring(0, end) + "... (" + statement.length() + " characters)", entry.micros());
    }

    static String format(Instant time, Entry entry) {
        StringWriter text = new StringWriter(128 + entry.statement().length());
        try (JsonGenerator json = JSON.createGenerator(text)) {
            write(json, time, entry);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    private static void write(JsonGenerator json, Instant time, Entry entry) throws IOException {
        json.writeStartObject();
        json.writeStringField("time", time.toString());
        json.writeStringField("connection", entry.connection());
        json.writeStringField("login", entry.login());
        json.writeStringField("database", entry.database());
        json.writeStringField("verdict", entry.verdict());
        if (entry.rule() != null) {
            json.writeStringField("rule", entry.rule());
        }
        json.writeStringField("statement", PasswordRedaction.redact(entry.statement()));
        json.writeNumberField("duration_us", entry.micros());
        json.writeEndObject();
    }

    private void drain() {
        try {
            while (true) {
                boolean last = closing;
                writeQueued();
                if (last) {
                    return;
                }
                LockSupport.parkNanos(BATCH_NANOS);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("pgward: the audit log cannot be written: " + e.getMessage());
        }
    }

    /**
     * Writes the queued lines through one generator straight into the buffered output: no string per line, no
     * generator per line (a read-write login audits every statement, so this runs once per relayed statement).
     */
    private void writeQueued() throws IOException {
        if (queue.isEmpty() && dropped.get() == 0) {
            return;
        }
        try (JsonGenerator json = JSON.createGenerator(out)) {
            // Lines are separated by the newline written after each, not by Jackson's space between root values.
            json.setRootValueSeparator(null);
            for (Pending p; (p = queue.poll()) != null; ) {
                queuedLines.decrementAndGet();
                queuedCharacters.addAndGet(-p.entry().statement().length());
                write(json, p.time(), p.entry());
                json.writeRaw('\n');
            }
            long lost = dropped.getAndSet(0);
            if (lost > 0) {
                json.writeRaw("{\"time\":\"" + Instant.now() + "\",\"verdict\":\"audit-overflow\",\"dropped\":"
                        + lost + "}\n");
            }
        }
        out.flush();
    }

    /** Writes what is queued and stops the writer. */
    @Override
    public void close() {
        closing = true;
        LockSupport.unpark(writer);
        try {
            writer.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
