package io.pgward.wire.local;

import io.pgward.guard.Verdict;
import static io.pgward.wire.protocol.WireBytes.assertBytes;
import static io.pgward.wire.protocol.WireBytes.bytes;
import static java.util.concurrent.CompletableFuture.completedFuture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.pgward.wire.codec.FrontendDecoder;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.TrackingAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client session on a {@link LocalDatabase}, driven over an {@code EmbeddedChannel} with the client's bytes
 * going through the real {@link FrontendDecoder}, against a scripted database double.
 */
class LocalSessionTest {

    private static final Verdict.Answer ALICE = new Verdict.Answer(List.of("name"), List.of(List.of("alice")),
            "SELECT 1", List.of());

    private final TrackingAllocator alloc = new TrackingAllocator();
    private final List<LocalDatabase.Statement> asked = new CopyOnWriteArrayList<>();
    /** Answers {@code SELECT name FROM users} with {@link #ALICE}; anything else is an error. */
    private final LocalDatabase database = new LocalDatabase() {
        @Override
        public CompletionStage<Verdict.Answer> execute(Statement statement) {
            asked.add(statement);
            if (statement.sql().equals("SELECT name FROM users")) {
                return completedFuture(ALICE);
            }
            return java.util.concurrent.CompletableFuture.failedFuture(
                    LocalDatabaseException.error(SqlState.SYNTAX_ERROR, "unexpected statement " + statement.sql()));
        }

        /** {@code STREAM}: two batches, the second only when the test releases it; anything else as execute. */
        @Override
        public CompletionStage<Verdict.Answer> stream(Statement statement, ResultStream out) {
            if (!statement.sql().equals("STREAM")) {
                return execute(statement);
            }
            asked.add(statement);
            return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                out.columns(List.of("n"));
                out.rows(List.of(List.of("1"), List.of("2")));
                secondBatch.join();
                out.rows(List.of(List.of("3")));
                return new Verdict.Answer(List.of("n"), List.of(), "SELECT 3", List.of("7: a warning"));
            }, statementThreads);
        }

        @Override
        public Map<String, String> parameterStatus() {
            return Map.of();
        }
    };
    private final java.util.concurrent.CompletableFuture<Void> secondBatch =
            new java.util.concurrent.CompletableFuture<>();
    private final java.util.concurrent.ExecutorService statementThreads =
            java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
    private final List<EmbeddedChannel> clients = new ArrayList<>();
    private final List<String> ended = new CopyOnWriteArrayList<>();

    /** A logged-in client of the local database, as FrontendStartup leaves it. */
    private EmbeddedChannel client(String connection) {
        EmbeddedChannel client = new EmbeddedChannel();
        client.config().setAllocator(alloc);
        FrontendDecoder decoder = new FrontendDecoder();
        decoder.authenticated();
        client.pipeline().addLast("decoder", decoder);
        client.pipeline().addLast("session", new LocalSession(connection, client, database, "alice", "shop", true,
                null, () -> ended.add(connection)));
        clients.add(client);
        return client;
    }

    @AfterEach
    void nothingUnreadAndNothingLeaked() {
        for (EmbeddedChannel client : clients) {
            assertFalse(client.finishAndReleaseAll(), "the client was sent something the test did not read");
        }
        alloc.assertAllReleased();
    }

    /** Feeds raw client bytes and lets the session finish the statements they start. */
    private static void clientSends(EmbeddedChannel client, byte[] wire) {
        client.writeInbound(Unpooled.wrappedBuffer(wire));
        client.runPendingTasks();
    }

    /** Everything flushed to the client since the last call, one array per message; the buffers are released. */
    private static List<byte[]> sentTo(EmbeddedChannel client) {
        List<byte[]> sent = new ArrayList<>();
        for (ByteBuf buf; (buf = client.readOutbound()) != null; ) {
            try {
                while (buf.isReadable()) {
                    byte[] message = new byte[buf.getInt(buf.readerIndex() + 1) + 1];
                    buf.readBytes(message);
                    sent.add(message);
                }
            } finally {
                buf.release();
            }
        }
        return sent;
    }

    private static void assertWire(List<byte[]> expected, List<byte[]> sent) {
        assertEquals(expected.size(), sent.size(), () -> "messages: " + sent.stream().map(m -> (char) m[0]).toList());
        for (int i = 0; i < expected.size(); i++) {
            assertBytes(expected.get(i), Unpooled.wrappedBuffer(sent.get(i)));
        }
    }

    private static final byte[] QUERY_USERS = bytes('Q', 0, 0, 0, 27, "SELECT name FROM users", 0);

    /** RowDescription (one text column), the row, CommandComplete, ReadyForQuery(I) for {@link #ALICE}. */
    private static final List<byte[]> ALICE_ON_THE_WIRE = List.of(
            bytes('T', 0, 0, 0, 29, 0, 1,
                    "name", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0),
            bytes('D', 0, 0, 0, 15, 0, 1, 0, 0, 0, 5, "alice"),
            bytes('C', 0, 0, 0, 13, "SELECT 1", 0),
            bytes('Z', 0, 0, 0, 5, 'I'));

    @Test
    void answersASimpleQueryWithRowDescriptionDataRowCommandCompleteAndReadyForQuery() {
        EmbeddedChannel client = client("c1");

        clientSends(client, QUERY_USERS);

        assertWire(ALICE_ON_THE_WIRE, sentTo(client));
        assertEquals(List.of(new LocalDatabase.Statement("SELECT name FROM users", List.of(), "alice", true, "c1")),
                asked);
        assertTrue(client.isOpen());
        assertEquals(List.of(), ended);
    }

    @Test
    void aStreamedResultReachesTheClientBatchByBatchWhileTheStatementRuns() throws Exception {
        EmbeddedChannel client = client("c1");

        client.writeInbound(Unpooled.wrappedBuffer(bytes('Q', 0, 0, 0, 11, "STREAM", 0)));
        List<byte[]> first = new ArrayList<>();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (first.size() < 3 && System.nanoTime() < deadline) {
            client.runPendingTasks();
            first.addAll(sentTo(client));
            Thread.onSpinWait();
        }

        assertWire(List.of(
                bytes('T', 0, 0, 0, 26, 0, 1, "n", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                        0, 0),
                bytes('D', 0, 0, 0, 11, 0, 1, 0, 0, 0, 1, "1"),
                bytes('D', 0, 0, 0, 11, 0, 1, 0, 0, 0, 1, "2")), first);
        secondBatch.complete(null);
        List<byte[]> rest = new ArrayList<>();
        while (rest.size() < 4 && System.nanoTime() < deadline) {
            client.runPendingTasks();
            rest.addAll(sentTo(client));
            Thread.onSpinWait();
        }
        assertEquals(List.of('D', 'N', 'C', 'Z'), rest.stream().map(m -> (char) m[0]).toList());
        assertBytes(bytes('C', 0, 0, 0, 13, "SELECT 3", 0), Unpooled.wrappedBuffer(rest.get(2)));
    }

    @Test
    void answersAQuerySentOneByteAtATime() {
        EmbeddedChannel client = client("c1");

        for (byte b : QUERY_USERS) {
            clientSends(client, new byte[] {b});
        }

        assertWire(ALICE_ON_THE_WIRE, sentTo(client));
        assertEquals(1, asked.size());
    }

    @Test
    void aMalformedMessageEndsOnlyThatSessionWithFatal08P01() {
        EmbeddedChannel broken = client("c1");
        EmbeddedChannel other = client("c2");

        clientSends(broken, bytes('Q', 0, 0, 0, 3));   // a length shorter than the length field itself

        List<byte[]> toBroken = sentTo(broken);
        assertEquals(1, toBroken.size());
        assertEquals(Map.of('S', "FATAL", 'V', "FATAL", 'C', SqlState.PROTOCOL_VIOLATION, 'M',
                "invalid message length"),
                PgError.fields(Unpooled.wrappedBuffer(toBroken.getFirst(), 5, toBroken.getFirst().length - 5)));
        assertFalse(broken.isOpen());
        assertEquals(List.of("c1"), ended);
        assertEquals(List.of(), asked, "nothing of the malformed message reached the database");

        clientSends(other, QUERY_USERS);
        assertWire(ALICE_ON_THE_WIRE, sentTo(other));
        assertTrue(other.isOpen());
        assertEquals(List.of("c1"), ended);
    }

    /** A correctly framed message whose body cannot be read gets PostgreSQL's ERROR 08P01, and the session goes on. */
    @Test
    void aMalformedQueryGetsAnErrorAndReadyForQuery() {
        EmbeddedChannel client = client("c1");

        clientSends(client, bytes('Q', 0, 0, 0, 12, "select 1"));

        List<byte[]> reply = sentTo(client);
        assertEquals(2, reply.size());
        assertEquals(Map.of('S', "ERROR", 'V', "ERROR", 'C', SqlState.PROTOCOL_VIOLATION, 'M',
                "invalid string in message"), fields(reply.getFirst()));
        assertBytes(bytes('Z', 0, 0, 0, 5, 'I'), Unpooled.wrappedBuffer(reply.get(1)));
        clientSends(client, QUERY_USERS);
        assertWire(ALICE_ON_THE_WIRE, sentTo(client));
        assertTrue(client.isOpen());
        assertEquals(List.of(), ended);
    }

    /** After the error for a malformed extended-protocol message everything up to the Sync is skipped. */
    @Test
    void aMalformedDescribeGetsAnErrorAndTheRestUpToSyncIsSkipped() {
        EmbeddedChannel client = client("c1");

        clientSends(client, bytes('D', 0, 0, 0, 9, 'X', "foo", 0, 'H', 0, 0, 0, 4));
        List<byte[]> reply = sentTo(client);
        assertEquals(1, reply.size(), "the error comes at once, without waiting for the Sync");
        assertEquals("invalid DESCRIBE message subtype 88", fields(reply.getFirst()).get('M'));

        clientSends(client, bytes('P', 0, 0, 0, 8, 0, 0, 0, 0, 'S', 0, 0, 0, 4));
        assertWire(List.of(bytes('Z', 0, 0, 0, 5, 'I')), sentTo(client));
        clientSends(client, QUERY_USERS);
        assertWire(ALICE_ON_THE_WIRE, sentTo(client));
        assertEquals(List.of(), ended);
    }

    /** A fast-path call is refused with its own ReadyForQuery; what follows it is not skipped. */
    @Test
    void aFunctionCallIsRefusedAndTheNextQueryIsAnswered() {
        EmbeddedChannel client = client("c1");

        clientSends(client, bytes('F', 0, 0, 0, 14, 0, 0, 0x06, 0x3e, 0, 0, 0, 0, 0, 0));
        List<byte[]> reply = sentTo(client);
        assertEquals(2, reply.size());
        assertEquals(SqlState.FEATURE_NOT_SUPPORTED, fields(reply.getFirst()).get('C'));
        clientSends(client, QUERY_USERS);
        assertWire(ALICE_ON_THE_WIRE, sentTo(client));
    }

    private static final byte[] COPY_DATA_DONE_FAIL = bytes('d', 0, 0, 0, 7, "abc", 'c', 0, 0, 0, 4,
            'f', 0, 0, 0, 9, "oops", 0);

    /**
     * No COPY runs here, and PostgreSQL accepts and ignores CopyData, CopyDone and CopyFail outside one (a client
     * whose COPY failed may still be sending its data): nothing is answered, in an error's skip to Sync as well.
     */
    @Test
    void copyMessagesOutsideACopyAreIgnored() {
        EmbeddedChannel client = client("c1");

        clientSends(client, COPY_DATA_DONE_FAIL);
        assertEquals(List.of(), sentTo(client));
        clientSends(client, QUERY_USERS);
        assertWire(ALICE_ON_THE_WIRE, sentTo(client));

        clientSends(client, bytes('D', 0, 0, 0, 9, 'X', "foo", 0));
        assertEquals("invalid DESCRIBE message subtype 88", fields(sentTo(client).getFirst()).get('M'));
        clientSends(client, COPY_DATA_DONE_FAIL);
        clientSends(client, bytes('S', 0, 0, 0, 4));
        assertWire(List.of(bytes('Z', 0, 0, 0, 5, 'I')), sentTo(client));
        assertTrue(client.isOpen());
        assertEquals(List.of(), ended);
    }

    private static Map<Character, String> fields(byte[] error) {
        return PgError.fields(Unpooled.wrappedBuffer(error, 5, error.length - 5));
    }
}
