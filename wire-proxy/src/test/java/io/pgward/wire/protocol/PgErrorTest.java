package io.pgward.wire.protocol;

import static io.pgward.wire.protocol.WireBytes.assertBytesAndRelease;
import static io.pgward.wire.protocol.WireBytes.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** ErrorResponse and NoticeResponse: {@code 'E'/'N' | int32 len | (byte field, cstring value)* | 0}. */
class PgErrorTest {

    private final TrackingAllocator alloc = new TrackingAllocator();

    @AfterEach
    void everyBufferReleased() {
        alloc.assertAllReleased();
    }

    @Test
    void encodesAnErrorWithSeverityCodeAndMessage() {
        assertBytesAndRelease(bytes('E', 0, 0, 0, 30,
                        'S', "ERROR", 0, 'V', "ERROR", 0, 'C', "42501", 0, 'M', "no", 0, 0),
                PgError.error("42501", "no").encode(alloc));
    }

    @Test
    void encodesAFatalError() {
        assertBytesAndRelease(bytes('E', 0, 0, 0, 31,
                        'S', "FATAL", 0, 'V', "FATAL", 0, 'C', "08P01", 0, 'M', "bad", 0, 0),
                PgError.fatal("08P01", "bad").encode(alloc));
    }

    @Test
    void encodesDetailHintAndPositionWhenPresent() {
        assertBytesAndRelease(bytes('E', 0, 0, 0, 39,
                        'S', "ERROR", 0, 'V', "ERROR", 0, 'C', "42601", 0, 'M', "m", 0,
                        'D', "d", 0, 'H', "h", 0, 'P', "15", 0, 0),
                new PgError("ERROR", "42601", "m", "d", "h", 15).encode(alloc));
    }

    @Test
    void encodesANoticeWithTypeN() {
        assertBytesAndRelease(bytes('N', 0, 0, 0, 32,
                        'S', "NOTICE", 0, 'V', "NOTICE", 0, 'C', "00000", 0, 'M', "hi", 0, 0),
                new PgError("NOTICE", "00000", "hi", null, null, 0).encode(alloc, 'N'));
    }

    @Test
    void readsBackTheFieldsItEncodesInOrder() {
        ByteBuf message = new PgError("ERROR", "42P01", "relation \"t\" does not exist", "d", "h", 15).encode(alloc);
        Map<Character, String> fields = PgError.fields(message.slice(5, message.readableBytes() - 5));
        assertEquals(List.of('S', 'V', 'C', 'M', 'D', 'H', 'P'), List.copyOf(fields.keySet()));
        assertEquals(Map.of('S', "ERROR", 'V', "ERROR", 'C', "42P01", 'M', "relation \"t\" does not exist",
                'D', "d", 'H', "h", 'P', "15"), fields);
        message.release();
    }

    @Test
    void readsFieldsFromABodyThatDoesNotStartAtIndexZero() {
        ByteBuf buf = alloc.copyOf(bytes("junk", 'C', "57014", 0, 'M', "canceled", 0, 0));
        buf.readerIndex(4);
        assertEquals(Map.of('C', "57014", 'M', "canceled"), PgError.fields(buf));
        buf.release();
    }

    @Test
    void readsUtf8FieldValues() {
        ByteBuf body = alloc.copyOf(bytes('M', "relation \"bücher\" does not exist", 0, 0));
        assertEquals("relation \"bücher\" does not exist", PgError.fields(body).get('M'));
        body.release();
    }

    @Test
    void stopsAtAFieldWithoutTerminator() {
        ByteBuf body = alloc.copyOf(bytes('C', "42601", 0, 'M', "cut off"));
        assertEquals(Map.of('C', "42601"), PgError.fields(body));
        body.release();
    }
}
