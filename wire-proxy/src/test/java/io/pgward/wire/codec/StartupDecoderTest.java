package io.pgward.wire.codec;

import static io.pgward.wire.protocol.WireBytes.assertBytesAndRelease;
import static io.pgward.wire.protocol.WireBytes.bytes;
import static io.pgward.wire.protocol.WireBytes.int32;
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
import io.pgward.wire.protocol.StartupPacket;
import io.pgward.wire.protocol.TrackingAllocator;
import io.pgward.wire.protocol.UnansweredProtocolError;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Startup-phase packets: {@code int32 len | int32 code | ...}, one per decode. */
class StartupDecoderTest {

    /** {@code int32 8 | int32 80877103}. */
    private static final byte[] SSL_REQUEST = bytes(0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f);
    /** {@code int32 8 | int32 80877104}. */
    private static final byte[] GSSENC_REQUEST = bytes(0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x30);
    /** {@code int32 16 | int32 80877102 | int32 pid 1234 | int32 secret -2}. */
    private static final byte[] CANCEL_REQUEST = bytes(0, 0, 0, 16, 0x04, 0xd2, 0x16, 0x2e,
            0, 0, 0x04, 0xd2, 0xff, 0xff, 0xff, 0xfe);
    /** Protocol 3.0 with user, database and application_name, in that order. */
    private static final byte[] STARTUP_MESSAGE = bytes(0, 0, 0, 56, 0, 3, 0, 0,
            "user", 0, "alice", 0, "database", 0, "shop", 0, "application_name", 0, "psql", 0, 0);

    private final TrackingAllocator alloc = new TrackingAllocator();
    private StartupDecoder decoder;
    private EmbeddedChannel channel;

    @BeforeEach
    void openChannel() {
        decoder = new StartupDecoder();
        channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.pipeline().addLast("startup-decoder", decoder);
    }

    @AfterEach
    void everyBufferReleased() {
        alloc.assertAllReleased();
    }

    @Test
    void decodesSslRequest() {
        assertTrue(channel.writeInbound(alloc.copyOf(SSL_REQUEST)));
        assertEquals(new StartupPacket.SslRequest(), channel.readInbound());
        assertFalse(channel.finish());
    }

    @Test
    void decodesGssEncRequest() {
        assertTrue(channel.writeInbound(alloc.copyOf(GSSENC_REQUEST)));
        assertEquals(new StartupPacket.GssEncRequest(), channel.readInbound());
        assertFalse(channel.finish());
    }

    @Test
    void decodesCancelRequestWithItsKey() {
        assertTrue(channel.writeInbound(alloc.copyOf(CANCEL_REQUEST)));
        assertEquals(new StartupPacket.CancelRequest(1234, -2), channel.readInbound());
        assertFalse(channel.finish());
    }

    @Test
    void decodesStartupMessageWithParametersInTheOrderSent() {
        assertTrue(channel.writeInbound(alloc.copyOf(STARTUP_MESSAGE)));
        StartupPacket.StartupMessage m = assertInstanceOf(StartupPacket.StartupMessage.class, channel.readInbound());
        assertEquals(StartupPacket.PROTOCOL_3_0, m.version());
        assertEquals(3, m.major());
        assertEquals(0, m.minor());
        assertEquals(List.of(Map.entry("user", "alice"), Map.entry("database", "shop"),
                Map.entry("application_name", "psql")), List.copyOf(m.parameters().entrySet()));
        assertFalse(channel.finish());
    }

    @Test
    void decodesStartupMessageWithoutParameters() {
        channel.writeInbound(alloc.copyOf(bytes(0, 0, 0, 9, 0, 3, 0, 0, 0)));
        StartupPacket.StartupMessage m = assertInstanceOf(StartupPacket.StartupMessage.class, channel.readInbound());
        assertEquals(Map.of(), m.parameters());
        assertFalse(channel.finish());
    }

    @Test
    void readsParametersOfANewerMinorVersion() {
        // 3.2: pgward answers NegotiateProtocolVersion, but first it must read what the client asked for.
        channel.writeInbound(alloc.copyOf(bytes(0, 0, 0, 30, 0, 3, 0, 2,
                "user", 0, "alice", 0, "_pq_.x", 0, "on", 0, 0)));
        StartupPacket.StartupMessage m = assertInstanceOf(StartupPacket.StartupMessage.class, channel.readInbound());
        assertEquals(2, m.minor());
        assertEquals(List.of("user", "_pq_.x"), List.copyOf(m.parameters().keySet()));
        assertFalse(channel.finish());
    }

    @Test
    void givesProtocol2StartupPacketNoParameters() {
        // The 2.0 packet is fixed-size (296 bytes) with no name/value pairs; pgward only needs its version.
        byte[] packet = new byte[296];
        System.arraycopy(bytes(0, 0, 0x01, 0x28, 0, 2, 0, 0), 0, packet, 0, 8);
        System.arraycopy(bytes("alice"), 0, packet, 72, 5);
        channel.writeInbound(alloc.copyOf(packet));
        StartupPacket.StartupMessage m = assertInstanceOf(StartupPacket.StartupMessage.class, channel.readInbound());
        assertEquals(2, m.major());
        assertEquals(Map.of(), m.parameters());
        assertFalse(channel.finish());
    }

    @Test
    void decodesEveryPacketFedOneByteAtATime() {
        assertEquals(new StartupPacket.SslRequest(), feedOneByteAtATime(SSL_REQUEST));
        assertEquals(new StartupPacket.GssEncRequest(), feedOneByteAtATime(GSSENC_REQUEST));
        assertEquals(new StartupPacket.CancelRequest(1234, -2), feedOneByteAtATime(CANCEL_REQUEST));
        StartupPacket.StartupMessage m = assertInstanceOf(StartupPacket.StartupMessage.class,
                feedOneByteAtATime(STARTUP_MESSAGE));
        assertEquals(List.of("user", "database", "application_name"), List.copyOf(m.parameters().keySet()));
        assertFalse(channel.finish());
    }

    /** Feeds {@code packet} one byte per read; nothing may come out before its last byte. */
    private Object feedOneByteAtATime(byte[] packet) {
        List<ByteBuf> reads = alloc.oneByteEach(packet);
        for (int i = 0; i < reads.size() - 1; i++) {
            assertFalse(channel.writeInbound(reads.get(i)), "decoded after " + (i + 1) + " bytes");
            assertEquals(i + 1, decoder.buffered());
        }
        assertTrue(channel.writeInbound(reads.getLast()));
        assertEquals(0, decoder.buffered());
        Object decoded = channel.readInbound();
        assertNull(channel.readInbound());
        return decoded;
    }

    @Test
    void decodesOnePacketPerReadAndKeepsWhatFollowsBuffered() {
        // Plaintext after an SSLRequest must still be visible when the handler decides about TLS.
        channel.writeInbound(alloc.copyOf(bytes(SSL_REQUEST, STARTUP_MESSAGE)));
        assertEquals(new StartupPacket.SslRequest(), channel.readInbound());
        assertNull(channel.readInbound(), "decoded more than one packet");
        assertEquals(STARTUP_MESSAGE.length, decoder.buffered());

        channel.pipeline().remove(decoder);
        ByteBuf rest = channel.readInbound();
        assertBytesAndRelease(STARTUP_MESSAGE, rest);
        assertFalse(channel.finish());
    }

    @Test
    void reportsAPartialPacketAsBuffered() {
        channel.writeInbound(alloc.copyOf(bytes(SSL_REQUEST, 0, 0, 0)));
        assertEquals(new StartupPacket.SslRequest(), channel.readInbound());
        assertEquals(3, decoder.buffered());
        assertFalse(channel.finish());
    }

    @Test
    void handsTheBytesAfterTheStartupMessageToTheFrontendDecoderThatReplacesIt() {
        byte[] sync = bytes('S', 0, 0, 0, 4);
        channel.writeInbound(alloc.copyOf(bytes(STARTUP_MESSAGE, sync)));
        assertInstanceOf(StartupPacket.StartupMessage.class, channel.readInbound());

        channel.pipeline().replace(StartupDecoder.class, "frontend-decoder", new FrontendDecoder());
        FrontendMessage.Sync s = assertInstanceOf(FrontendMessage.Sync.class, channel.readInbound());
        assertBytesAndRelease(sync, s.frame());
        assertFalse(channel.finish());
    }

    @Test
    void leavesATerminateSentInsteadOfAStartupPacketUnanswered() {
        // 'X' | int32 4 read as a startup length is 1,476,395,008.
        assertUnanswered("invalid length of startup packet", bytes('X', 0, 0, 0, 4));
    }

    @Test
    void rejectsALengthBelowEight() {
        assertUnanswered("invalid length of startup packet", bytes(0, 0, 0, 7, 0, 3, 0));
    }

    @Test
    void rejectsANegativeLength() {
        assertUnanswered("invalid length of startup packet", bytes(0xff, 0xff, 0xff, 0xf8));
    }

    @Test
    void rejectsALengthAboveTenThousandAsSoonAsItArrives() {
        // Nothing beyond the length itself is buffered for an oversized packet.
        assertUnanswered("invalid length of startup packet", int32(10_001));
    }

    @Test
    void acceptsALengthOfExactlyTenThousand() {
        byte[] packet = new byte[10_000];
        System.arraycopy(bytes(int32(10_000), 0, 3, 0, 0, "user", 0, "alice", 0), 0, packet, 0, 19);
        // Padding name/value pairs: "" is the terminator, so fill with one long value and end with 0.
        System.arraycopy(bytes("options", 0), 0, packet, 19, 8);
        Arrays.fill(packet, 27, 9_998, (byte) 'x');
        channel.writeInbound(alloc.copyOf(packet));
        StartupPacket.StartupMessage m = assertInstanceOf(StartupPacket.StartupMessage.class, channel.readInbound());
        assertEquals(9_998 - 27, m.parameters().get("options").length());
        assertFalse(channel.finish());
    }

    @Test
    void rejectsAnSslRequestOfTheWrongLength() {
        assertUnanswered("invalid length of startup packet", bytes(0, 0, 0, 12, 0x04, 0xd2, 0x16, 0x2f, 0, 0, 0, 0));
    }

    @Test
    void rejectsAGssEncRequestOfTheWrongLength() {
        assertUnanswered("invalid length of startup packet", bytes(0, 0, 0, 9, 0x04, 0xd2, 0x16, 0x30, 0));
    }

    @Test
    void rejectsACancelRequestThatIsTooLong() {
        assertUnanswered("invalid length of startup packet", bytes(0, 0, 0, 20, 0x04, 0xd2, 0x16, 0x2e,
                0, 0, 0x04, 0xd2, 0, 0, 0, 1, 0, 0, 0, 0));
    }

    @Test
    void rejectsACancelRequestThatIsTooShort() {
        // Too short to hold the key: must be the protocol violation, not an index error from reading past it.
        assertUnanswered("invalid length of startup packet", bytes(0, 0, 0, 12, 0x04, 0xd2, 0x16, 0x2e,
                0, 0, 0x04, 0xd2));
    }

    @Test
    void rejectsAStartupMessageWithoutTerminator() {
        assertViolation("invalid startup packet layout: expected terminator as last byte",
                bytes(0, 0, 0, 19, 0, 3, 0, 0, "user", 0, "alice", 0));
    }

    @Test
    void rejectsAStartupMessageWithNoBodyAtAll() {
        assertViolation("invalid startup packet layout: expected terminator as last byte",
                bytes(0, 0, 0, 8, 0, 3, 0, 0));
    }

    @Test
    void rejectsANameWithoutValue() {
        assertViolation("invalid startup packet layout: expected terminator as last byte",
                bytes(0, 0, 0, 13, 0, 3, 0, 0, "user", 0));
    }

    @Test
    void rejectsBytesAfterTheTerminator() {
        assertViolation("invalid startup packet layout: expected terminator as last byte",
                bytes(0, 0, 0, 21, 0, 3, 0, 0, "user", 0, "alice", 0, 0, 'x', 0));
    }

    /** PostgreSQL's COMMERROR: logged, never answered (see {@link UnansweredProtocolError}). */
    private void assertUnanswered(String message, byte[] input) {
        DecoderException e = assertThrows(DecoderException.class, () -> channel.writeInbound(alloc.copyOf(input)));
        UnansweredProtocolError error = assertInstanceOf(UnansweredProtocolError.class, e.getCause());
        assertEquals(message, error.getMessage());
        assertNull(channel.readInbound());
        closeAfterViolation(channel);
    }

    private void assertViolation(String message, byte[] input) {
        DecoderException e = assertThrows(DecoderException.class, () -> channel.writeInbound(alloc.copyOf(input)));
        ProtocolException violation = assertInstanceOf(ProtocolException.class, e.getCause());
        assertEquals(message, violation.getMessage());
        assertEquals(SqlState.PROTOCOL_VIOLATION, violation.sqlState());
        assertNull(channel.readInbound());
        closeAfterViolation(channel);
    }

    /**
     * What the server does after a violation: close. As its input closes the decoder looks once more at what
     * it holds (and may reject it again); either way it must release it.
     */
    static void closeAfterViolation(EmbeddedChannel channel) {
        channel.close();
        try {
            channel.checkException();
        } catch (DecoderException again) {
            assertTrue(again.getCause() instanceof ProtocolException
                    || again.getCause() instanceof UnansweredProtocolError, again.getCause().toString());
        }
        assertFalse(channel.finishAndReleaseAll());
    }
}
