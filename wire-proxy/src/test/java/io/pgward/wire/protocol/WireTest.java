package io.pgward.wire.protocol;

import static io.pgward.wire.protocol.WireBytes.assertBytesAndRelease;
import static io.pgward.wire.protocol.WireBytes.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WireTest {

    private final TrackingAllocator alloc = new TrackingAllocator();

    @AfterEach
    void everyBufferReleased() {
        alloc.assertAllReleased();
    }

    @Test
    void patchesTheLengthToCountItselfAndTheBodyButNotTheType() {
        assertBytesAndRelease(bytes('d', 0, 0, 0, 7, 1, 2, 3),
                Wire.message(alloc, 'd', buf -> buf.writeBytes(new byte[] {1, 2, 3})));
    }

    @Test
    void patchesTheLengthOfAnUntypedMessageToCountItself() {
        assertBytesAndRelease(bytes(0, 0, 0, 6, 9, 9), Wire.untypedMessage(alloc, buf -> buf.writeShort(0x0909)));
    }

    @Test
    void readsConsecutiveCStrings() {
        ByteBuf buf = alloc.copyOf(bytes("a", 0, "", 0, "bé", 0, 'x'));
        assertEquals("a", Wire.readCString(buf));
        assertEquals("", Wire.readCString(buf));
        assertEquals("bé", Wire.readCString(buf));
        assertEquals(1, buf.readableBytes());
        buf.release();
    }

    @Test
    void rejectsACStringWithoutTerminator() {
        ByteBuf buf = alloc.copyOf(bytes("abc"));
        ProtocolException e = assertThrows(ProtocolException.class, () -> Wire.readCString(buf));
        assertEquals("invalid string in message", e.getMessage());
        assertEquals(SqlState.PROTOCOL_VIOLATION, e.sqlState());
        assertEquals(0, buf.readerIndex());
        buf.release();
    }
}
