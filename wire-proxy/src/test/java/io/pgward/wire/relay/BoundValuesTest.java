package io.pgward.wire.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.pgward.guard.Verdict;
import io.pgward.wire.protocol.Wire;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Bind values read for type-name checks, the stand-in bound in place of a refused value, and the server's
 * CONTEXT line turned back into the one the value would have given, for each way the server shows a value.
 */
class BoundValuesTest {

    private static ByteBuf bind(int[] formats, byte[]... values) {
        return Wire.message(ByteBufAllocator.DEFAULT, 'B', buf -> {
            Wire.writeCString(buf, "");
            Wire.writeCString(buf, "s1");
            buf.writeShort(formats.length);
            for (int f : formats) {
                buf.writeShort(f);
            }
            buf.writeShort(values.length);
            for (byte[] v : values) {
                if (v == null) {
                    buf.writeInt(-1);
                } else {
                    buf.writeInt(v.length);
                    buf.writeBytes(v);
                }
            }
            buf.writeShort(0);
        });
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void onlyValidTextValuesAreRead() throws Exception {
        ByteBuf frame = bind(new int[] {0, 1, 0, 0}, utf8("hr.kind"), new byte[] {0, 0, 64, 0}, null,
                new byte[] {(byte) 0xC3});
        Map<Integer, String> expected = new HashMap<>();
        expected.put(1, "hr.kind");
        expected.put(2, null);
        expected.put(3, null);
        expected.put(4, null);
        assertEquals(expected, BoundValues.text(frame, regtype(1, 2, 3, 4)));
        assertEquals(Map.of(1, "hr.kind"), BoundValues.text(frame, regtype(1)));
        frame.release();
    }

    private static List<Verdict.TypeNameParameter> regtype(int... numbers) {
        return java.util.Arrays.stream(numbers).mapToObj(n -> new Verdict.TypeNameParameter(n, false)).toList();
    }

    /** A text parameter's binary value is its text's bytes: a name, where a regtype's is an OID. */
    @Test
    void aTextParametersBinaryValueIsReadAsItsName() throws Exception {
        ByteBuf frame = bind(new int[] {1, 1}, utf8("hr.kind"), utf8("hr.kind"));
        Map<Integer, String> expected = new HashMap<>();
        expected.put(1, "hr.kind");
        expected.put(2, null);
        assertEquals(expected, BoundValues.text(frame, List.of(new Verdict.TypeNameParameter(1, true),
                new Verdict.TypeNameParameter(2, false))));
        assertEquals(Map.of(), BoundValues.text(frame, List.of(new Verdict.TypeNameParameter(3, true))));
        frame.release();
    }

    @Test
    void theStandInReplacesOneValueAndIsNoShorter() throws Exception {
        ByteBuf frame = bind(new int[0], utf8("a"), utf8("hr.order_status"));
        String standIn = BoundValues.standIn("pgward_refused_1_1", "hr.order_status(1, 2, 3, 4, 5)");
        assertTrue(standIn.length() >= "hr.order_status(1, 2, 3, 4, 5)".length(), standIn);
        assertTrue(standIn.startsWith("pgward_refused_1_1(0"), standIn);
        ByteBuf replaced = BoundValues.replacing(ByteBufAllocator.DEFAULT, frame, 2, standIn);
        assertEquals(Map.of(1, "a", 2, standIn), BoundValues.text(replaced, regtype(1, 2)));
        frame.release();
        replaced.release();
        assertEquals("pgward_refused_1_1", BoundValues.standIn("pgward_refused_1_1", "hr.kind"));
        assertEquals("pgward_refused_1_1.t", BoundValues.standIn("pgward_refused_1_1", "hr.kind", true));
    }

    @Test
    void theContextShowsTheValueAsTheServerWouldHave() {
        String standIn = BoundValues.standIn("pgward_refused_9_2", "hr.order_status");
        assertEquals("unnamed portal parameter $1 = '...'",
                BoundValues.context("unnamed portal parameter $1 = '...'", standIn, "hr.order_status"));
        assertEquals("portal \"p\" parameter $2 = 'hr.order_status'",
                BoundValues.context("portal \"p\" parameter $2 = '" + standIn + "'", standIn, "hr.order_status"));
        assertEquals("unnamed portal parameter $1 = 'hr.or...'",
                BoundValues.context("unnamed portal parameter $1 = 'pgwar...'", standIn, "hr.order_status"));
        assertEquals("unnamed portal parameter $1 = 'hr.ü...'",
                BoundValues.context("unnamed portal parameter $1 = 'pgwar...'", standIn, "hr.üxyz"));
        assertEquals("unnamed portal parameter $1 = 'ab'",
                BoundValues.context("unnamed portal parameter $1 = 'pgwar...'", standIn, "ab"));
    }
}
