package io.pgward.wire.relay;

import io.pgward.guard.Verdict;
import io.pgward.guard.catalog.CatalogRefusals;
import io.pgward.wire.gate.GateRequest;
import io.pgward.wire.gate.StatementGate;
import static io.pgward.wire.protocol.WireBytes.assertBytes;
import static io.pgward.wire.protocol.WireBytes.bytes;
import static java.util.concurrent.CompletableFuture.completedFuture;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.pool.BackendConnections;
import io.pgward.wire.pool.PinnedSettings;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.TrackingAllocator;
import io.pgward.wire.protocol.Wire;
import io.pgward.wire.protocol.WireBytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One session between two scripted doubles, no sockets: the test plays the client by writing decoded
 * {@link FrontendMessage}s into the client channel and plays PostgreSQL by writing {@link BackendMessage}s into
 * the backend channel, then reads what pgward flushed to each side, message by message.
 *
 * <pre>
 *   test as client ─▶ client channel ─▶ Session ─▶ backend channel ─▶ sentTo(server)
 *   sentTo(client) ◀─ client channel ◀─ Session ◀─ backend channel ◀─ test as PostgreSQL
 * </pre>
 */
class SessionTest {

    private static final String DROP_REFUSED = "pgward refused this query: DROP is not allowed";
    /** The session nonce is 0xabc, so its n-th replacement statement is pgward_refused_abc_n. */
    private static final long NONCE = 0xabc;

    private static final StatementGate REFUSE_DROP = request -> completedFuture(
            request.sql().startsWith("DROP") ? new Verdict.Refuse("42501", DROP_REFUSED) : Verdict.ALLOW);

    private final TrackingAllocator alloc = new TrackingAllocator();
    private final List<GateRequest> asked = new ArrayList<>();
    /** pgward's end of the client connection. */
    private EmbeddedChannel client;
    /** pgward's end of the backend connection. */
    private EmbeddedChannel server;
    private BackendConnection backend;
    private int ends;

    private void start(StatementGate gate) {
        start(gate, null);
    }

    /** With pins: the session of a read-only login. */
    private void start(StatementGate gate, PinnedSettings pins) {
        start(gate, pins, 0);
    }

    /** With a row cap: {@code rowCap} rows per result, 0 for none. */
    private void start(StatementGate gate, PinnedSettings pins, long rowCap) {
        client = new EmbeddedChannel();
        client.config().setAllocator(alloc);
        server = new EmbeddedChannel();
        server.config().setAllocator(alloc);
        backend = pins == null ? BackendConnections.over(server, "app", "shop")
                : BackendConnections.pinned(server, "app", "shop", pins);
        StatementGate recording = new StatementGate() {
            @Override
            public java.util.concurrent.CompletionStage<Verdict> check(GateRequest request) {
                asked.add(request);
                return gate.check(request);
            }

            @Override
            public boolean wantsSearchPath() {
                return gate.wantsSearchPath();
            }

            @Override
            public java.util.concurrent.CompletionStage<Verdict> checkBoundCalls(GateRequest prepared,
                                                                                 Map<Integer, String> values) {
                return gate.checkBoundCalls(prepared, values);
            }

            @Override
            public boolean mayChangeSearchPath(String sql, boolean standardConformingStrings) {
                return gate.mayChangeSearchPath(sql, standardConformingStrings);
            }

            @Override
            public long verdictEpoch(String database) {
                return gate.verdictEpoch(database);
            }
        };
        new Session(new Session.Identity("c1", "alice", "shop"), new Session.Rules(recording, null, rowCap), client,
                backend, BackendConnections.unconnectablePool(), NONCE, () -> ends++).start();
    }

    @AfterEach
    void nothingUnreadAndNothingLeaked() {
        boolean clientLeft = detachAndFinish(client);
        boolean serverLeft = detachAndFinish(server);
        alloc.assertAllReleased();
        assertFalse(clientLeft, "the client was sent something the test did not read");
        assertFalse(serverLeft, "the backend was sent something the test did not read");
    }

    /**
     * The session's end (or a running reset) would hand the connection back to a pool that never lent it, so
     * both are taken out of the pipeline before the channels close.
     */
    private static boolean detachAndFinish(EmbeddedChannel channel) {
        for (String name : List.of("session", "reset")) {
            if (channel.pipeline().get(name) != null) {
                channel.pipeline().remove(name);
            }
        }
        return channel.finishAndReleaseAll();
    }

    // ---------------------------------------------------------------- a Query that ends extended messages

    /**
     * After an extended-protocol error the server skips every message up to the next Sync, a Query included, which
     * then gets no ReadyForQuery: pgward learns that the server is skipping before it sends the Query, and skips it
     * too, so that the one ReadyForQuery (the Sync's) is counted once.
     */
    @Test
    void aQueryAfterAFailedExtendedMessageIsSkippedAsTheServerSkipsIt() {
        start(request -> completedFuture(Verdict.ALLOW));
        clientSends(parse("", "SELECT 1/0"), bind("", ""), execute(""), query("SET search_path = hr"), sync());
        List<Sent> asked = sentTo(server);
        assertEquals(List.of('P', 'B', 'E', 'C', 'H'), types(asked), "the Query waits for the answer to a Close");
        assertEquals("Spgward_skip_abc", asked.get(3).cstring(0), "of a statement name of pgward's own");
        serverSends(parseComplete(), bindComplete(), errorResponse("22012", "division by zero"));
        assertEquals(List.of('1', '2', 'E'), types(sentTo(client)));
        assertEquals(List.of('S'), types(sentTo(server)), "the Query is skipped, as the server skips it");
        serverSends(readyForQuery('I'));
        assertEquals(List.of('Z'), types(sentTo(client)));

        clientSends(query("SELECT 42"));
        assertEquals(List.of('Q'), types(sentTo(server)));
        serverSends(commandComplete("SELECT 1"), readyForQuery('I'));
        assertEquals(List.of('C', 'Z'), types(sentTo(client)));
    }

    /**
     * A Query pgward answers itself tells the server nothing: extended messages after it continue the same request,
     * and a Query after them is asked about again.
     */
    @Test
    void aQueryAfterALocalAnswerAndMoreExtendedMessagesIsAskedAboutAgain() {
        start(ANSWERS);
        clientSends(parse("", "SELECT 1"), bind("", ""), execute(""), query("SELECT * FROM pgward.relations()"),
                parse("", "selec 2"), bind("", ""), execute(""), query("SELECT 3"), sync());
        assertEquals(List.of('P', 'B', 'E', 'C', 'H'), types(sentTo(server)));
        serverSends(parseComplete(), bindComplete(), commandComplete("SELECT 1"), closeComplete());
        assertEquals(List.of('1', '2', 'C', 'T', 'D', 'C', 'Z'), types(sentTo(client)));
        assertEquals(List.of('P', 'B', 'E', 'C', 'H'), types(sentTo(server)), "asked again after the answer");
        serverSends(errorResponse("42601", "syntax error at or near \"selec\""));
        assertEquals(List.of('E'), types(sentTo(client)));
        assertEquals(List.of('S'), types(sentTo(server)), "the Query is skipped, as the server skips it");
        serverSends(readyForQuery('I'));
        assertEquals(List.of('Z'), types(sentTo(client)));
    }

    /** Without an error the Query runs after the extended messages, and the answer to pgward's Close is not relayed. */
    @Test
    void aQueryAfterExtendedMessagesThatSucceededRuns() {
        start(request -> completedFuture(Verdict.ALLOW));
        clientSends(parse("", "SELECT 1"), bind("", ""), execute(""), query("SELECT 2"), sync());
        assertEquals(List.of('P', 'B', 'E', 'C', 'H'), types(sentTo(server)));
        serverSends(parseComplete(), bindComplete(), commandComplete("SELECT 1"), closeComplete());
        assertEquals(List.of('1', '2', 'C'), types(sentTo(client)));
        assertEquals(List.of('Q', 'S'), types(sentTo(server)));
        serverSends(commandComplete("SELECT 1"), readyForQuery('I'), readyForQuery('I'));
        assertEquals(List.of('C', 'Z', 'Z'), types(sentTo(client)));
    }

    /**
     * The client's own Closes are answered first: only the last CloseComplete is pgward's answer, and only it is
     * dropped. The FunctionCall then goes on, and nothing pgward sent touched the client's unnamed statement.
     */
    @Test
    void aFunctionCallAfterExtendedMessagesWaitsForTheLastCloseCompleteOnly() {
        start(request -> completedFuture(Verdict.ALLOW));
        clientSends(parse("", "SELECT 1"), bind("", ""), close('S', "s9"), close('P', "p9"), functionCall(1598),
                sync());
        List<Sent> asked = sentTo(server);
        assertEquals(List.of('P', 'B', 'C', 'C', 'C', 'H'), types(asked));
        assertEquals("", asked.get(0).cstring(0), "only the client's Parse names the unnamed statement");
        serverSends(parseComplete(), bindComplete(), closeComplete(), closeComplete());
        assertEquals(List.of('1', '2', '3', '3'), types(sentTo(client)), "the client's CloseCompletes");
        assertEquals(List.of(), sentTo(server), "still waiting for the answer");
        serverSends(closeComplete());
        assertEquals(List.of(), sentTo(client), "pgward's CloseComplete is dropped");
        assertEquals(List.of('F', 'S'), types(sentTo(server)));
        serverSends(new BackendMessage.Run(Wire.message(alloc, 'V', b -> b.writeInt(-1)), 0), readyForQuery('I'),
                readyForQuery('I'));
        assertEquals(List.of('V', 'Z', 'Z'), types(sentTo(client)));
    }

    // ---------------------------------------------------------------- a client that does not read

    private static final StatementGate ANSWERS = request -> completedFuture(request.sql().contains("pgward.")
            ? new Verdict.Answer(List.of("name"), List.of(List.of("orders")), "SELECT 1", List.of()) : Verdict.ALLOW);

    /** In a failed transaction block pgward answers as PostgreSQL does: with 25P02, whatever the statement. */
    @Test
    void anAnswerInAFailedTransactionIsTheServersError() {
        start(ANSWERS);
        clientSends(query("SELECT 1/0"));
        sentTo(server);
        serverSends(errorResponse("22012", "division by zero"), readyForQuery('E'));
        sentTo(client);
        clientSends(query("SELECT * FROM pgward.relations()"));
        List<Sent> answer = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(answer));
        assertEquals("25P02", answer.getFirst().fields().get('C'));
        assertEquals(List.of(), sentTo(server));
    }

    /**
     * pgward answers some statements itself, with nothing from the backend to hold them back: a client that does not
     * read its answers is not read either, as PostgreSQL stops reading a client it cannot send to.
     */
    @Test
    void aClientThatDoesNotReadIsNotReadUntilItDoes() {
        start(ANSWERS);
        client.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        client.runPendingTasks();
        assertFalse(client.config().isAutoRead(), "a client that does not read is not read");
        clientSends(query("SELECT * FROM pgward.relations()"), query("SELECT 1"));
        assertEquals(List.of(), sentTo(client), "nothing answered while the client does not read");
        assertEquals(List.of(), sentTo(server));

        client.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
        client.runPendingTasks();
        assertTrue(client.config().isAutoRead());
        assertEquals(List.of('T', 'D', 'C', 'Z'), types(sentTo(client)));
        assertEquals(List.of('Q'), types(sentTo(server)));
        serverSends(commandComplete("SELECT 1"), readyForQuery('I'));
        assertEquals(List.of('C', 'Z'), types(sentTo(client)));
    }

    // ---------------------------------------------------------------- pgward calls with bound arguments

    /** Prepares a shape for a text with {@code pgward.describe($1)}, and computes it at each Bind. */
    private static final StatementGate BOUND_CALLS = new StatementGate() {
        @Override
        public java.util.concurrent.CompletionStage<Verdict> check(GateRequest request) {
            return CompletableFuture.completedFuture(request.sql().contains("pgward.describe($1)")
                    ? new Verdict.Rewrite("SELECT shape($1::text)", List.of(), true, List.of(), List.of(1))
                    : Verdict.ALLOW);
        }

        @Override
        public java.util.concurrent.CompletionStage<Verdict> checkBoundCalls(GateRequest prepared,
                                                                             Map<Integer, String> values) {
            return CompletableFuture.completedFuture(values.get(1).equals("secret")
                    ? new Verdict.Refuse("42P01", "secret is not one of the selected tables or views")
                    : new Verdict.Rewrite("SELECT computed('" + values.get(1) + "', $1::text)", List.of(), true));
        }
    };

    @Test
    void aBindOfAStatementWithBoundCallsBindsTheComputedStatementAndHidesItsCompletions() {
        start(BOUND_CALLS);
        clientSends(parse("S1", "select * from pgward.describe($1)"), bind("", "S1", "orders"), execute(""),
                sync());

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'C', 'P', 'B', 'C', 'E', 'S'), types(toBackend));
        assertEquals(List.of("S1", "SELECT shape($1::text)"), List.of(toBackend.get(0).cstring(0),
                toBackend.get(0).cstring(1)));
        assertEquals("Spgward_calls_abc", toBackend.get(1).cstring(0), "pgward's name, left by no earlier Bind");
        assertEquals(List.of("pgward_calls_abc", "SELECT computed('orders', $1::text)"),
                List.of(toBackend.get(2).cstring(0), toBackend.get(2).cstring(1)));
        assertEquals(List.of("", "pgward_calls_abc"), List.of(toBackend.get(3).cstring(0),
                toBackend.get(3).cstring(1)), "the client's portal, bound to the computed statement");
        assertEquals("Spgward_calls_abc", toBackend.get(4).cstring(0), "nothing of pgward's left");

        serverSends(parseComplete(), closeComplete(), parseComplete(), bindComplete(), closeComplete(),
                commandComplete("SELECT 0"), readyForQuery('I'));
        assertEquals(List.of('1', '2', 'C', 'Z'), types(sentTo(client)));

        // Executed again with another value: computed again, the prepared shape untouched.
        clientSends(bind("", "S1", "customers"), execute(""), sync());
        toBackend = sentTo(server);
        assertEquals(List.of('C', 'P', 'B', 'C', 'E', 'S'), types(toBackend));
        assertEquals("SELECT computed('customers', $1::text)", toBackend.get(1).cstring(1));
        serverSends(closeComplete(), parseComplete(), bindComplete(), closeComplete(), commandComplete("SELECT 0"),
                readyForQuery('I'));
        assertEquals(List.of('2', 'C', 'Z'), types(sentTo(client)));
    }

    @Test
    void aRefusedBindOfAStatementWithBoundCallsNeverReachesTheBackend() {
        start(BOUND_CALLS);
        clientSends(parse("S1", "select * from pgward.describe($1)"), sync());
        assertEquals(List.of('P', 'S'), types(sentTo(server)));
        serverSends(parseComplete(), readyForQuery('I'));
        assertEquals(List.of('1', 'Z'), types(sentTo(client)));

        clientSends(parse("S2", "select 1"), bind("", "S1", "secret"), execute(""), sync());
        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'P', 'E', 'S'), types(toBackend));
        assertNeverContains("secret", toBackend);
        serverSends(parseComplete(), errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""),
                readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('1', 'E', 'Z'), types(toClient), "the client's own ParseComplete is kept");
        assertEquals("42P01", toClient.get(1).fields().get('C'));
    }

    /**
     * The client's own unnamed statement is not touched by a Bind of a statement with bound calls, and the client's
     * Close of a statement between pgward's gets its CloseComplete.
     */
    @Test
    void theClientsUnnamedStatementOutlivesABindOfAStatementWithBoundCalls() {
        start(BOUND_CALLS);
        clientSends(parse("", "select 2"), parse("S1", "select * from pgward.describe($1)"),
                bind("", "S1", "orders"), execute(""), close('S', "S9"), bind("", ""), execute(""), sync());
        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'P', 'C', 'P', 'B', 'C', 'E', 'C', 'B', 'E', 'S'), types(toBackend));
        assertEquals(List.of("", ""), List.of(toBackend.get(8).cstring(0), toBackend.get(8).cstring(1)),
                "the client's Bind of its unnamed statement, as it came");
        serverSends(parseComplete(), parseComplete(), closeComplete(), parseComplete(), bindComplete(),
                closeComplete(), commandComplete("SELECT 0"), closeComplete(), bindComplete(),
                commandComplete("SELECT 1"), readyForQuery('I'));
        assertEquals(List.of('1', '1', '2', 'C', '3', '2', 'C', 'Z'), types(sentTo(client)));
    }

    // ---------------------------------------------------------------- refusals

    @Test
    void refusesAParsedDropWithoutItReachingTheBackend() {
        start(REFUSE_DROP);
        clientSends(parse("", "DROP TABLE t"), bind("", ""), execute(""), sync());

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'B', 'E', 'S'), types(toBackend));
        assertEquals("pgward_refused_abc_1", toBackend.getFirst().cstring(1));
        assertNeverContains("DROP", toBackend);
        assertEquals(List.of(), sentTo(client));

        // PostgreSQL rejects the replacement, skips Bind and Execute, and answers Sync.
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals(Map.of('S', "ERROR", 'V', "ERROR", 'C', "42501", 'M', DROP_REFUSED), toClient.get(0).fields());
        assertArrayEquals(new byte[] {'Z', 0, 0, 0, 5, 'I'}, toClient.get(1).bytes());
        assertNeverContains("pgward_refused", toClient);
    }

    @Test
    void keepsTheStatementNameOfARefusedParseSoThatItsBindFailsAtTheServer() {
        start(REFUSE_DROP);
        clientSends(parse("s1", "DROP TABLE t"), sync());

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'S'), types(toBackend));
        assertEquals("s1", toBackend.getFirst().cstring(0));
        assertEquals("pgward_refused_abc_1", toBackend.getFirst().cstring(1));
        answerTheRefusalAndReadIt("pgward_refused_abc_1");
    }

    @Test
    void refusesADropInASimpleQueryWithAReplacementQuery() {
        start(REFUSE_DROP);
        clientSends(query("DROP TABLE t"));

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('Q'), types(toBackend));
        assertEquals("pgward_refused_abc_1", toBackend.getFirst().cstring(0));

        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("42501", toClient.get(0).fields().get('C'));
    }

    private static final StatementGate REFUSE_FUNCTION_CALLS = request -> completedFuture(
            request.kind() == GateRequest.Kind.FUNCTION_CALL
                    ? new Verdict.Refuse("42501", "pgward refused this query: a fast-path call") : Verdict.ALLOW);

    /**
     * A refused FunctionCall becomes a Parse of the token under the token's own name and a Sync: one error and one
     * ReadyForQuery, as PostgreSQL answers a failing FunctionCall, and the client's unnamed statement and portal are
     * untouched, where a Query of the token would drop the unnamed statement.
     */
    @Test
    void refusesAFunctionCallWithAParseOfTheTokenAndASync() {
        start(REFUSE_FUNCTION_CALLS);
        clientSends(functionCall(1598));

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'S'), types(toBackend));
        assertEquals(List.of("pgward_refused_abc_1", "pgward_refused_abc_1"),
                List.of(toBackend.getFirst().cstring(0), toBackend.getFirst().cstring(1)));
        answerTheRefusalAndReadIt("pgward_refused_abc_1");
        assertSessionGoesOn();
    }

    /**
     * A ROLLBACK in the extended protocol ends the failed block before the request's ReadyForQuery says so: a refusal
     * after it in the same request is the refusal, not 25P02, as PostgreSQL then runs the refused message.
     */
    @Test
    void aRefusalAfterARollbackWithoutASyncInAFailedBlockIsNot25P02() {
        start(REFUSE_FUNCTION_CALLS);
        clientSends(query("SELECT 1/0"));
        sentTo(server);
        serverSends(errorResponse("22012", "division by zero"), readyForQuery('E'));
        sentTo(client);

        clientSends(parse("r", "ROLLBACK"), bind("", "r"), execute(""), functionCall(1598), sync());
        assertEquals(List.of('P', 'B', 'E', 'C', 'H'), types(sentTo(server)));
        serverSends(parseComplete(), bindComplete(), commandComplete("ROLLBACK"), closeComplete());
        assertEquals(List.of('P', 'S', 'S'), types(sentTo(server)));
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'),
                readyForQuery('I'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('1', '2', 'C', 'E', 'Z', 'Z'), types(toClient));
        assertEquals("42501", toClient.get(3).fields().get('C'));
    }

    @Test
    void numbersEachReplacementSoThatEveryErrorIsMatchedToItsOwnRefusal() {
        start(REFUSE_DROP);
        clientSends(query("DROP TABLE a"), query("DROP TABLE b"));
        List<Sent> toBackend = sentTo(server);
        assertEquals("pgward_refused_abc_1", toBackend.get(0).cstring(0));
        assertEquals("pgward_refused_abc_2", toBackend.get(1).cstring(0));

        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'),
                errorResponse("42601", "syntax error at or near \"pgward_refused_abc_2\""), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z', 'E', 'Z'), types(toClient));
        assertEquals("42501", toClient.get(0).fields().get('C'));
        assertEquals("42501", toClient.get(2).fields().get('C'));
    }

    @Test
    void forwardsAnUnrelatedBackendErrorUntouched() {
        start(REFUSE_DROP);
        clientSends(query("SELECT * FROM missing"));
        assertEquals("SELECT * FROM missing", sentTo(server).getFirst().cstring(0));

        BackendMessage.Frame error = errorResponse("42P01", "relation \"missing\" does not exist");
        byte[] original = ByteBufUtil.getBytes(error.bytes());
        serverSends(error, readyForQuery('I'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertArrayEquals(original, toClient.get(0).bytes());
    }

    @Test
    void forwardsAGenuineSyntaxErrorThatPrecedesARefusalUntouched() {
        start(REFUSE_DROP);
        clientSends(query("SELEC 1"), query("DROP TABLE t"));
        assertEquals(List.of('Q', 'Q'), types(sentTo(server)));

        BackendMessage.Frame genuine = errorResponse("42601", "syntax error at or near \"SELEC\"");
        byte[] original = ByteBufUtil.getBytes(genuine.bytes());
        serverSends(genuine, readyForQuery('I'),
                errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z', 'E', 'Z'), types(toClient));
        assertArrayEquals(original, toClient.get(0).bytes());
        assertEquals("42501", toClient.get(2).fields().get('C'));
    }

    @Test
    void forwardsAnErrorOfAnAllowedParseAheadOfARefusalInTheSameBatch() {
        // PostgreSQL fails the first Parse and skips to Sync: the replacement never runs, so no refusal is sent.
        start(REFUSE_DROP);
        clientSends(parse("", "SELEC 1"), parse("", "DROP TABLE t"), sync());
        assertEquals(List.of('P', 'P', 'S'), types(sentTo(server)));

        BackendMessage.Frame genuine = errorResponse("42601", "syntax error at or near \"SELEC\"");
        byte[] original = ByteBufUtil.getBytes(genuine.bytes());
        serverSends(genuine, readyForQuery('I'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertArrayEquals(original, toClient.get(0).bytes());
    }

    @Test
    void answersARefusalInAnAbortedTransactionWithInFailedSqlTransaction() {
        start(REFUSE_DROP);
        clientSends(query("SELECT 1/0"));
        sentTo(server);
        serverSends(errorResponse("22012", "division by zero"), readyForQuery('E'));
        assertEquals(List.of('E', 'Z'), types(sentTo(client)));

        clientSends(query("DROP TABLE t"));
        assertEquals("pgward_refused_abc_1", sentTo(server).getFirst().cstring(0));
        // In an aborted transaction PostgreSQL still parses first, so it reports the syntax error.
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('E'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("25P02", toClient.get(0).fields().get('C'));
        assertEquals("current transaction is aborted, commands ignored until end of transaction block",
                toClient.get(0).fields().get('M'));
        assertArrayEquals(new byte[] {'Z', 0, 0, 0, 5, 'E'}, toClient.get(1).bytes());
    }

    @Test
    void writesARefusalsDetailAndHintIntoTheErrorResponse() {
        start(request -> completedFuture(new Verdict.Refuse("42501", "pgward refused this query: it reads hr.x", 0,
                "relation-not-selected", "a detail", "select * from pgward.relations() lists them.")));
        clientSends(query("SELECT * FROM hr.x"));
        assertEquals("pgward_refused_abc_1", sentTo(server).getFirst().cstring(0));
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));
        Map<Character, String> error = sentTo(client).getFirst().fields();
        assertEquals("pgward refused this query: it reads hr.x", error.get('M'));
        assertEquals("a detail", error.get('D'));
        assertEquals("select * from pgward.relations() lists them.", error.get('H'));
        assertNull(error.get('P'));
    }

    @Test
    void answersPostgresGrammarErrorFirstInAnAbortedTransaction() {
        start(request -> completedFuture(request.sql().startsWith("CREATE")
                ? new Verdict.Refuse("42601", "syntax error at or near \"TABEL\"", 8, CatalogRefusals.GRAMMAR, null,
                        null) : Verdict.ALLOW));
        clientSends(query("SELECT 1/0"));
        sentTo(server);
        serverSends(errorResponse("22012", "division by zero"), readyForQuery('E'));
        sentTo(client);

        clientSends(query("CREATE TABEL t (id int)"));
        assertEquals("pgward_refused_abc_1", sentTo(server).getFirst().cstring(0));
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('E'));
        Map<Character, String> error = sentTo(client).getFirst().fields();
        assertEquals("42601", error.get('C'));
        assertEquals("syntax error at or near \"TABEL\"", error.get('M'));
        assertEquals("8", error.get('P'));
    }

    // ---------------------------------------------------------------- malformed messages

    /**
     * A message pgward cannot read is never forwarded: a Parse of a token takes its place, and the server's syntax
     * error for it becomes PostgreSQL's ERROR 08P01 for the message; the server skips to the Sync as after that error.
     */
    @Test
    void aMalformedDescribeGetsPostgresqlsErrorAndTheServerSkipsToTheSync() {
        start(REFUSE_DROP);
        clientSends(parse("", "SELECT 1"), malformed('D', "invalid DESCRIBE message subtype 88", 'X', "foo", 0),
                sync());

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'P', 'S'), types(toBackend));
        assertArrayEquals(bytes('P', 0, 0, 0, 48, "pgward_refused_abc_1", 0, "pgward_refused_abc_1", 0, 0, 0),
                toBackend.get(1).bytes(), "the token under its own name: the client's statements are untouched");
        assertNeverContains("foo", toBackend);
        serverSends(parseComplete(), errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""),
                readyForQuery('I'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('1', 'E', 'Z'), types(toClient));
        assertEquals(Map.of('S', "ERROR", 'V', "ERROR", 'C', "08P01", 'M', "invalid DESCRIBE message subtype 88"),
                toClient.get(1).fields());
        assertSessionGoesOn();
    }

    /**
     * A malformed Query ends its request with ReadyForQuery, as PostgreSQL's error for it does; in its place goes a
     * Parse of the token and a Sync, not a Query, which would drop the unnamed statement PostgreSQL keeps.
     */
    @Test
    void aMalformedQueryGetsPostgresqlsErrorAndReadyForQuery() {
        start(REFUSE_DROP);
        clientSends(malformed('Q', "invalid string in message", "select 1"));

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'S'), types(toBackend));
        assertEquals(List.of("pgward_refused_abc_1", "pgward_refused_abc_1"),
                List.of(toBackend.getFirst().cstring(0), toBackend.getFirst().cstring(1)));
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("08P01", toClient.getFirst().fields().get('C'));
        assertEquals("invalid string in message", toClient.getFirst().fields().get('M'));
        assertSessionGoesOn();
    }

    /** PostgreSQL reads a message before it looks at the transaction: in a failed one the error is still 08P01. */
    @Test
    void aMalformedMessageInAFailedTransactionGetsItsOwnErrorNot25P02() {
        start(REFUSE_DROP);
        clientSends(query("SELECT 1/0"));
        sentTo(server);
        serverSends(errorResponse("22012", "division by zero"), readyForQuery('E'));
        sentTo(client);

        clientSends(malformed('E', "insufficient data left in message", 0, 0), sync());
        assertEquals(List.of('P', 'S'), types(sentTo(server)));
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('E'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("08P01", toClient.getFirst().fields().get('C'));
        assertEquals("insufficient data left in message", toClient.getFirst().fields().get('M'));
    }

    /**
     * After an earlier error of the batch the server skips the token too, and says nothing for it, as PostgreSQL says
     * nothing for a malformed message it skips; the next request's refusal is still matched to its own token.
     */
    @Test
    void aMalformedMessageAfterAnErrorInTheBatchGetsNoAnswer() {
        start(REFUSE_DROP);
        clientSends(parse("", "SELECT 1/0"), bind("", ""), execute(""),
                malformed('C', "invalid CLOSE message subtype 88", 'X', "foo", 0), sync());
        assertEquals(List.of('P', 'B', 'E', 'P', 'S'), types(sentTo(server)));
        serverSends(parseComplete(), bindComplete(), errorResponse("22012", "division by zero"), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('1', '2', 'E', 'Z'), types(toClient));
        assertEquals("22012", toClient.get(2).fields().get('C'));

        clientSends(query("DROP TABLE t"));
        assertEquals("pgward_refused_abc_2", sentTo(server).getFirst().cstring(0));
        answerTheRefusalAndReadIt("pgward_refused_abc_2");
    }

    /** A malformed Query after a failed extended message is skipped as the server skips a Query there. */
    @Test
    void aMalformedQueryAfterAFailedExtendedMessageIsSkipped() {
        start(REFUSE_DROP);
        clientSends(parse("", "SELECT 1/0"), bind("", ""), execute(""),
                malformed('Q', "invalid string in message", "select 1"), sync());
        assertEquals(List.of('P', 'B', 'E', 'C', 'H'), types(sentTo(server)), "asks whether the server skips");
        serverSends(parseComplete(), bindComplete(), errorResponse("22012", "division by zero"));
        assertEquals(List.of('1', '2', 'E'), types(sentTo(client)));
        assertEquals(List.of('S'), types(sentTo(server)), "nothing in the malformed Query's place");
        serverSends(readyForQuery('I'));
        assertEquals(List.of('Z'), types(sentTo(client)));
        assertSessionGoesOn();
    }

    /**
     * A Bind whose values pgward must judge but cannot read is not forwarded either: the server would use the values
     * before the one it fails on.
     */
    @Test
    void aBindWhoseValuesCannotBeReadIsRefusedWithPostgresqlsError() {
        start(BOUND_CALLS);
        clientSends(parse("S1", "select * from pgward.describe($1)"), sync());
        assertEquals(List.of('P', 'S'), types(sentTo(server)));
        serverSends(parseComplete(), readyForQuery('I'));
        assertEquals(List.of('1', 'Z'), types(sentTo(client)));

        // One value announced, of 100 bytes; one byte present.
        FrontendMessage.Bind truncated = new FrontendMessage.Bind("", "S1", Wire.message(alloc, 'B',
                b -> b.writeBytes(bytes(0, "S1", 0, 0, 0, 0, 1, 0, 0, 0, 100, 'x'))));
        clientSends(truncated, execute(""), sync());
        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'E', 'S'), types(toBackend));
        assertEquals("pgward_refused_abc_1", toBackend.getFirst().cstring(0));
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("08P01", toClient.getFirst().fields().get('C'));
        assertEquals("insufficient data left in message", toClient.getFirst().fields().get('M'));
    }

    /** The session still relays: a Query goes to the server and its answer to the client. */
    private void assertSessionGoesOn() {
        clientSends(query("SELECT 1"));
        assertEquals(List.of('Q'), types(sentTo(server)));
        serverSends(commandComplete("SELECT 1"), readyForQuery('I'));
        assertEquals(List.of('C', 'Z'), types(sentTo(client)));
        assertTrue(client.isOpen());
        assertEquals(0, ends);
    }

    // ---------------------------------------------------------------- rewritten statements

    @Test
    void sendsARewriteThatKeepsParametersAsAParseWithTheClientsTypesUnderItsName() {
        start(request -> completedFuture(new Verdict.Rewrite("SELECT $1::text || 'rewritten'", List.of(), true)));
        String sql = "SELECT $1::text";
        clientSends(new FrontendMessage.Parse("s1", sql, new int[] {25},
                Messages.parse(alloc, "s1", sql, new int[] {25})), sync());

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'S'), types(toBackend));
        assertArrayEquals(bytes('P', 0, 0, 0, 44, "s1", 0, "SELECT $1::text || 'rewritten'", 0, 0, 1, 0, 0, 0, 25),
                toBackend.getFirst().bytes());
    }

    @Test
    void sendsARewriteOfASimpleQueryAsAQuery() {
        start(request -> completedFuture(new Verdict.Rewrite("SELECT 2", List.of(), true)));
        clientSends(query("SELECT 1"));

        List<Sent> toBackend = sentTo(server);
        assertArrayEquals(bytes('Q', 0, 0, 0, 13, "SELECT 2", 0), toBackend.getFirst().bytes());
    }

    // ---------------------------------------------------------------- allowed statements, backend state

    @Test
    void forwardsAnAllowedQueryAsTheSameBytes() {
        start(REFUSE_DROP);
        byte[] golden = bytes('Q', 0, 0, 0, 16, "SELECT 'é'", 0);
        ByteBuf frame = alloc.copyOf(golden);
        clientSends(new FrontendMessage.Query("SELECT 'é'", frame));

        ByteBuf forwarded = server.readOutbound();
        assertSame(frame, forwarded, "forwarded as the buffer that arrived, not re-encoded");
        try {
            assertBytes(golden, forwarded);
        } finally {
            forwarded.release();
        }
        assertNull(server.readOutbound());
        assertEquals(List.of("SELECT 'é'"), asked.stream().map(GateRequest::sql).toList());
    }

    @Test
    void asksTheGateAboutEachStatementWithTheSessionsLoginAndDatabase() {
        start(REFUSE_DROP);
        FrontendMessage.Parse typed = new FrontendMessage.Parse("s1", "SELECT $1", new int[] {23},
                Wire.message(alloc, 'P', b -> {
                    Wire.writeCString(b, "s1");
                    Wire.writeCString(b, "SELECT $1");
                    b.writeShort(1).writeInt(23);
                }));
        clientSends(query("SELECT 1"), typed, bind("", "s1"), sync(), functionCall(1598));
        assertEquals(List.of('Q', 'P', 'B', 'S', 'F'), types(sentTo(server)));

        assertEquals(3, asked.size(), "Bind and Sync are not statements");
        assertEquals(GateRequest.Kind.SIMPLE_QUERY, asked.get(0).kind());
        assertEquals(GateRequest.Kind.PARSE, asked.get(1).kind());
        assertArrayEquals(new int[] {23}, asked.get(1).parameterTypes());
        assertEquals(GateRequest.Kind.FUNCTION_CALL, asked.get(2).kind());
        assertEquals("fast-path call of function 1598", asked.get(2).sql());
        for (GateRequest request : asked) {
            assertEquals("alice", request.login());
            assertEquals("shop", request.database());
        }
    }

    @Test
    void tracksTheTransactionStatusFromReadyForQuery() {
        start(REFUSE_DROP);
        assertEquals('I', backend.transactionStatus());
        clientSends(query("BEGIN"));
        sentTo(server);
        serverSends(commandComplete("BEGIN"), readyForQuery('T'));
        assertEquals('T', backend.transactionStatus());
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('C', 'Z'), types(toClient));
        assertArrayEquals(new byte[] {'Z', 0, 0, 0, 5, 'T'}, toClient.get(1).bytes());

        clientSends(query("SELECT 1/0"));
        sentTo(server);
        serverSends(errorResponse("22012", "division by zero"), readyForQuery('E'));
        assertEquals('E', backend.transactionStatus());
        assertEquals(List.of('E', 'Z'), types(sentTo(client)));
    }

    @Test
    void forwardsRunsOfRowsAsTheyArrive() {
        start(REFUSE_DROP);
        clientSends(query("SELECT n FROM t"));
        sentTo(server);
        byte[] rows = bytes('T', 0, 0, 0, 26, 0, 1, "n", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25,
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0,
                'D', 0, 0, 0, 11, 0, 1, 0, 0, 0, 1, "1");
        serverSends(new BackendMessage.Run(alloc.copyOf(rows), 1), commandComplete("SELECT 1"), readyForQuery('I'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('T', 'D', 'C', 'Z'), types(toClient));
        assertArrayEquals(rows, bytes(toClient.get(0).bytes(), toClient.get(1).bytes()));
    }

    @Test
    void remembersAndForwardsParameterStatus() {
        start(REFUSE_DROP);
        clientSends(query("SET TimeZone = 'Europe/Berlin'"));
        sentTo(server);
        BackendMessage.Frame status = new BackendMessage.Frame('S',
                Messages.parameterStatus(alloc, "TimeZone", "Europe/Berlin"));
        byte[] original = ByteBufUtil.getBytes(status.bytes());
        serverSends(commandComplete("SET"), status, readyForQuery('I'));

        assertEquals("Europe/Berlin", backend.parameters().get("TimeZone"));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('C', 'S', 'Z'), types(toClient));
        assertArrayEquals(original, toClient.get(1).bytes());
    }

    // ---------------------------------------------------------------- the settings a read-only policy pins

    @Test
    void endsAPinnedSessionWhoseServerReportsAnotherClientEncodingAndClosesTheBackend() {
        for (String[] report : new String[][] {{"client_encoding", "SJIS"}, {"standard_conforming_strings", "off"},
                {"default_transaction_read_only", "off"}}) {
            asked.clear();
            start(request -> completedFuture(Verdict.ALLOW), new PinnedSettings(1000L, null));
            clientSends(query("SELECT 1"));
            sentTo(server);
            serverSends(commandComplete("SELECT 1"), new BackendMessage.Frame('S',
                    Messages.parameterStatus(alloc, report[0], report[1])), readyForQuery('I'));

            List<Sent> toClient = sentTo(client);
            assertEquals(List.of('C', 'E'), types(toClient), "the report is not relayed; nothing after it is");
            assertEquals(Map.of('S', "FATAL", 'V', "FATAL", 'C', "42501", 'M', "pgward ended the session of the "
                    + "read-only login \"alice\": the database server reports " + report[0] + " is " + report[1]
                    + " (pgward needs " + (report[0].equals("client_encoding") ? "UTF8" : "on") + ")"),
                    toClient.get(1).fields());
            assertFalse(client.isOpen());
            assertFalse(server.isOpen(), "the backend is closed, not reset for the pool");
            assertEquals(List.of(), sentTo(server), "no DISCARD ALL: the connection is not reused");
            assertTrue(nothingUnreadAndFinished());
        }
    }

    @Test
    void holdsReportsDuringPgwardsOwnShowSearchPathToThePinsToo() {
        StatementGate wantsSearchPath = new StatementGate() {
            @Override
            public java.util.concurrent.CompletionStage<Verdict> check(GateRequest request) {
                return completedFuture(Verdict.ALLOW);
            }

            @Override
            public boolean wantsSearchPath() {
                return true;
            }
        };
        start(wantsSearchPath, new PinnedSettings(null, null));
        assertEquals(PROBE, described(sentTo(server)), "asked when the session starts");
        serverSends(closeCompletes(), new BackendMessage.Frame('S', Messages.parameterStatus(alloc, "client_encoding",
                "BIG5")), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E'), types(toClient));
        assertEquals("FATAL", toClient.getFirst().fields().get('S'));
        assertFalse(server.isOpen());
    }

    @Test
    void relaysTheSameReportsForASessionWithoutPins() {
        start(REFUSE_DROP);
        clientSends(query("SET client_encoding = 'SJIS'"));
        sentTo(server);
        serverSends(commandComplete("SET"), new BackendMessage.Frame('S',
                Messages.parameterStatus(alloc, "client_encoding", "SJIS")), readyForQuery('I'));
        assertEquals(List.of('C', 'S', 'Z'), types(sentTo(client)));
        assertTrue(client.isOpen());
    }

    @Test
    void refusesTextThatIsNotUtf8InAPinnedSessionWithPostgresError() {
        start(request -> completedFuture(Verdict.ALLOW), new PinnedSettings(null, null));
        // SJIS: 0x81 0x5c is one character there, and no character at all in UTF-8.
        byte[] sjis = {'S', 'E', 'L', 'E', 'C', 'T', ' ', 'E', '\'', (byte) 0x81, '\\', '\'', ' ', '-', '-', '\''};
        ByteBuf frame = Wire.message(alloc, 'Q', b -> b.writeBytes(sjis).writeByte(0));
        clientSends(new FrontendMessage.Query(new String(sjis, StandardCharsets.UTF_8), frame));
        List<Sent> toBackend = sentTo(server);
        assertEquals("pgward_refused_abc_1", toBackend.getFirst().cstring(0));
        assertEquals(List.of(), asked, "the text is refused, not judged");

        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("22021", toClient.getFirst().fields().get('C'));
        assertEquals("invalid byte sequence for encoding \"UTF8\": 0x81", toClient.getFirst().fields().get('M'));
    }

    @Test
    void refusesAParseWhoseTextIsNotUtf8AndSkipsToSync() {
        start(request -> completedFuture(Verdict.ALLOW), new PinnedSettings(null, null));
        byte[] sql = {'S', 'E', 'L', 'E', 'C', 'T', ' ', '\'', (byte) 0xe4, (byte) 0xb8, '\''};
        ByteBuf frame = Wire.message(alloc, 'P', b -> {
            Wire.writeCString(b, "s1");
            b.writeBytes(sql).writeByte(0).writeShort(0);
        });
        clientSends(new FrontendMessage.Parse("s1", new String(sql, StandardCharsets.UTF_8), new int[0], frame),
                bind("", "s1"), execute(""), sync());
        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'B', 'E', 'S'), types(toBackend));
        assertEquals("pgward_refused_abc_1", toBackend.getFirst().cstring(1));
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("invalid byte sequence for encoding \"UTF8\": 0xe4 0xb8 0x27",
                toClient.getFirst().fields().get('M'));
    }

    @Test
    void judgesValidUtf8InAPinnedSessionAsUsual() {
        start(request -> completedFuture(Verdict.ALLOW), new PinnedSettings(null, null));
        byte[] sql = {'S', 'E', 'L', 'E', 'C', 'T', ' ', 'E', '\'', (byte) 0xc3, (byte) 0x81, '\\', '\'', '\''};
        ByteBuf frame = Wire.message(alloc, 'Q', b -> b.writeBytes(sql).writeByte(0));
        clientSends(new FrontendMessage.Query(new String(sql, StandardCharsets.UTF_8), frame));
        assertEquals(1, asked.size());
        assertEquals("SELECT E'\u00c1\\''", sentTo(server).getFirst().cstring(0));
    }

    /** Ends one round of a test that starts several sessions. */
    private boolean nothingUnreadAndFinished() {
        boolean left = detachAndFinish(client) | detachAndFinish(server);
        alloc.assertAllReleased();
        return !left;
    }

    // ---------------------------------------------------------------- the gate takes its time, or fails

    @Test
    void holdsLaterMessagesWhileAVerdictIsPendingThenSendsThemInOrder() {
        CompletableFuture<Verdict> slow = new CompletableFuture<>();
        start(request -> request.sql().equals("SELECT slow()") ? slow : completedFuture(Verdict.ALLOW));

        clientSends(query("SELECT slow()"));
        clientSends(parse("", "SELECT 2"), bind("", ""), execute(""), sync());
        assertEquals(List.of(), sentTo(server));
        assertFalse(client.config().isAutoRead(), "the client is not read while the gate decides");
        assertEquals(1, asked.size(), "later statements are judged after this one, in order");

        slow.complete(Verdict.ALLOW);
        client.runPendingTasks();

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('Q', 'P', 'B', 'E', 'S'), types(toBackend));
        assertEquals("SELECT slow()", toBackend.get(0).cstring(0));
        assertEquals("SELECT 2", toBackend.get(1).cstring(1));
        assertEquals(List.of("SELECT slow()", "SELECT 2"), asked.stream().map(GateRequest::sql).toList());
        assertTrue(client.config().isAutoRead());
    }

    @Test
    void refusesWhenAPendingVerdictFailsAndThenSendsTheMessagesItHeld() {
        CompletableFuture<Verdict> slow = new CompletableFuture<>();
        start(request -> request.sql().equals("SELECT slow()") ? slow : completedFuture(Verdict.ALLOW));
        clientSends(query("SELECT slow()"), query("SELECT 2"));
        assertEquals(List.of(), sentTo(server));

        slow.completeExceptionally(new IllegalStateException("catalog unavailable"));
        client.runPendingTasks();

        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of("pgward_refused_abc_1", "SELECT 2"), toBackend.stream().map(s -> s.cstring(0)).toList());
        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals("XX000", toClient.getFirst().fields().get('C'));
        assertEquals("pgward refused this query: the guard could not decide (catalog unavailable)",
                toClient.getFirst().fields().get('M'));
    }

    @Test
    void refusesWhenTheGateThrows() {
        start(request -> {
            throw new IllegalStateException("catalog unavailable");
        });
        clientSends(query("SELECT 1"));
        assertEquals("pgward_refused_abc_1", sentTo(server).getFirst().cstring(0));

        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("XX000", toClient.getFirst().fields().get('C'));
        assertEquals("pgward refused this query: the guard could not decide (catalog unavailable)",
                toClient.getFirst().fields().get('M'));
    }

    @Test
    void refusesWhenTheGateGivesNoVerdict() {
        start(request -> completedFuture(null));
        clientSends(query("SELECT 1"));
        assertEquals("pgward_refused_abc_1", sentTo(server).getFirst().cstring(0));

        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals("XX000", toClient.getFirst().fields().get('C'));
        assertEquals("pgward refused this query: the guard gave no verdict", toClient.getFirst().fields().get('M'));
        assertEquals('Z', toClient.get(1).type());
    }

    // ---------------------------------------------------------------- local answers

    private static final Verdict.Answer WHO_AM_I = new Verdict.Answer(List.of("name", "note"),
            List.of(Arrays.asList("alice", null)), "SELECT 1", List.of("answered by pgward"));

    /** What the client must receive for {@link #WHO_AM_I}: notice, text columns, the row, tag, ReadyForQuery. */
    private static final List<byte[]> WHO_AM_I_ON_THE_WIRE = List.of(
            bytes('N', 0, 0, 0, 48, 'S', "NOTICE", 0, 'V', "NOTICE", 0, 'C', "00000", 0,
                    'M', "answered by pgward", 0, 0),
            bytes('T', 0, 0, 0, 52, 0, 2,
                    "name", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0,
                    "note", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0),
            bytes('D', 0, 0, 0, 19, 0, 2, 0, 0, 0, 5, "alice", 0xff, 0xff, 0xff, 0xff),
            bytes('C', 0, 0, 0, 13, "SELECT 1", 0),
            bytes('Z', 0, 0, 0, 5, 'I'));

    @Test
    void answersASimpleQueryLocallyWithoutTheBackend() {
        start(request -> completedFuture(request.sql().equals("SHOW pgward.me") ? WHO_AM_I : Verdict.ALLOW));
        clientSends(query("SHOW pgward.me"));

        assertEquals(List.of(), sentTo(server));
        assertWire(WHO_AM_I_ON_THE_WIRE, sentTo(client));
    }

    @Test
    void answersLocallyOnlyAfterTheBackendOwesNothingAndAsksTheGateOnce() {
        start(request -> completedFuture(request.sql().equals("SHOW pgward.me") ? WHO_AM_I : Verdict.ALLOW));
        clientSends(query("SELECT 1"), query("SHOW pgward.me"), query("SELECT 3"));
        assertEquals(List.of("SELECT 1"), sentTo(server).stream().map(s -> s.cstring(0)).toList());
        assertEquals(List.of(), sentTo(client), "the answer waits for the backend's ReadyForQuery");

        serverSends(commandComplete("SELECT 1"), readyForQuery('I'));

        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('C', 'Z'), types(toClient.subList(0, 2)));
        assertWire(WHO_AM_I_ON_THE_WIRE, toClient.subList(2, toClient.size()));
        assertEquals(List.of("SELECT 3"), sentTo(server).stream().map(s -> s.cstring(0)).toList());
        assertEquals(List.of("SELECT 1", "SHOW pgward.me", "SELECT 3"),
                asked.stream().map(GateRequest::sql).toList(), "each statement is judged once");
    }

    @Test
    void answersInTheExtendedProtocolByHavingTheBackendPrepareTheAnswerAsAQuery() {
        start(request -> completedFuture(WHO_AM_I));
        clientSends(parse("s1", "SELECT pgward.me($1, $2)"), sync());
        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'S'), types(toBackend));
        assertEquals("s1", toBackend.getFirst().cstring(0), "the client's statement name is kept");
        assertEquals("SELECT * FROM (VALUES (E'alice'::text, NULL::text)) AS pgward_answer(\"name\", \"note\")"
                + " WHERE ($1::text IS NULL OR true) AND ($2::text IS NULL OR true)", toBackend.getFirst().cstring(1));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('N'), types(toClient), "notices go out at once");
        assertEquals("answered by pgward", toClient.getFirst().fields().get('M'));
    }

    // ---------------------------------------------------------------- requests in flight

    private static final StatementGate SEARCH_PATH_GATE = new StatementGate() {
        @Override
        public java.util.concurrent.CompletionStage<Verdict> check(GateRequest request) {
            if (request.sql().startsWith("SET search_path")) {
                return completedFuture(Verdict.ALLOW_CHANGING_SEARCH_PATH);
            }
            return completedFuture(request.sql().equals("SHOW pgward.me") ? WHO_AM_I : REFUSE_DROP.check(request)
                    .toCompletableFuture().join());
        }

        @Override
        public boolean wantsSearchPath() {
            return true;
        }
    };

    /**
     * pgward's SHOW search_path, in the extended protocol under its own statement and portal name so that the
     * client's unnamed ones stay: Close both, Parse, Bind, Execute, Close both, Sync.
     */
    private static final List<String> PROBE = List.of("C S pgward_search_path_abc", "C P pgward_search_path_abc",
            "P pgward_search_path_abc SHOW search_path", "B pgward_search_path_abc pgward_search_path_abc",
            "E pgward_search_path_abc", "C S pgward_search_path_abc", "C P pgward_search_path_abc", "S");

    /** A statement of the client's forwarded as a Query, then pgward's SHOW search_path. */
    private static List<String> queryThenProbe(String sql) {
        List<String> sent = new ArrayList<>(List.of("Q " + sql));
        sent.addAll(PROBE);
        return sent;
    }

    /**
     * The server's reply to pgward's SHOW search_path, as the backend decoder hands it on: the completions of the
     * two Closes, Parse and Bind, one text row (no RowDescription: nothing asked for one), its tag, the two last
     * Closes' completions and ReadyForQuery.
     */
    private void serverShowsSearchPath(String value, char status) {
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        ByteBuf bound = Wire.message(alloc, '2', b -> { });
        ByteBuf row = Wire.message(alloc, 'D', b -> b.writeShort(1).writeInt(v.length).writeBytes(v));
        serverSends(closeCompletes(), parseComplete(),
                new BackendMessage.Run(alloc.compositeBuffer().addComponents(true, bound, row), 1),
                commandComplete("SHOW"), closeCompletes(), readyForQuery(status));
    }

    /** Two CloseCompletes in one run. */
    private BackendMessage.Run closeCompletes() {
        return new BackendMessage.Run(alloc.compositeBuffer().addComponents(true, Wire.message(alloc, '3', b -> { }),
                Wire.message(alloc, '3', b -> { })), 0);
    }

    /** Messages sent to the server as {@code type name...} (the statement name and SQL of a Parse, say). */
    private static List<String> described(List<Sent> sent) {
        return sent.stream().map(m -> switch (m.type()) {
            case 'Q' -> "Q " + m.cstring(0);
            case 'P', 'B' -> m.type() + " " + m.cstring(0) + " " + m.cstring(1);
            case 'E' -> "E " + m.cstring(0);
            case 'C', 'D' -> m.type() + " " + (char) m.bytes()[5] + " " + new String(m.bytes(), 6,
                    m.bytes().length - 7, StandardCharsets.UTF_8);
            default -> String.valueOf(m.type());
        }).toList();
    }

    @Test
    void asksForTheSearchPathAfterASetAndJudgesTheNextStatementWithWhatTheServerShows() {
        start(SEARCH_PATH_GATE);
        assertEquals(PROBE, described(sentTo(server)));
        serverShowsSearchPath("\"$user\", public", 'I');
        assertEquals(List.of(), sentTo(client), "pgward's own SHOW is never relayed");

        clientSends(query("SET search_path = hr"), query("DROP TABLE t"));
        assertEquals(queryThenProbe("SET search_path = hr"), described(sentTo(server)),
                "the DROP waits for the answer");
        serverSends(commandComplete("SET"), readyForQuery('I'));
        assertEquals(List.of('C', 'Z'), types(sentTo(client)));
        assertEquals(List.of(), sentTo(server));

        serverShowsSearchPath("hr", 'I');
        assertEquals(List.of(), sentTo(client));
        assertEquals("pgward_refused_abc_1", sentTo(server).getFirst().cstring(0));
        assertEquals("hr", asked.getLast().searchPath());
        answerTheRefusalAndReadIt("pgward_refused_abc_1");
    }

    @Test
    void keepsTheLastPathWhenTheProbeFailsInAnAbortedTransactionAndRelaysNothingOfIt() {
        start(SEARCH_PATH_GATE);
        sentTo(server);
        serverShowsSearchPath("public", 'I');
        String aborted = "current transaction is aborted, commands ignored until end of transaction block";
        clientSends(query("BEGIN"), query("SELECT 1/0"));
        sentTo(server);
        serverSends(commandComplete("BEGIN"), readyForQuery('T'), errorResponse("22012", "division by zero"),
                readyForQuery('E'));
        assertEquals(List.of('C', 'Z', 'E', 'Z'), types(sentTo(client)));

        clientSends(query("SET search_path = hr"), query("SELECT 1"));
        assertEquals(queryThenProbe("SET search_path = hr"), described(sentTo(server)));
        serverSends(errorResponse("25P02", aborted), readyForQuery('E'));
        assertEquals(List.of('E', 'Z'), types(sentTo(client)));
        // The Closes pass in a failed block, the Parse fails, and the server skips the rest up to the Sync.
        serverSends(closeCompletes(), errorResponse("25P02", aborted), readyForQuery('E'));
        assertEquals(List.of(), sentTo(client), "the probe's error is pgward's own");
        assertEquals(List.of("Q SELECT 1"), described(sentTo(server)));
        assertEquals("public", asked.getLast().searchPath(), "the failed SET changed nothing");
        serverSends(errorResponse("25P02", aborted), readyForQuery('E'));
        assertEquals(List.of('E', 'Z'), types(sentTo(client)));
    }

    @Test
    void asksAgainWhenACancelHitsTheProbeAndNeverJudgesWithThePathFromBefore() {
        start(SEARCH_PATH_GATE);
        sentTo(server);
        serverShowsSearchPath("public", 'I');
        clientSends(query("SET search_path = hr"), query("DROP TABLE t"));
        assertEquals(queryThenProbe("SET search_path = hr"), described(sentTo(server)));
        serverSends(commandComplete("SET"), readyForQuery('I'));
        sentTo(client);
        serverSends(closeCompletes(), errorResponse("57014", "canceling statement due to user request"),
                readyForQuery('I'));
        assertEquals(List.of(), sentTo(client), "the probe's error is pgward's own");
        assertEquals(PROBE, described(sentTo(server)), "asked again, the DROP still waiting");
        serverShowsSearchPath("hr", 'I');
        assertEquals("pgward_refused_abc_1", sentTo(server).getFirst().cstring(0));
        assertEquals("hr", asked.getLast().searchPath());
    }

    @Test
    void leavesThePathUnknownWhenEveryProbeFailsAndAsksAgainAfterTheNextRequest() {
        start(SEARCH_PATH_GATE);
        sentTo(server);
        serverShowsSearchPath("public", 'I');
        clientSends(query("SET search_path = hr"), query("DROP TABLE t"));
        sentTo(server);
        serverSends(commandComplete("SET"), readyForQuery('I'));
        sentTo(client);
        for (int attempt = 0; attempt < SearchPath.PROBE_ATTEMPTS; attempt++) {
            serverSends(closeCompletes(), errorResponse("57014", "canceling statement due to statement timeout"),
                    readyForQuery('I'));
        }
        assertEquals(null, asked.getLast().searchPath(), "judged knowing no path, never with public");
        List<String> expected = new ArrayList<>(PROBE);
        expected.addAll(PROBE);
        expected.addAll(queryThenProbe("pgward_refused_abc_1"));
        assertEquals(expected, described(sentTo(server)),
                "two more probes, then the DROP's refusal, and a probe again behind its request");
        answerTheRefusalAndReadIt("pgward_refused_abc_1");
        serverShowsSearchPath("hr", 'I');
        clientSends(query("DROP TABLE u"));
        assertEquals("hr", asked.getLast().searchPath());
        assertEquals("pgward_refused_abc_2", sentTo(server).getFirst().cstring(0));
        answerTheRefusalAndReadIt("pgward_refused_abc_2");
    }

    @Test
    void matchesARefusalToItsOwnRequestBehindPipelinedRequestsAndAProbe() {
        start(SEARCH_PATH_GATE);
        sentTo(server);
        serverShowsSearchPath("public", 'I');

        clientSends(parse("", "SELECT 1"), bind("", ""), execute(""), sync(), query("SET search_path = hr"));
        clientSends(parse("s1", "DROP TABLE t"), sync());
        List<String> sent = new ArrayList<>(List.of("P  SELECT 1", "B  ", "E ", "S"));
        sent.addAll(queryThenProbe("SET search_path = hr"));
        assertEquals(sent, described(sentTo(server)), "the Parse waits for the answer");

        serverSends(commandComplete("SELECT 1"), readyForQuery('I'), commandComplete("SET"), readyForQuery('I'));
        assertEquals(List.of('C', 'Z', 'C', 'Z'), types(sentTo(client)));
        serverShowsSearchPath("hr", 'I');
        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of('P', 'S'), types(toBackend));
        assertEquals("pgward_refused_abc_1", toBackend.getFirst().cstring(1));
        answerTheRefusalAndReadIt("pgward_refused_abc_1");
    }

    @Test
    void answersLocallyAfterTheProbeThatPrecedesIt() {
        start(SEARCH_PATH_GATE);
        sentTo(server);
        serverShowsSearchPath("public", 'I');

        clientSends(query("SET search_path = hr"), query("SHOW pgward.me"));
        assertEquals(queryThenProbe("SET search_path = hr"), described(sentTo(server)));
        serverSends(commandComplete("SET"), readyForQuery('I'));
        assertEquals(List.of('C', 'Z'), types(sentTo(client)));
        serverShowsSearchPath("hr", 'I');
        assertWire(WHO_AM_I_ON_THE_WIRE, sentTo(client));
        assertEquals(List.of(), sentTo(server));
    }

    @Test
    void handsTheBackendToResetOnlyWhenItOwesNothing() {
        start(REFUSE_DROP);
        clientSends(query("SELECT pg_sleep(10)"));
        sentTo(server);
        clientSends(terminate());
        assertEquals(List.of(), sentTo(server), "a busy backend is cancelled and closed, not reset");
        assertNull(server.pipeline().get("reset"));
        assertEquals(1, ends);
    }

    // ---------------------------------------------------------------- the row cap

    /** RowDescription of one text column n, then {@code n} DataRows, as one run. */
    private BackendMessage.Run rows(int n) {
        ByteBuf run = alloc.buffer();
        run.writeBytes(bytes('T', 0, 0, 0, 26, 0, 1, "n", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25,
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0));
        for (int i = 0; i < n; i++) {
            run.writeBytes(bytes('D', 0, 0, 0, 11, 0, 1, 0, 0, 0, 1, "1"));
        }
        return new BackendMessage.Run(run, n);
    }

    /** Lets the row cap's cancel (which cannot connect here) report itself delivered. */
    private void cancelDelivered() {
        client.runPendingTasks();
        server.runPendingTasks();
    }

    @Test
    void cutsAResultAtTheCapAndReplacesTheCancelsErrorWithTheCapError() {
        start(REFUSE_DROP, null, 2);
        clientSends(query("SELECT n FROM big"));
        sentTo(server);
        serverSends(rows(3));
        assertEquals(List.of('T', 'D', 'D'), types(sentTo(client)));
        clientSends(query("SELECT 2"));

        serverSends(errorResponse("57014", "canceling statement due to user request"), readyForQuery('I'));
        cancelDelivered();
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("54000", toClient.getFirst().fields().get('C'));
        assertEquals(List.of("SELECT 2"), sentTo(server).stream().map(s -> s.cstring(0)).toList(),
                "the client's next statement goes once the cap has settled");
        serverSends(rows(2), commandComplete("SELECT 2"), readyForQuery('I'));
        assertEquals(List.of('T', 'D', 'D', 'C', 'Z'), types(sentTo(client)), "the next result is counted anew");
    }

    @Test
    void abortsTheTransactionOfAStatementThatCompletedBeforeItsCancel() {
        start(REFUSE_DROP, null, 2);
        clientSends(query("BEGIN"));
        sentTo(server);
        serverSends(commandComplete("BEGIN"), readyForQuery('T'));
        sentTo(client);

        clientSends(query("SELECT n FROM big; SELECT 1"));
        sentTo(server);
        serverSends(rows(3), commandComplete("SELECT 3"), rows(1), commandComplete("SELECT 1"), readyForQuery('T'));
        cancelDelivered();
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('T', 'D', 'D', 'E'), types(toClient), "the rest of the Query is not seen");
        assertEquals("54000", toClient.getLast().fields().get('C'));
        List<Sent> toBackend = sentTo(server);
        assertEquals(List.of("P pgward_refused_abc_1 pgward_refused_abc_1", "S"), described(toBackend),
                "a statement that fails aborts the transaction in place of the held ReadyForQuery");

        serverSends(errorResponse("42601", "syntax error at or near \"pgward_refused_abc_1\""), readyForQuery('E'));
        toClient = sentTo(client);
        assertEquals(List.of('Z'), types(toClient), "the abort's error is pgward's own");
        assertArrayEquals(new byte[] {'Z', 0, 0, 0, 5, 'E'}, toClient.getFirst().bytes());
        assertEquals('E', backend.transactionStatus());
    }

    @Test
    void answersLocallyOnlyAfterACappedResultHasSettled() {
        start(request -> completedFuture(request.sql().equals("SHOW pgward.me") ? WHO_AM_I : Verdict.ALLOW),
                null, 2);
        clientSends(query("SELECT n FROM big"), query("SHOW pgward.me"));
        sentTo(server);
        serverSends(rows(3), commandComplete("SELECT 3"), readyForQuery('I'));
        cancelDelivered();
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('T', 'D', 'D', 'E', 'Z'), types(toClient.subList(0, 5)));
        assertWire(WHO_AM_I_ON_THE_WIRE, toClient.subList(5, toClient.size()));
        assertEquals(List.of(), sentTo(server));
    }

    // ---------------------------------------------------------------- the end

    @Test
    void handsTheBackendToResetWhenTheClientTerminates() {
        start(REFUSE_DROP);
        clientSends(terminate());

        assertResetStarted(sentTo(server));
        assertFalse(client.isOpen());
        assertEquals(1, ends);
        assertNull(server.pipeline().get("session"));
        assertNotNull(server.pipeline().get("reset"));
    }

    @Test
    void rollsBackAnOpenTransactionBeforeDiscardAll() {
        start(REFUSE_DROP);
        clientSends(query("BEGIN"));
        sentTo(server);
        serverSends(commandComplete("BEGIN"), readyForQuery('T'));
        sentTo(client);

        clientSends(terminate());
        String marker = assertResetStarted(sentTo(server));
        serverSends(readyForQuery('T'), commandComplete("ROLLBACK"), readyForQuery('I'),
                dataRow(marker), commandComplete("SELECT 1"),
                readyForQuery('I'));
        assertArrayEquals(bytes('Q', 0, 0, 0, 16, "DISCARD ALL", 0), sentTo(server).getFirst().bytes());
        assertEquals(List.of(), sentTo(client), "the client is gone");
    }

    @Test
    void closesTheClientOnAnAuthenticationMessageMidSession() {
        start(REFUSE_DROP);
        clientSends(new FrontendMessage.AuthenticationResponse(Messages.authenticationResponse(alloc,
                new byte[] {'x', 0})));

        List<Sent> toClient = sentTo(client);
        assertEquals(1, toClient.size());
        assertEquals(Map.of('S', "FATAL", 'V', "FATAL", 'C', "08P01", 'M', "invalid frontend message type 112"),
                toClient.getFirst().fields());
        assertFalse(client.isOpen());
        assertResetStarted(sentTo(server));
        assertEquals(1, ends);
    }

    // ---------------------------------------------------------------- the scripted doubles

    /** The reset's first write (CopyFail, Sync, ROLLBACK, SELECT of its marker); returns the marker. */
    private static String assertResetStarted(List<Sent> toBackend) {
        assertEquals(List.of('f', 'S', 'Q', 'Q'), types(toBackend));
        assertEquals("ROLLBACK", toBackend.get(2).cstring(0));
        String select = toBackend.get(3).cstring(0);
        assertTrue(select.matches("SELECT 'pgward_reset_[0-9a-f]{16}'"), select);
        return select.substring("SELECT '".length(), select.length() - 1);
    }

    private void clientSends(FrontendMessage... messages) {
        client.writeInbound((Object[]) messages);
    }

    private void serverSends(BackendMessage... messages) {
        server.writeInbound((Object[]) messages);
    }

    private FrontendMessage.Query query(String sql) {
        return new FrontendMessage.Query(sql, Messages.query(alloc, sql));
    }

    private FrontendMessage.Parse parse(String statement, String sql) {
        return new FrontendMessage.Parse(statement, sql, new int[0], Messages.parse(alloc, statement, sql));
    }

    /** Bind without parameters or result formats. */
    private FrontendMessage.Bind bind(String portal, String statement) {
        return new FrontendMessage.Bind(portal, statement, Wire.message(alloc, 'B', b -> {
            Wire.writeCString(b, portal);
            Wire.writeCString(b, statement);
            b.writeShort(0).writeShort(0).writeShort(0);
        }));
    }

    /** Bind with one parameter in text format, no result formats. */
    private FrontendMessage.Bind bind(String portal, String statement, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return new FrontendMessage.Bind(portal, statement, Wire.message(alloc, 'B', b -> {
            Wire.writeCString(b, portal);
            Wire.writeCString(b, statement);
            b.writeShort(0).writeShort(1).writeInt(bytes.length).writeBytes(bytes).writeShort(0);
        }));
    }

    /** A message of {@code type} whose body is {@code body} (as {@link WireBytes#bytes}) and could not be read. */
    private FrontendMessage.Malformed malformed(char type, String error, Object... body) {
        return new FrontendMessage.Malformed(type, error, Wire.message(alloc, type, b -> b.writeBytes(bytes(body))));
    }

    private BackendMessage.Frame parseComplete() {
        return new BackendMessage.Frame('1', Wire.message(alloc, '1', b -> { }));
    }

    private BackendMessage.Frame closeComplete() {
        return new BackendMessage.Frame('3', Wire.message(alloc, '3', b -> { }));
    }

    private FrontendMessage.Close close(char kind, String name) {
        return new FrontendMessage.Close(kind, name, Wire.message(alloc, 'C', b -> {
            b.writeByte(kind);
            Wire.writeCString(b, name);
        }));
    }

    private BackendMessage.Run bindComplete() {
        return new BackendMessage.Run(Wire.message(alloc, '2', b -> { }), 0);
    }

    private FrontendMessage.Execute execute(String portal) {
        return new FrontendMessage.Execute(portal, 0, Wire.message(alloc, 'E', b -> {
            Wire.writeCString(b, portal);
            b.writeInt(0);
        }));
    }

    private FrontendMessage.Sync sync() {
        return new FrontendMessage.Sync(Wire.message(alloc, 'S', b -> { }));
    }

    private FrontendMessage.Terminate terminate() {
        return new FrontendMessage.Terminate(Messages.terminate(alloc));
    }

    private FrontendMessage.FunctionCall functionCall(int oid) {
        return new FrontendMessage.FunctionCall(oid, Wire.message(alloc, 'F', b -> b.writeInt(oid)
                .writeShort(0).writeShort(0).writeShort(0)));
    }

    private BackendMessage.Frame readyForQuery(char status) {
        return new BackendMessage.Frame('Z', Messages.readyForQuery(alloc, status));
    }

    private BackendMessage.Frame errorResponse(String sqlState, String message) {
        return new BackendMessage.Frame('E', new PgError("ERROR", sqlState, message, null, null, 1).encode(alloc));
    }

    /** A run of one DataRow with one text column. */
    private BackendMessage.Run dataRow(String value) {
        byte[] text = value.getBytes(StandardCharsets.UTF_8);
        return new BackendMessage.Run(Wire.message(alloc, 'D', b -> b.writeShort(1).writeInt(text.length)
                .writeBytes(text)), 1);
    }

    private BackendMessage.Frame commandComplete(String tag) {
        return new BackendMessage.Frame('C', Wire.message(alloc, 'C', b -> Wire.writeCString(b, tag)));
    }

    /** Sends the backend's syntax error for {@code token} and ReadyForQuery, and reads the client's side. */
    private void answerTheRefusalAndReadIt(String token) {
        serverSends(errorResponse("42601", "syntax error at or near \"" + token + "\""), readyForQuery('I'));
        List<Sent> toClient = sentTo(client);
        assertEquals(List.of('E', 'Z'), types(toClient));
        assertEquals("42501", toClient.getFirst().fields().get('C'));
    }

    /** One protocol message pgward flushed to a peer, copied out of the buffer it was written in. */
    private record Sent(char type, byte[] bytes) {

        /** The {@code index}-th NUL-terminated string of the body. */
        String cstring(int index) {
            ByteBuf body = Unpooled.wrappedBuffer(bytes, 5, bytes.length - 5);
            String text = null;
            for (int i = 0; i <= index; i++) {
                text = Wire.readCString(body);
            }
            return text;
        }

        Map<Character, String> fields() {
            return PgError.fields(Unpooled.wrappedBuffer(bytes, 5, bytes.length - 5));
        }
    }

    /** Everything flushed to {@code channel} since the last call, split into messages; the buffers are released. */
    private static List<Sent> sentTo(EmbeddedChannel channel) {
        List<Sent> sent = new ArrayList<>();
        for (ByteBuf buf; (buf = channel.readOutbound()) != null; ) {
            try {
                while (buf.isReadable()) {
                    byte[] message = new byte[buf.getInt(buf.readerIndex() + 1) + 1];
                    buf.readBytes(message);
                    sent.add(new Sent((char) message[0], message));
                }
            } finally {
                buf.release();
            }
        }
        return sent;
    }

    private static List<Character> types(List<Sent> sent) {
        return sent.stream().map(Sent::type).toList();
    }

    private static void assertNeverContains(String text, List<Sent> sent) {
        for (Sent s : sent) {
            if (new String(s.bytes(), StandardCharsets.UTF_8).contains(text)) {
                fail("\"" + text + "\" was sent:\n" + ByteBufUtil.prettyHexDump(Unpooled.wrappedBuffer(s.bytes())));
            }
        }
    }

    private static void assertWire(List<byte[]> expected, List<Sent> sent) {
        assertEquals(expected.size(), sent.size(), () -> "messages: " + types(sent));
        for (int i = 0; i < expected.size(); i++) {
            assertBytes(expected.get(i), Unpooled.wrappedBuffer(sent.get(i).bytes()));
        }
    }
}
