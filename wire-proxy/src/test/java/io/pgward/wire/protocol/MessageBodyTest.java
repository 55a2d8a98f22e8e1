package io.pgward.wire.protocol;

import static io.pgward.wire.protocol.WireBytes.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Client message bodies read field by field, with PostgreSQL's error for each way a field is missing. */
class MessageBodyTest {

    private final TrackingAllocator alloc = new TrackingAllocator();

    @AfterEach
    void everyBufferReleased() {
        alloc.assertAllReleased();
    }

    @Test
    void readsEachFieldInTurnUpToTheEnd() throws MalformedMessage {
        ByteBuf body = alloc.copyOf(bytes(0xc8, "bé", 0, 0xff, 0xff, 0, 0, 0, 7, "xy"));
        assertEquals(200, MessageBody.readByte(body), "a byte is unsigned");
        assertEquals("bé", MessageBody.readString(body));
        assertEquals(65_535, MessageBody.readUnsignedShort(body));
        assertEquals(7, MessageBody.readInt(body));
        assertEquals("xy", MessageBody.readSlice(body, 2).toString(java.nio.charset.StandardCharsets.UTF_8));
        MessageBody.end(body);
        body.release();
    }

    @Test
    void failsWithPostgresqlsTextForEachMissingField() {
        assertFails("no data left in message", body -> MessageBody.readByte(body));
        assertFails("invalid string in message", body -> MessageBody.readString(body), 'a', 'b');
        assertFails("insufficient data left in message", body -> MessageBody.readUnsignedShort(body), 1);
        assertFails("insufficient data left in message", body -> MessageBody.readInt(body), 0, 0, 0);
        assertFails("insufficient data left in message", body -> MessageBody.readSlice(body, 3), 1, 2);
        assertFails("insufficient data left in message", body -> MessageBody.readSlice(body, -2), 1, 2);
        assertFails("invalid message format", MessageBody::end, 0);
    }

    @Test
    void readsBindValuesWithNullAndFailsOnAValueLongerThanTheMessage() throws MalformedMessage {
        ByteBuf complete = alloc.copyOf(bytes('B', 0, 0, 0, 21, 0, 0, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff,
                0, 0, 0, 1, "7", 0, 0));
        List<BindParameters.Value> values = BindParameters.read(complete);
        assertNull(values.getFirst().bytes());
        assertEquals("7", values.get(1).bytes().toString(java.nio.charset.StandardCharsets.UTF_8));
        complete.release();

        ByteBuf truncated = alloc.copyOf(bytes('B', 0, 0, 0, 15, 0, 0, 0, 0, 0, 1, 0, 0, 0, 100, 'x'));
        MalformedMessage e = assertThrows(MalformedMessage.class, () -> BindParameters.read(truncated));
        assertEquals("insufficient data left in message", e.getMessage());
        truncated.release();

        ByteBuf formats = alloc.copyOf(bytes('B', 0, 0, 0, 14, 0, 0, 0, 2, 0, 0, 0, 1, 0, 1));
        e = assertThrows(MalformedMessage.class, () -> BindParameters.read(formats));
        assertEquals("bind message has 2 parameter formats but 1 parameters", e.getMessage());
        formats.release();
    }

    private interface Read {
        void from(ByteBuf body) throws MalformedMessage;
    }

    private void assertFails(String error, Read read, Object... body) {
        ByteBuf buf = alloc.copyOf(bytes(body));
        try {
            assertEquals(error, assertThrows(MalformedMessage.class, () -> read.from(buf)).getMessage());
        } finally {
            buf.release();
        }
    }
}
