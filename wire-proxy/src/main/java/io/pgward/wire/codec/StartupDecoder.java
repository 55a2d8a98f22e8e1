package io.pgward.wire.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.StartupPacket;
import io.pgward.wire.protocol.UnansweredProtocolError;
import io.pgward.wire.protocol.Wire;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Decodes one startup-phase packet at a time ({@code int32 len | int32 code | ...}). Single-decode: bytes after
 * the packet stay buffered until the handler decides what comes next (TLS, another startup packet, or the
 * regular protocol), which lets it refuse plaintext sent after an SSLRequest.
 *
 * <p>Limits follow PostgreSQL's {@code ProcessStartupPacket}: a packet is 8 to 10,000 bytes. A length outside
 * them, or a request code with the wrong length, is an {@link UnansweredProtocolError}: PostgreSQL logs it and
 * closes without an answer (a Terminate sent before the startup packet reads as such a length). Faults found
 * after the length, in a StartupMessage's layout, are answered with a FATAL ErrorResponse, as PostgreSQL does.
 */
public final class StartupDecoder extends ByteToMessageDecoder {

    static final int MAX_STARTUP_PACKET = 10_000;

    public StartupDecoder() {
        setSingleDecode(true);
    }

    /** Bytes received but not yet decoded. */
    public int buffered() {
        return actualReadableBytes();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < 4) {
            return;
        }
        int length = in.getInt(in.readerIndex());
        if (length < 8 || length > MAX_STARTUP_PACKET) {
            throw new UnansweredProtocolError("invalid length of startup packet");
        }
        if (in.readableBytes() < length) {
            return;
        }
        ByteBuf packet = in.readSlice(length);
        packet.skipBytes(4);
        int code = packet.readInt();
        out.add(switch (code) {
            case StartupPacket.SSL_REQUEST_CODE -> exactly(8, length, StartupPacket.SslRequest::new);
            case StartupPacket.GSSENC_REQUEST_CODE -> exactly(8, length, StartupPacket.GssEncRequest::new);
            case StartupPacket.CANCEL_REQUEST_CODE ->
                    exactly(16, length, () -> new StartupPacket.CancelRequest(packet.readInt(), packet.readInt()));
            default -> startupMessage(packet, code);
        });
    }

    /** Checks the length before {@code packet} reads the body: a short CancelRequest has no key to read. */
    private static StartupPacket exactly(int expected, int length, Supplier<StartupPacket> packet) {
        if (length != expected) {
            throw new UnansweredProtocolError("invalid length of startup packet");
        }
        return packet.get();
    }

    private static StartupPacket.StartupMessage startupMessage(ByteBuf packet, int version) {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        if (version >>> 16 == 3) {
            readPairs(packet, pairs);
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        pairs.forEach(pair -> parameters.put(pair.getKey(), pair.getValue()));
        return new StartupPacket.StartupMessage(version, parameters, pairs);
    }

    private static void readPairs(ByteBuf packet, List<Map.Entry<String, String>> pairs) {
        if (!packet.isReadable() || packet.getByte(packet.writerIndex() - 1) != 0) {
            throw new ProtocolException("invalid startup packet layout: expected terminator as last byte");
        }
        while (packet.isReadable()) {
            String name = Wire.readCString(packet);
            if (name.isEmpty()) {
                if (packet.isReadable()) {
                    throw new ProtocolException("invalid startup packet layout: expected terminator as last byte");
                }
                return;
            }
            if (!packet.isReadable()) {
                throw new ProtocolException("invalid startup packet layout: expected terminator as last byte");
            }
            pairs.add(Map.entry(name, Wire.readCString(packet)));
        }
        throw new ProtocolException("invalid startup packet layout: expected terminator as last byte");
    }
}
