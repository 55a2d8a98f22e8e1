package io.pgward.wire.codec;

import static io.pgward.wire.codec.StartupDecoderTest.closeAfterViolation;
import static io.pgward.wire.protocol.WireBytes.assertBytes;
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
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.ProtocolException;
import io.pgward.wire.protocol.TrackingAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The backend's byte stream as inspected frames and runs of forwarded-only messages. */
class BackendDecoderTest {

    /** RowDescription of one text column "n". */
    private static final byte[] ROW_DESCRIPTION = bytes('T', 0, 0, 0, 26, 0, 1, "n", 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0);
    private static final byte[] ROW_1 = bytes('D', 0, 0, 0, 11, 0, 1, 0, 0, 0, 1, "1");
    private static final byte[] ROW_2 = bytes('D', 0, 0, 0, 11, 0, 1, 0, 0, 0, 1, "2");
    private static final byte[] ROW_NULL = bytes('D', 0, 0, 0, 10, 0, 1, 0xff, 0xff, 0xff, 0xff);
    private static final byte[] SELECT_2 = bytes('C', 0, 0, 0, 13, "SELECT 2", 0);
    private static final byte[] READY_IDLE = bytes('Z', 0, 0, 0, 5, 'I');
    private static final byte[] PARAMETER_STATUS = bytes('S', 0, 0, 0, 21, "TimeZone", 0, "Etc/UTC", 0);
    private static final byte[] BIND_COMPLETE = bytes('2', 0, 0, 0, 4);

    private final TrackingAllocator alloc = new TrackingAllocator();
    private EmbeddedChannel channel;

    @BeforeEach
    void openChannel() {
        channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.pipeline().addLast("decoder", new BackendDecoder());
    }

    @AfterEach
    void everyBufferReleased() {
        alloc.assertAllReleased();
    }

    @ParameterizedTest
    @ValueSource(chars = {'Z', 'E', 'S', 'K', 'R', 'C', 's', 'v', '1', '3'})
    void handsInspectedTypesOnAsSingleFrames(char type) {
        byte[] message = bytes(type, 0, 0, 0, 6, 'x', 0);
        List<BackendMessage> out = decode(bytes(message, message));
        assertEquals(2, out.size());
        for (BackendMessage m : out) {
            BackendMessage.Frame frame = assertInstanceOf(BackendMessage.Frame.class, m);
            assertEquals(type, frame.type());
            assertBytes(message, frame.bytes());
            assertBytes(bytes('x', 0), frame.body());
        }
        release(out);
        assertFalse(channel.finish());
    }

    @ParameterizedTest
    @ValueSource(chars = {'T', 'D', '2', 'n', 'N', 'A', 'G', 'H', 'W', 'd', 'c', 't', 'I'})
    void joinsForwardedOnlyTypesIntoOneRun(char type) {
        byte[] message = bytes(type, 0, 0, 0, 5, 'x');
        List<BackendMessage> out = decode(bytes(message, message, message));
        BackendMessage.Run run = assertInstanceOf(BackendMessage.Run.class, out.getFirst());
        assertEquals(1, out.size());
        assertBytes(bytes(message, message, message), run.bytes());
        assertEquals(type == 'D' || type == 'd' ? 3 : 0, run.dataRows(), "DataRow and CopyData are rows");
        release(out);
        assertFalse(channel.finish());
    }

    @Test
    void endsTheRunAtTheFirstInspectedFrame() {
        List<BackendMessage> out = decode(bytes(ROW_DESCRIPTION, ROW_1, ROW_2, SELECT_2, READY_IDLE));

        assertEquals(3, out.size());
        BackendMessage.Run run = assertInstanceOf(BackendMessage.Run.class, out.get(0));
        assertBytes(bytes(ROW_DESCRIPTION, ROW_1, ROW_2), run.bytes());
        assertEquals(2, run.dataRows());
        assertFrame('C', SELECT_2, out.get(1));
        assertFrame('Z', READY_IDLE, out.get(2));
        release(out);
        assertFalse(channel.finish());
    }

    @Test
    void startsANewRunAfterAnInspectedFrameInTheMiddle() {
        // A ParameterStatus can arrive between rows (e.g. after SET in a multi-statement query).
        List<BackendMessage> out = decode(bytes(BIND_COMPLETE, ROW_1, ROW_NULL, PARAMETER_STATUS,
                ROW_2, SELECT_2));

        assertEquals(4, out.size());
        BackendMessage.Run before = assertInstanceOf(BackendMessage.Run.class, out.get(0));
        assertBytes(bytes(BIND_COMPLETE, ROW_1, ROW_NULL), before.bytes());
        assertEquals(2, before.dataRows());
        assertFrame('S', PARAMETER_STATUS, out.get(1));
        BackendMessage.Run after = assertInstanceOf(BackendMessage.Run.class, out.get(2));
        assertBytes(ROW_2, after.bytes());
        assertEquals(1, after.dataRows());
        assertFrame('C', SELECT_2, out.get(3));
        release(out);
        assertFalse(channel.finish());
    }

    @Test
    void keepsAPartialMessageUntilItsRestArrives() {
        byte[] input = bytes(ROW_DESCRIPTION, ROW_1, ROW_2, READY_IDLE);
        int split = ROW_DESCRIPTION.length + ROW_1.length + 3;

        List<BackendMessage> first = decode(Arrays.copyOfRange(input, 0, split));
        assertEquals(1, first.size());
        BackendMessage.Run run = assertInstanceOf(BackendMessage.Run.class, first.getFirst());
        assertBytes(bytes(ROW_DESCRIPTION, ROW_1), run.bytes());
        assertEquals(1, run.dataRows());

        List<BackendMessage> rest = decode(Arrays.copyOfRange(input, split, input.length));
        assertEquals(2, rest.size());
        BackendMessage.Run second = assertInstanceOf(BackendMessage.Run.class, rest.get(0));
        assertBytes(ROW_2, second.bytes());
        assertEquals(1, second.dataRows());
        assertFrame('Z', READY_IDLE, rest.get(1));
        release(first);
        release(rest);
        assertFalse(channel.finish());
    }

    @Test
    void waitsForAHeaderSplitAcrossReads() {
        assertTrue(decode(bytes('Z', 0, 0)).isEmpty());
        List<BackendMessage> out = decode(bytes(0, 5, 'T'));
        assertFrame('Z', bytes('Z', 0, 0, 0, 5, 'T'), out.getFirst());
        release(out);
        assertFalse(channel.finish());
    }

    @Test
    void decodesTheSameMessagesFedOneByteAtATime() {
        byte[] input = bytes(ROW_DESCRIPTION, ROW_1, ROW_2, SELECT_2, READY_IDLE);
        List<BackendMessage> out = new ArrayList<>();
        for (ByteBuf read : alloc.oneByteEach(input)) {
            channel.writeInbound(read);
            for (Object m; (m = channel.readInbound()) != null; ) {
                out.add((BackendMessage) m);
            }
        }
        // Each message completes on its own read, so every forwarded-only message is a run of one.
        assertEquals(5, out.size());
        assertBytes(ROW_DESCRIPTION, out.get(0).bytes());
        assertEquals(0, assertInstanceOf(BackendMessage.Run.class, out.get(0)).dataRows());
        assertBytes(ROW_1, out.get(1).bytes());
        assertEquals(1, assertInstanceOf(BackendMessage.Run.class, out.get(1)).dataRows());
        assertBytes(ROW_2, out.get(2).bytes());
        assertFrame('C', SELECT_2, out.get(3));
        assertFrame('Z', READY_IDLE, out.get(4));
        release(out);
        assertFalse(channel.finish());
    }

    @Test
    void sharesTheInputInsteadOfCopyingIt() {
        ByteBuf input = alloc.copyOf(bytes(ROW_1, READY_IDLE, ROW_2)).retain();
        channel.writeInbound(input);
        BackendMessage.Run before = channel.readInbound();
        BackendMessage.Frame ready = channel.readInbound();
        BackendMessage.Run after = channel.readInbound();
        assertBytes(ROW_1, before.bytes());
        assertBytes(READY_IDLE, ready.bytes());
        assertBytes(ROW_2, after.bytes());

        // Same memory: a change to the input shows in the runs and the frame.
        int afterStart = ROW_1.length + READY_IDLE.length;
        input.setByte(11, '8');
        input.setByte(ROW_1.length + 5, 'T');
        input.setByte(afterStart + 11, '9');
        assertEquals('8', before.bytes().getByte(before.bytes().readerIndex() + 11));
        assertEquals('T', ready.body().getByte(0));
        assertEquals('9', after.bytes().getByte(after.bytes().readerIndex() + 11));

        before.bytes().release();
        ready.bytes().release();
        after.bytes().release();
        input.release();
        assertFalse(channel.finish());
    }

    @Test
    void acceptsAnEmptyBody() {
        List<BackendMessage> out = decode(bytes(BIND_COMPLETE, 'n', 0, 0, 0, 4));
        BackendMessage.Run run = assertInstanceOf(BackendMessage.Run.class, out.getFirst());
        assertEquals(10, run.bytes().readableBytes());
        release(out);
        assertFalse(channel.finish());
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 0, -1, 1 << 30, Integer.MAX_VALUE})
    void rejectsALengthBelowFourOrOfAGibibyteAndMore(int length) {
        DecoderException e = assertThrows(DecoderException.class,
                () -> channel.writeInbound(alloc.copyOf(bytes('D', int32(length), 0, 0, 0, 0))));
        ProtocolException violation = assertInstanceOf(ProtocolException.class, e.getCause());
        assertEquals("invalid message length from the server", violation.getMessage());
        assertNull(channel.readInbound());
        closeAfterViolation(channel);
    }

    @Test
    void passesOnWhatPrecedesABadLength() {
        DecoderException e = assertThrows(DecoderException.class,
                () -> channel.writeInbound(alloc.copyOf(bytes(READY_IDLE, ROW_1, 'D', 0, 0, 0, 2))));
        assertInstanceOf(ProtocolException.class, e.getCause());
        // The frame before the bad message was already handed on; the run after it was not.
        BackendMessage.Frame ready = channel.readInbound();
        assertFrame('Z', READY_IDLE, ready);
        ready.bytes().release();
        assertNull(channel.readInbound());
        closeAfterViolation(channel);
    }

    private List<BackendMessage> decode(byte[] input) {
        channel.writeInbound(alloc.copyOf(input));
        List<BackendMessage> out = new ArrayList<>();
        for (Object m; (m = channel.readInbound()) != null; ) {
            out.add((BackendMessage) m);
        }
        return out;
    }

    private static void assertFrame(char type, byte[] expected, Object message) {
        BackendMessage.Frame frame = assertInstanceOf(BackendMessage.Frame.class, message);
        assertEquals(type, frame.type());
        assertBytes(expected, frame.bytes());
    }

    private static void release(List<BackendMessage> messages) {
        messages.forEach(m -> m.bytes().release());
    }
}
