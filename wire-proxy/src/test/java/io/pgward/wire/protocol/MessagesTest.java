package io.pgward.wire.protocol;

import static io.pgward.wire.protocol.WireBytes.assertBytesAndRelease;
import static io.pgward.wire.protocol.WireBytes.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.netty.channel.embedded.EmbeddedChannel;
import io.pgward.wire.codec.BackendDecoder;
import io.pgward.wire.codec.FrontendDecoder;
import io.pgward.wire.codec.StartupDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Golden bytes for every message pgward writes itself, and a round trip through the decoder that reads it. */
class MessagesTest {

    private final TrackingAllocator alloc = new TrackingAllocator();

    @AfterEach
    void everyBufferReleased() {
        alloc.assertAllReleased();
    }

    @Test
    void encodesAuthenticationOk() {
        assertBytesAndRelease(bytes('R', 0, 0, 0, 8, 0, 0, 0, 0), Messages.authenticationOk(alloc));
    }

    @Test
    void encodesAuthenticationMd5PasswordWithItsSalt() {
        assertBytesAndRelease(bytes('R', 0, 0, 0, 12, 0, 0, 0, 5, 0x01, 0x02, 0xfe, 0xff),
                Messages.authentication(alloc, 5, new byte[] {1, 2, (byte) 0xfe, (byte) 0xff}));
    }

    @Test
    void encodesAuthenticationWithoutPayload() {
        // AuthenticationCleartextPassword: code 3 and nothing after it.
        assertBytesAndRelease(bytes('R', 0, 0, 0, 8, 0, 0, 0, 3), Messages.authentication(alloc, 3, null));
    }

    @Test
    void encodesAuthenticationSaslWithItsMechanismList() {
        assertBytesAndRelease(bytes('R', 0, 0, 0, 23, 0, 0, 0, 10, "SCRAM-SHA-256", 0, 0),
                Messages.authenticationSasl(alloc, List.of("SCRAM-SHA-256")));
    }

    @Test
    void encodesParameterStatus() {
        assertBytesAndRelease(bytes('S', 0, 0, 0, 25, "client_encoding", 0, "UTF8", 0),
                Messages.parameterStatus(alloc, "client_encoding", "UTF8"));
    }

    @Test
    void encodesBackendKeyData() {
        assertBytesAndRelease(bytes('K', 0, 0, 0, 12, 0, 0, 0x04, 0xd2, 0x80, 0, 0, 0x01),
                Messages.backendKeyData(alloc, 1234, 0x80000001));
    }

    @Test
    void encodesReadyForQueryForEachTransactionStatus() {
        assertBytesAndRelease(new byte[] {'Z', 0, 0, 0, 5, 'I'}, Messages.readyForQuery(alloc, 'I'));
        assertBytesAndRelease(new byte[] {'Z', 0, 0, 0, 5, 'T'}, Messages.readyForQuery(alloc, 'T'));
        assertBytesAndRelease(new byte[] {'Z', 0, 0, 0, 5, 'E'}, Messages.readyForQuery(alloc, 'E'));
    }

    @Test
    void encodesNegotiateProtocolVersionWithUnrecognizedOptions() {
        assertBytesAndRelease(bytes('v', 0, 0, 0, 29, 0, 0, 0, 0, 0, 0, 0, 1, "_pq_.compression", 0),
                Messages.negotiateProtocolVersion(alloc, 0, List.of("_pq_.compression")));
    }

    @Test
    void encodesNegotiateProtocolVersionForANewerMinorOnly() {
        assertBytesAndRelease(bytes('v', 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0),
                Messages.negotiateProtocolVersion(alloc, 0, List.of()));
    }

    @Test
    void encodesQuery() {
        assertBytesAndRelease(bytes('Q', 0, 0, 0, 13, "SELECT 1", 0), Messages.query(alloc, "SELECT 1"));
    }

    @Test
    void countsUtf8BytesNotCharactersInTheLength() {
        // "ä€" is 2 characters, 5 bytes.
        assertBytesAndRelease(bytes('Q', 0, 0, 0, 10, 0xc3, 0xa4, 0xe2, 0x82, 0xac, 0),
                Messages.query(alloc, "ä€"));
    }

    @Test
    void encodesParseWithoutParameterTypes() {
        assertBytesAndRelease(bytes('P', 0, 0, 0, 18, "s1", 0, "SELECT 1", 0, 0, 0),
                Messages.parse(alloc, "s1", "SELECT 1"));
    }

    @Test
    void encodesParseWithTheClientsParameterTypes() {
        // 4 + "s1\0" 3 + "SELECT $1\0" 10 + int16 2 + 2 * int32 = 27; 1043 = varchar, 23 = int4
        assertBytesAndRelease(bytes('P', 0, 0, 0, 27, "s1", 0, "SELECT $1", 0, 0, 2, 0, 0, 4, 19, 0, 0, 0, 23),
                Messages.parse(alloc, "s1", "SELECT $1", new int[] {1043, 23}));
    }

    @Test
    void encodesBindWithoutParametersAndWithTextResults() {
        // 4 + "p1\0" 3 + "s1\0" 3 + three int16 0 = 16
        assertBytesAndRelease(bytes('B', 0, 0, 0, 16, "p1", 0, "s1", 0, 0, 0, 0, 0, 0, 0),
                Messages.bind(alloc, "p1", "s1"));
    }

    @Test
    void encodesExecuteOfEveryRow() {
        assertBytesAndRelease(bytes('E', 0, 0, 0, 11, "p1", 0, 0, 0, 0, 0), Messages.execute(alloc, "p1"));
    }

    @Test
    void encodesCloseOfAStatementAndOfAPortal() {
        assertBytesAndRelease(bytes('C', 0, 0, 0, 8, 'S', "s1", 0), Messages.close(alloc, 'S', "s1"));
        assertBytesAndRelease(bytes('C', 0, 0, 0, 8, 'P', "p1", 0), Messages.close(alloc, 'P', "p1"));
    }

    @Test
    void encodesTerminate() {
        assertBytesAndRelease(new byte[] {'X', 0, 0, 0, 4}, Messages.terminate(alloc));
    }

    @Test
    void encodesAuthenticationResponse() {
        assertBytesAndRelease(bytes('p', 0, 0, 0, 40, "md5", "0123456789abcdef0123456789abcdef", 0),
                Messages.authenticationResponse(alloc,
                        "md50123456789abcdef0123456789abcdef\0".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void encodesStartupMessageWithParametersInOrder() {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("user", "alice");
        parameters.put("database", "shop");
        assertBytesAndRelease(bytes(0, 0, 0, 34, 0, 3, 0, 0, "user", 0, "alice", 0, "database", 0, "shop", 0, 0),
                Messages.startupMessage(alloc, parameters));
    }

    @Test
    void encodesSslRequest() {
        assertBytesAndRelease(bytes(0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f), Messages.sslRequest(alloc));
    }

    @Test
    void encodesCancelRequest() {
        assertBytesAndRelease(bytes(0, 0, 0, 16, 0x04, 0xd2, 0x16, 0x2e, 0, 0, 0x04, 0xd2, 0, 0, 0x16, 0x2e),
                Messages.cancelRequest(alloc, 1234, 5678));
    }

    // ---------------------------------------------------------------- round trips

    @Test
    void roundTripsFrontendMessagesThroughTheFrontendDecoder() {
        EmbeddedChannel channel = channel(new FrontendDecoder());
        channel.writeInbound(Messages.query(alloc, "SELECT 'ä'"), Messages.parse(alloc, "s1", "SELECT 2"),
                Messages.bind(alloc, "p1", "s1"), Messages.execute(alloc, "p1"), Messages.close(alloc, 'P', "p1"),
                Messages.authenticationResponse(alloc, new byte[] {'p', 'w', 0}), Messages.terminate(alloc));

        FrontendMessage.Query q = assertInstanceOf(FrontendMessage.Query.class, channel.readInbound());
        assertEquals("SELECT 'ä'", q.sql());
        FrontendMessage.Parse p = assertInstanceOf(FrontendMessage.Parse.class, channel.readInbound());
        assertEquals("s1", p.statement());
        assertEquals("SELECT 2", p.sql());
        assertArrayEquals(new int[0], p.parameterTypes());
        FrontendMessage.Bind b = assertInstanceOf(FrontendMessage.Bind.class, channel.readInbound());
        assertEquals(List.of("p1", "s1"), List.of(b.portal(), b.statement()));
        FrontendMessage.Execute e = assertInstanceOf(FrontendMessage.Execute.class, channel.readInbound());
        assertEquals("p1", e.portal());
        assertEquals(0, e.maxRows());
        FrontendMessage.Close c = assertInstanceOf(FrontendMessage.Close.class, channel.readInbound());
        assertEquals('P', c.kind());
        assertEquals("p1", c.name());
        FrontendMessage.AuthenticationResponse r =
                assertInstanceOf(FrontendMessage.AuthenticationResponse.class, channel.readInbound());
        assertBytesAndRelease(bytes("pw", 0), r.body().retain());
        FrontendMessage.Terminate x = assertInstanceOf(FrontendMessage.Terminate.class, channel.readInbound());
        List.of(q, p, b, e, c, r, x).forEach(FrontendMessage::release);
        assertFalse(channel.finish());
    }

    @Test
    void roundTripsStartupPacketsThroughTheStartupDecoder() {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("user", "alice");
        parameters.put("application_name", "psql");
        assertEquals(new StartupPacket.StartupMessage(StartupPacket.PROTOCOL_3_0, parameters),
                decodeStartup(Messages.startupMessage(alloc, parameters)));
        assertEquals(new StartupPacket.SslRequest(), decodeStartup(Messages.sslRequest(alloc)));
        assertEquals(new StartupPacket.CancelRequest(-7, 42), decodeStartup(Messages.cancelRequest(alloc, -7, 42)));
    }

    @Test
    void roundTripsReadyForQueryAndParameterStatusThroughTheBackendDecoder() {
        EmbeddedChannel channel = channel(new BackendDecoder());
        channel.writeInbound(Messages.parameterStatus(alloc, "TimeZone", "UTC"), Messages.readyForQuery(alloc, 'T'));

        BackendMessage.Frame status = assertInstanceOf(BackendMessage.Frame.class, channel.readInbound());
        assertEquals('S', status.type());
        assertBytesAndRelease(bytes("TimeZone", 0, "UTC", 0), status.body().retain());
        BackendMessage.Frame ready = assertInstanceOf(BackendMessage.Frame.class, channel.readInbound());
        assertEquals('Z', ready.type());
        assertEquals('T', ready.body().getByte(0));
        status.bytes().release();
        ready.bytes().release();
        assertFalse(channel.finish());
    }

    private Object decodeStartup(io.netty.buffer.ByteBuf packet) {
        EmbeddedChannel channel = channel(new StartupDecoder());
        channel.writeInbound(packet);
        Object decoded = channel.readInbound();
        assertFalse(channel.finish());
        return decoded;
    }

    private EmbeddedChannel channel(io.netty.channel.ChannelHandler decoder) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.pipeline().addLast(decoder);
        return channel;
    }
}
