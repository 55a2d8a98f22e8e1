package io.pgward.wire.codec;

import static io.pgward.wire.codec.StartupDecoderTest.closeAfterViolation;
import static io.pgward.wire.protocol.WireBytes.assertBytes;
import static io.pgward.wire.protocol.WireBytes.bytes;
import static io.pgward.wire.protocol.WireBytes.int32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.TrackingAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Client messages after startup: {@code byte type | int32 len | body}, each kept as the frame that arrived. */
class FrontendDecoderTest {

    /** Query "SELECT 'é'": the length counts UTF-8 bytes, é is two. */
    private static final byte[] QUERY = bytes('Q', 0, 0, 0, 16, "SELECT 'é'", 0);
    /** Parse statement "s1" with two parameters, int4 (23) and unspecified (0). */
    private static final byte[] PARSE = bytes('P', 0, 0, 0, 37, "s1", 0, "SELECT $1::int4, $2", 0,
            0, 2, 0, 0, 0, 23, 0, 0, 0, 0);
    /** Bind portal "p1" to "s1": no parameter formats, one text value "7", no result formats. */
    private static final byte[] BIND = bytes('B', 0, 0, 0, 21, "p1", 0, "s1", 0, 0, 0, 0, 1, 0, 0, 0, 1, "7", 0, 0);
    private static final byte[] DESCRIBE_STATEMENT = bytes('D', 0, 0, 0, 8, 'S', "s1", 0);
    private static final byte[] DESCRIBE_PORTAL = bytes('D', 0, 0, 0, 6, 'P', 0);
    /** Execute portal "p1", at most 100 rows. */
    private static final byte[] EXECUTE = bytes('E', 0, 0, 0, 11, "p1", 0, 0, 0, 0, 100);
    private static final byte[] CLOSE_PORTAL = bytes('C', 0, 0, 0, 8, 'P', "p1", 0);
    private static final byte[] CLOSE_STATEMENT = bytes('C', 0, 0, 0, 6, 'S', 0);
    private static final byte[] SYNC = bytes('S', 0, 0, 0, 4);
    private static final byte[] FLUSH = bytes('H', 0, 0, 0, 4);
    private static final byte[] TERMINATE = bytes('X', 0, 0, 0, 4);
    /** FunctionCall of OID 1598 (random()): no argument formats, no arguments, text result. */
    private static final byte[] FUNCTION_CALL = bytes('F', 0, 0, 0, 14, 0, 0, 0x06, 0x3e, 0, 0, 0, 0, 0, 0);
    private static final byte[] PASSWORD = bytes('p', 0, 0, 0, 11, "secret", 0);
    private static final byte[] COPY_DATA = bytes('d', 0, 0, 0, 8, "1\tx\n");
    private static final byte[] COPY_DONE = bytes('c', 0, 0, 0, 4);
    private static final byte[] COPY_FAIL = bytes('f', 0, 0, 0, 12, "aborted", 0);

    private final TrackingAllocator alloc = new TrackingAllocator();
    private FrontendDecoder decoder;
    private EmbeddedChannel channel;

    @BeforeEach
    void openChannel() {
        decoder = new FrontendDecoder();
        channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.pipeline().addLast("frontend-decoder", decoder);
    }

    @AfterEach
    void everyBufferReleased() {
        alloc.assertAllReleased();
    }

    static Stream<Arguments> everyMessage() {
        return Stream.of(
                Arguments.of("Query", QUERY, FrontendMessage.Query.class),
                Arguments.of("Parse", PARSE, FrontendMessage.Parse.class),
                Arguments.of("Bind", BIND, FrontendMessage.Bind.class),
                Arguments.of("Describe", DESCRIBE_STATEMENT, FrontendMessage.Describe.class),
                Arguments.of("Execute", EXECUTE, FrontendMessage.Execute.class),
                Arguments.of("Close", CLOSE_PORTAL, FrontendMessage.Close.class),
                Arguments.of("Sync", SYNC, FrontendMessage.Sync.class),
                Arguments.of("Flush", FLUSH, FrontendMessage.Flush.class),
                Arguments.of("Terminate", TERMINATE, FrontendMessage.Terminate.class),
                Arguments.of("FunctionCall", FUNCTION_CALL, FrontendMessage.FunctionCall.class),
                Arguments.of("PasswordMessage", PASSWORD, FrontendMessage.AuthenticationResponse.class),
                Arguments.of("CopyData", COPY_DATA, FrontendMessage.Copy.class),
                Arguments.of("CopyDone", COPY_DONE, FrontendMessage.Copy.class),
                Arguments.of("CopyFail", COPY_FAIL, FrontendMessage.Copy.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyMessage")
    void keepsTheFrameExactlyAsItArrived(String name, byte[] golden, Class<? extends FrontendMessage> type) {
        FrontendMessage m = decodeWhole(golden);
        assertInstanceOf(type, m);
        assertBytes(golden, m.frame());
        assertTrue(m.release(), "the message holds the only reference to its frame");
        assertFalse(channel.finish());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyMessage")
    void decodesEveryMessageFedOneByteAtATime(String name, byte[] golden, Class<? extends FrontendMessage> type) {
        decoder.authenticated();
        List<ByteBuf> reads = alloc.oneByteEach(golden);
        for (int i = 0; i < reads.size() - 1; i++) {
            assertFalse(channel.writeInbound(reads.get(i)), "decoded after " + (i + 1) + " bytes");
        }
        assertTrue(channel.writeInbound(reads.getLast()));
        FrontendMessage m = assertInstanceOf(type, channel.readInbound());
        assertBytes(golden, m.frame());
        m.release();
        assertNull(channel.readInbound());
        assertFalse(channel.finish());
    }

    @Test
    void decodesQueryText() {
        FrontendMessage.Query q = assertInstanceOf(FrontendMessage.Query.class, decodeWhole(QUERY));
        assertEquals("SELECT 'é'", q.sql());
        q.release();
        assertFalse(channel.finish());
    }

    @Test
    void decodesParseWithItsParameterTypes() {
        FrontendMessage.Parse p = assertInstanceOf(FrontendMessage.Parse.class, decodeWhole(PARSE));
        assertEquals("s1", p.statement());
        assertEquals("SELECT $1::int4, $2", p.sql());
        assertArrayEquals(new int[] {23, 0}, p.parameterTypes());
        p.release();
        assertFalse(channel.finish());
    }

    @Test
    void decodesParseWithoutParameterTypes() {
        FrontendMessage.Parse p = assertInstanceOf(FrontendMessage.Parse.class,
                decodeWhole(bytes('P', 0, 0, 0, 16, 0, "SELECT 1", 0, 0, 0)));
        assertEquals("", p.statement());
        assertArrayEquals(new int[0], p.parameterTypes());
        p.release();
        assertFalse(channel.finish());
    }

    @Test
    void decodesParseWithMoreThan32767ParameterTypes() {
        // PostgreSQL reads the count as unsigned 16 bits: 32,768 to 65,535 types are valid.
        for (int count : new int[] {32_768, 65_535}) {
            decoder.authenticated();
            ByteBuf frame = alloc.buffer();
            frame.writeByte('P').writeInt(4 + 1 + 10 + 2 + 4 * count).writeByte(0)
                    .writeBytes("SELECT $1".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).writeByte(0)
                    .writeShort(count);
            for (int i = 0; i < count; i++) {
                frame.writeInt(i == count - 1 ? 23 : 0);
            }
            assertTrue(channel.writeInbound(frame));
            FrontendMessage.Parse p = assertInstanceOf(FrontendMessage.Parse.class, channel.readInbound());
            assertEquals(count, p.parameterTypes().length);
            assertEquals(23, p.parameterTypes()[count - 1]);
            p.release();
        }
        assertFalse(channel.finish());
    }

    @Test
    void decodesBindPortalAndStatement() {
        FrontendMessage.Bind b = assertInstanceOf(FrontendMessage.Bind.class, decodeWhole(BIND));
        assertEquals("p1", b.portal());
        assertEquals("s1", b.statement());
        b.release();
        assertFalse(channel.finish());
    }

    @Test
    void decodesDescribeOfAStatementAndOfAPortal() {
        FrontendMessage.Describe statement = assertInstanceOf(FrontendMessage.Describe.class,
                decodeWhole(DESCRIBE_STATEMENT));
        assertEquals('S', statement.kind());
        assertEquals("s1", statement.name());
        statement.release();
        FrontendMessage.Describe portal = assertInstanceOf(FrontendMessage.Describe.class,
                decodeWhole(DESCRIBE_PORTAL));
        assertEquals('P', portal.kind());
        assertEquals("", portal.name());
        portal.release();
        assertFalse(channel.finish());
    }

    @Test
    void decodesExecuteWithItsRowLimit() {
        FrontendMessage.Execute e = assertInstanceOf(FrontendMessage.Execute.class, decodeWhole(EXECUTE));
        assertEquals("p1", e.portal());
        assertEquals(100, e.maxRows());
        e.release();
        assertFalse(channel.finish());
    }

    @Test
    void decodesCloseOfAPortalAndOfAStatement() {
        FrontendMessage.Close portal = assertInstanceOf(FrontendMessage.Close.class, decodeWhole(CLOSE_PORTAL));
        assertEquals('P', portal.kind());
        assertEquals("p1", portal.name());
        portal.release();
        FrontendMessage.Close statement = assertInstanceOf(FrontendMessage.Close.class,
                decodeWhole(CLOSE_STATEMENT));
        assertEquals('S', statement.kind());
        assertEquals("", statement.name());
        statement.release();
        assertFalse(channel.finish());
    }

    @Test
    void decodesFunctionCallOid() {
        FrontendMessage.FunctionCall f = assertInstanceOf(FrontendMessage.FunctionCall.class,
                decodeWhole(FUNCTION_CALL));
        assertEquals(1598, f.functionOid());
        f.release();
        assertFalse(channel.finish());
    }

    @Test
    void givesTheAuthenticationResponseBodyAfterTheLength() {
        FrontendMessage.AuthenticationResponse p = assertInstanceOf(FrontendMessage.AuthenticationResponse.class,
                decodeWhole(PASSWORD));
        assertBytes(bytes("secret", 0), p.body());
        p.release();
        assertFalse(channel.finish());
    }

    @Test
    void tellsCopyMessagesApartByType() {
        assertEquals('d', copy(COPY_DATA));
        assertEquals('c', copy(COPY_DONE));
        assertEquals('f', copy(COPY_FAIL));
        assertFalse(channel.finish());
    }

    private char copy(byte[] golden) {
        FrontendMessage.Copy c = assertInstanceOf(FrontendMessage.Copy.class, decodeWhole(golden));
        c.release();
        return c.type();
    }

    @Test
    void decodesSeveralMessagesFromOneBufferInOrder() {
        decoder.authenticated();
        assertTrue(channel.writeInbound(alloc.copyOf(bytes(PARSE, BIND, DESCRIBE_PORTAL, EXECUTE, SYNC))));
        List<byte[]> expected = List.of(PARSE, BIND, DESCRIBE_PORTAL, EXECUTE, SYNC);
        for (byte[] golden : expected) {
            FrontendMessage m = channel.readInbound();
            assertBytes(golden, m.frame());
            m.release();
        }
        assertNull(channel.readInbound());
        assertFalse(channel.finish());
    }

    @Test
    void keepsAPartialMessageUntilItsRestArrives() {
        decoder.authenticated();
        byte[] input = bytes(QUERY, SYNC);
        int split = QUERY.length + 2;
        assertTrue(channel.writeInbound(alloc.copyOf(Arrays.copyOfRange(input, 0, split))));
        FrontendMessage.Query q = assertInstanceOf(FrontendMessage.Query.class, channel.readInbound());
        assertNull(channel.readInbound());
        assertTrue(channel.writeInbound(alloc.copyOf(Arrays.copyOfRange(input, split, input.length))));
        FrontendMessage.Sync s = assertInstanceOf(FrontendMessage.Sync.class, channel.readInbound());
        assertBytes(QUERY, q.frame());
        assertBytes(SYNC, s.frame());
        q.release();
        s.release();
        assertFalse(channel.finish());
    }

    @Test
    void framesShareTheInputRatherThanCopyingIt() {
        // Allowed messages are forwarded as the bytes that arrived: the frame is a slice of the input.
        ByteBuf input = alloc.copyOf(bytes(QUERY, SYNC)).retain();
        channel.writeInbound(input);
        FrontendMessage q = channel.readInbound();
        FrontendMessage s = channel.readInbound();
        input.setByte(QUERY.length - 2, '!');
        assertEquals('!', q.frame().getByte(QUERY.length - 2));
        q.release();
        s.release();
        input.release();
        assertFalse(channel.finish());
    }

    // ---------------------------------------------------------------- limits

    @ParameterizedTest
    @ValueSource(chars = {'Q', 'P', 'B', 'F', 'd', 'f', 'p', 'D', 'E', 'C', 'S', 'H', 'X', 'c'})
    void acceptsTenThousandBytesBeforeAuthentication(char type) {
        assertAcceptedLength(type, 10_000, false);
    }

    @ParameterizedTest
    @ValueSource(chars = {'Q', 'P', 'B', 'F', 'd', 'f', 'p', 'D', 'E', 'C', 'S', 'H', 'X', 'c'})
    void rejectsMoreThanTenThousandBytesBeforeAuthentication(char type) {
        assertViolation("invalid message length", bytes(type, int32(10_001)));
    }

    @ParameterizedTest
    @ValueSource(chars = {'Q', 'P', 'B', 'F', 'd', 'f', 'p'})
    void acceptsUpToOneGibibyteForSqlParametersAndCopyDataAfterAuthentication(char type) {
        assertAcceptedLength(type, 10_001, true);
        assertAcceptedLength(type, (1 << 30) - 1, true);
    }

    @ParameterizedTest
    @ValueSource(chars = {'Q', 'P', 'B', 'F', 'd', 'f', 'p'})
    void rejectsOneGibibyteForSqlParametersAndCopyDataAfterAuthentication(char type) {
        decoder.authenticated();
        assertViolation("invalid message length", bytes(type, int32(1 << 30)));
    }

    @ParameterizedTest
    @ValueSource(chars = {'D', 'E', 'C', 'S', 'H', 'X', 'c'})
    void keepsTheTenThousandByteLimitForNamesOnlyMessagesAfterAuthentication(char type) {
        assertAcceptedLength(type, 10_000, true);
        decoder.authenticated();
        assertViolation("invalid message length", bytes(type, int32(10_001)));
    }

    /**
     * Only the header arrives, on a channel of its own: a length within the limit is simply waited for, with
     * nothing decoded and nothing left over when the channel closes.
     */
    private void assertAcceptedLength(char type, int length, boolean authenticated) {
        FrontendDecoder fresh = new FrontendDecoder();
        if (authenticated) {
            fresh.authenticated();
        }
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(fresh);
        assertFalse(ch.writeInbound(alloc.copyOf(bytes(type, int32(length)))), length + " bytes");
        assertFalse(ch.finish());
    }

    // ---------------------------------------------------------------- violations

    @Test
    void rejectsAnUnknownTypeOnceTheMessageIsCompleteBeforeAuthentication() {
        // 'Z' is a backend type; a client must never send it.
        assertFalse(channel.writeInbound(alloc.copyOf(bytes('Z', 0, 0, 0, 5))));
        assertViolation("invalid frontend message type 90", bytes('I'));
    }

    @Test
    void rejectsAnUnknownTypeFromItsHeaderAfterAuthentication() {
        decoder.authenticated();
        assertViolation("invalid frontend message type 200", bytes(200, 0, 0, 0, 4));
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 0, -1})
    void rejectsALengthBelowFour(int length) {
        decoder.authenticated();
        assertViolation("invalid message length", bytes('Q', int32(length)));
    }

    @Test
    void passesOnTheMessagesThatPrecedeAViolation() {
        decoder.authenticated();
        DecoderException e = assertThrows(DecoderException.class,
                () -> channel.writeInbound(alloc.copyOf(bytes(SYNC, 'Y', 0, 0, 0, 5, 'X'))));
        assertEquals("invalid frontend message type 89", e.getCause().getMessage());
        FrontendMessage.Sync s = assertInstanceOf(FrontendMessage.Sync.class, channel.readInbound());
        s.release();
        closeAfterViolation(channel);
    }

    // ---------------------------------------------------------------- malformed bodies

    /**
     * Framed correctly, but the body does not read as the type's layout: PostgreSQL's error for each, read in its
     * order (pq_getmsgbyte, pq_getmsgstring, pq_getmsgint, pq_getmsgend, then the kind of a Describe or Close).
     */
    static Stream<Arguments> malformedBodies() {
        return Stream.of(
                Arguments.of("Describe of kind X", bytes('D', 0, 0, 0, 9, 'X', "foo", 0),
                        "invalid DESCRIBE message subtype 88"),
                Arguments.of("Close of kind X", bytes('C', 0, 0, 0, 9, 'X', "foo", 0),
                        "invalid CLOSE message subtype 88"),
                Arguments.of("Close of kind s", bytes('C', 0, 0, 0, 8, 's', "s1", 0),
                        "invalid CLOSE message subtype 115"),
                Arguments.of("Describe of a kind above 127, read unsigned", bytes('D', 0, 0, 0, 6, 0xc8, 0),
                        "invalid DESCRIBE message subtype 200"),
                Arguments.of("Describe without kind", bytes('D', 0, 0, 0, 4), "no data left in message"),
                Arguments.of("Describe whose name has no terminator", bytes('D', 0, 0, 0, 7, 'X', "s1"),
                        "invalid string in message"),
                Arguments.of("Describe with bytes after its name", bytes('D', 0, 0, 0, 9, 'S', "s1", 0, 1),
                        "invalid message format"),
                Arguments.of("Close of kind X with bytes after its name", bytes('C', 0, 0, 0, 9, 'X', "s1", 0, 1),
                        "invalid message format"),
                Arguments.of("Execute with a two-byte body", bytes('E', 0, 0, 0, 6, 0, 0),
                        "insufficient data left in message"),
                Arguments.of("Execute without row limit", bytes('E', 0, 0, 0, 5, 0),
                        "insufficient data left in message"),
                Arguments.of("Execute with bytes after its row limit", bytes('E', 0, 0, 0, 10, 0, 0, 0, 0, 0, 1),
                        "invalid message format"),
                Arguments.of("FunctionCall with a two-byte body", bytes('F', 0, 0, 0, 6, 0, 0),
                        "insufficient data left in message"),
                Arguments.of("Parse announcing 60,000 parameter types", bytes('P', 0, 0, 0, 16, 0, "select 1", 0,
                        0xea, 0x60), "insufficient data left in message"),
                Arguments.of("Parse announcing 65,535 parameter types, read unsigned", bytes('P', 0, 0, 0, 16, 0,
                        "SELECT 1", 0, 0xff, 0xff), "insufficient data left in message"),
                Arguments.of("Parse with two parameter types announced, one present", bytes('P', 0, 0, 0, 20, 0,
                        "SELECT 1", 0, 0, 2, 0, 0, 0, 23), "insufficient data left in message"),
                Arguments.of("Parse without parameter count", bytes('P', 0, 0, 0, 14, 0, "SELECT 1", 0),
                        "insufficient data left in message"),
                Arguments.of("Parse whose text has no terminator", bytes('P', 0, 0, 0, 13, 0, "SELECT 1"),
                        "invalid string in message"),
                Arguments.of("Parse with bytes after its parameter types", bytes('P', 0, 0, 0, 12, 0, 0, 0, 0, 0, 0,
                        0, 0), "invalid message format"),
                Arguments.of("Query without terminator", bytes('Q', 0, 0, 0, 12, "select 1"),
                        "invalid string in message"),
                Arguments.of("Query with bytes after its terminator", bytes('Q', 0, 0, 0, 14, "select 1", 0, 1),
                        "invalid message format"),
                Arguments.of("Bind whose statement name has no terminator", bytes('B', 0, 0, 0, 7, "p", 0, "s"),
                        "invalid string in message"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedBodies")
    void aMalformedBodyIsPassedOnWithPostgresqlsErrorAndTheFrameAsItArrived(String name, byte[] input,
                                                                             String error) {
        decoder.authenticated();
        FrontendMessage.Malformed m = assertInstanceOf(FrontendMessage.Malformed.class, decodeWhole(input));
        assertEquals((char) input[0], m.type());
        assertEquals(error, m.error());
        assertBytes(input, m.frame());
        assertTrue(m.release(), "the message holds the only reference to its frame");
        assertFalse(channel.finish());
    }

    @Test
    void aMalformedMessageEndsNothing() {
        decoder.authenticated();
        byte[] describe = bytes('D', 0, 0, 0, 9, 'X', "foo", 0);
        List<ByteBuf> reads = alloc.oneByteEach(bytes(PARSE, describe, SYNC, QUERY));
        for (ByteBuf read : reads) {
            channel.writeInbound(read);
        }
        List<Class<?>> decoded = new ArrayList<>();
        for (FrontendMessage m; (m = channel.readInbound()) != null; ) {
            decoded.add(m.getClass());
            m.release();
        }
        assertEquals(List.of(FrontendMessage.Parse.class, FrontendMessage.Malformed.class,
                FrontendMessage.Sync.class, FrontendMessage.Query.class), decoded);
        assertFalse(channel.finish());
    }

    @Test
    void aBindIsReadOnlyUpToItsNames() {
        // PostgreSQL looks up the statement before it reads the values: their faults are the server's to report.
        FrontendMessage.Bind b = assertInstanceOf(FrontendMessage.Bind.class,
                decodeWhole(bytes('B', 0, 0, 0, 9, "x", 0, "y", 0, 0xff)));
        assertEquals("y", b.statement());
        b.release();
        assertFalse(channel.finish());
    }

    private FrontendMessage decodeWhole(byte[] golden) {
        assertTrue(channel.writeInbound(alloc.copyOf(golden)));
        FrontendMessage m = channel.readInbound();
        assertNull(channel.readInbound());
        return m;
    }

    private void assertViolation(String message, byte[] input) {
        DecoderException e = assertThrows(DecoderException.class, () -> channel.writeInbound(alloc.copyOf(input)));
        ProtocolException violation = assertInstanceOf(ProtocolException.class, e.getCause());
        assertEquals(message, violation.getMessage());
        assertEquals(SqlState.PROTOCOL_VIOLATION, violation.sqlState());
        List<Object> decoded = new ArrayList<>();
        for (Object m; (m = channel.readInbound()) != null; ) {
            decoded.add(m);
        }
        assertEquals(List.of(), decoded);
        closeAfterViolation(channel);
    }

    /**
     * The bytes of large messages share one budget while they arrive: what has arrived counts (a header alone holds
     * nothing), a message that would pass the budget ends its connection with 53200, and a message's share comes back
     * once it has arrived or its connection is gone.
     */
    @Test
    void largeMessagesArriveWithinOneBudgetForEveryConnection() {
        InboundBudget budget = new InboundBudget(5L << 19);
        int length = (2 << 20) - 1;
        EmbeddedChannel first = authenticatedChannel(budget);
        EmbeddedChannel second = authenticatedChannel(budget);
        byte[] header = bytes('Q', int32(length));
        assertFalse(first.writeInbound(alloc.copyOf(header)));
        assertFalse(second.writeInbound(alloc.copyOf(header)));
        assertEquals(10, budget.held(), "a header alone holds its own bytes, not the length it announces");

        byte[] half = new byte[1 << 20];
        Arrays.fill(half, (byte) 'x');
        assertFalse(first.writeInbound(alloc.copyOf(half)));
        assertFalse(second.writeInbound(alloc.copyOf(half)));
        assertEquals(2 * (5 + half.length), budget.held());
        byte[] more = new byte[600_000];
        Arrays.fill(more, (byte) 'x');
        DecoderException e = assertThrows(DecoderException.class, () -> second.writeInbound(alloc.copyOf(more)));
        ProtocolException cause = assertInstanceOf(ProtocolException.class, e.getCause());
        assertEquals(SqlState.OUT_OF_MEMORY, cause.sqlState());
        closeAfterViolation(second);
        assertEquals(5 + half.length, budget.held(), "a connection that closed gives its share back");

        byte[] rest = new byte[length - 4 - half.length];
        Arrays.fill(rest, (byte) 'x');
        rest[rest.length - 1] = 0;
        assertTrue(first.writeInbound(alloc.copyOf(rest)));
        assertEquals(0, budget.held(), "a message that arrived gives its share back");
        FrontendMessage.Query query = assertInstanceOf(FrontendMessage.Query.class, first.readInbound());
        query.release();
        assertFalse(first.finishAndReleaseAll());
    }

    private EmbeddedChannel authenticatedChannel(InboundBudget budget) {
        FrontendDecoder own = new FrontendDecoder(budget);
        own.authenticated();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast("frontend-decoder", own);
        return ch;
    }
}
