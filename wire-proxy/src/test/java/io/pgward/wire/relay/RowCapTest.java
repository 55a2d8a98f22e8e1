package io.pgward.wire.relay;

import static io.pgward.wire.protocol.WireBytes.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.TrackingAllocator;
import io.pgward.wire.protocol.Wire;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The row cap's state machine on its own, writing to a client channel the test reads. */
class RowCapTest {

    private final TrackingAllocator alloc = new TrackingAllocator();
    private final EmbeddedChannel client = new EmbeddedChannel();
    private final RowCap cap = new RowCap(2, "alice");

    RowCapTest() {
        client.config().setAllocator(alloc);
    }

    @AfterEach
    void nothingUnreadAndNothingLeaked() {
        cap.release();
        assertFalse(client.finishAndReleaseAll(), "the client was sent something the test did not read");
        alloc.assertAllReleased();
    }

    @Test
    void countsEachResultOnItsOwn() {
        assertFalse(cap.relay(rows(2), 2, client));
        BackendMessage.Frame complete = frame('C');
        assertFalse(cap.consumes(complete, client), "CommandComplete of a result within the cap is relayed");
        complete.bytes().release();
        assertFalse(cap.relay(rows(2), 2, client), "the next result starts from zero");
        assertEquals(RowCap.Phase.COUNTING, cap.phase());
        assertEquals(List.of('D', 'D', 'D', 'D'), typesSent());
    }

    @Test
    void cutsTheResultThatPassesTheCapAndAnswersItsCancelWithTheCapError() {
        assertTrue(cap.relay(rows(3), 3, client), "the run that passes the cap says so once");
        assertEquals(RowCap.Phase.CUTTING, cap.phase());
        assertTrue(cap.holdsClient());
        assertFalse(cap.relay(rows(2), 2, client));
        assertEquals(List.of('D', 'D'), typesSent(), "two rows, then nothing");

        assertTrue(cap.consumes(frame('E'), client), "the cancel's error is replaced");
        List<Character> sent = new ArrayList<>();
        List<String> states = new ArrayList<>();
        readSent((type, fields) -> {
            sent.add(type);
            states.add(fields);
        });
        assertEquals(List.of('E'), sent);
        assertEquals("54000", states.getFirst());
        assertEquals(RowCap.Phase.SETTLING, cap.phase());
        assertFalse(cap.readyToSettle(), "not before the cancel is delivered");
        BackendMessage.Frame ready = frame('Z');
        assertFalse(cap.holdsReady(ready), "the ReadyForQuery of a failed statement is relayed");
        ready.bytes().release();
        cap.cancelDelivered();
        assertTrue(cap.readyToSettle());
        assertNull(cap.takeHeldReady());
        cap.settled();
        assertFalse(cap.holdsClient());
    }

    @Test
    void discardsWhatFollowsAStatementThatCompletedBeforeTheCancelAndHoldsItsReadyForQuery() {
        cap.cancelDelivered();
        assertTrue(cap.relay(rows(3), 3, client));
        assertTrue(cap.consumes(frame('C'), client));
        assertEquals(RowCap.Phase.DISCARDING, cap.phase());
        assertFalse(cap.relay(rows(1), 1, client), "a later statement of the same Query is not seen");
        assertTrue(cap.consumes(frame('C'), client));
        List<Character> sent = typesSent();
        assertEquals(List.of('D', 'D', 'E'), sent);

        BackendMessage.Frame ready = frame('Z');
        assertTrue(cap.holdsReady(ready));
        assertEquals(RowCap.Phase.SETTLING, cap.phase());
        assertFalse(cap.readyToSettle(), "a new cancel is on its way");
        cap.cancelDelivered();
        assertTrue(cap.readyToSettle());
        BackendMessage.Frame held = cap.takeHeldReady();
        assertSame(ready, held);
        held.bytes().release();

        cap.aborting();
        assertTrue(cap.consumes(frame('E'), client), "the abort's error is not relayed");
        assertTrue(cap.holdsClient());
        cap.settled();
        assertEquals(RowCap.Phase.COUNTING, cap.phase());
    }

    @Test
    void dropsCopyDoneOnceCopyDataIsCut() {
        ByteBuf copy = alloc.buffer();
        for (int i = 0; i < 3; i++) {
            copy.writeBytes(bytes('d', 0, 0, 0, 5, 'x'));
        }
        copy.writeBytes(bytes('c', 0, 0, 0, 4));
        assertTrue(cap.relay(copy, 3, client));
        assertEquals(List.of('d', 'd'), typesSent());
        assertTrue(cap.consumes(frame('E'), client));
        assertEquals(List.of('E'), typesSent());
    }

    // ---------------------------------------------------------------- doubles

    private ByteBuf rows(int n) {
        ByteBuf run = alloc.buffer();
        for (int i = 0; i < n; i++) {
            run.writeBytes(bytes('D', 0, 0, 0, 11, 0, 1, 0, 0, 0, 1, "1"));
        }
        return run;
    }

    private BackendMessage.Frame frame(char type) {
        return switch (type) {
            case 'Z' -> new BackendMessage.Frame('Z', Messages.readyForQuery(alloc, 'T'));
            case 'E' -> new BackendMessage.Frame('E',
                    PgError.error("57014", "canceling statement due to user request").encode(alloc));
            default -> new BackendMessage.Frame(type, Wire.message(alloc, type, b -> Wire.writeCString(b, "SELECT 3")));
        };
    }

    private interface SentReader {
        void read(char type, String sqlState);
    }

    private void readSent(SentReader reader) {
        client.flush();
        for (ByteBuf buf; (buf = client.readOutbound()) != null; ) {
            try {
                while (buf.isReadable()) {
                    char type = (char) buf.getByte(buf.readerIndex());
                    int length = buf.getInt(buf.readerIndex() + 1) + 1;
                    String state = type == 'E'
                            ? PgError.fields(buf.slice(buf.readerIndex() + 5, length - 5)).get('C') : null;
                    reader.read(type, state);
                    buf.skipBytes(length);
                }
            } finally {
                buf.release();
            }
        }
    }

    private List<Character> typesSent() {
        List<Character> types = new ArrayList<>();
        readSent((type, state) -> types.add(type));
        return types;
    }
}
