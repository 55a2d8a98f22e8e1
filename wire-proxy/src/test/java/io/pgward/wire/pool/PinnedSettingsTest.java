package io.pgward.wire.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.pgward.wire.protocol.Wire;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pins of a read-only backend session: what they start it with and which reports and rows break them. */
class PinnedSettingsTest {

    private static final PinnedSettings ONE_SECOND = new PinnedSettings(1000L);

    @Test
    void startsTheSessionWithThePolicysValues() {
        assertEquals(Map.of("client_encoding", "UTF8", "standard_conforming_strings", "on",
                "default_transaction_read_only", "on", "statement_timeout", "1000"), ONE_SECOND.startupParameters());
        assertEquals(Map.of("client_encoding", "UTF8", "standard_conforming_strings", "on",
                "default_transaction_read_only", "on"), new PinnedSettings(null).startupParameters());
    }

    @Test
    void judgesParameterStatusReports() {
        assertNull(ONE_SECOND.violation("client_encoding", "UTF8"));
        assertNull(ONE_SECOND.violation("TimeZone", "Asia/Tokyo"));
        assertEquals("client_encoding is SJIS (pgward needs UTF8)", ONE_SECOND.violation("client_encoding", "SJIS"));
        assertEquals("standard_conforming_strings is off (pgward needs on)",
                ONE_SECOND.violation("standard_conforming_strings", "off"));
        assertEquals("default_transaction_read_only is off (pgward needs on)",
                ONE_SECOND.violation("default_transaction_read_only", "off"));
    }

    @Test
    void judgesTheRowOfTheCheckQuery() {
        assertNull(ONE_SECOND.checkViolation(List.of("UTF8", "on", "on", "on", "1000", "none")));
        assertNull(new PinnedSettings(null).checkViolation(List.of("UTF8", "on", "on", "on", "0", "none")));
        assertEquals("statement_timeout is 0 ms (pgward needs 1000 ms)",
                ONE_SECOND.checkViolation(List.of("UTF8", "on", "on", "on", "0", "none")));
        assertEquals("transaction_read_only is off (pgward needs on)",
                ONE_SECOND.checkViolation(List.of("UTF8", "on", "on", "off", "1000", "none")));
        assertEquals("role is admin (pgward needs none)",
                ONE_SECOND.checkViolation(List.of("UTF8", "on", "on", "on", "1000", "admin")));
        assertEquals("pgward could not read the session's settings", ONE_SECOND.checkViolation(null));
        assertEquals("role is null (pgward needs none)",
                ONE_SECOND.checkViolation(Arrays.asList("UTF8", "on", "on", "on", "1000", null)));
    }

    @Test
    void readsTheFirstDataRowOfARun() {
        ByteBuf description = Wire.message(UnpooledByteBufAllocator.DEFAULT, 'T', b -> b.writeShort(0));
        ByteBuf row = Wire.message(UnpooledByteBufAllocator.DEFAULT, 'D', b -> {
            b.writeShort(3);
            byte[] utf8 = "UTF8".getBytes(StandardCharsets.UTF_8);
            b.writeInt(utf8.length).writeBytes(utf8);
            b.writeInt(-1);
            b.writeInt(0);
        });
        ByteBuf run = Unpooled.buffer();
        ByteBuf empty = Unpooled.buffer();
        try {
            run.writeBytes(description).writeBytes(row);
            assertEquals(Arrays.asList("UTF8", null, ""), BackendStartup.firstRow(run));
            assertNull(BackendStartup.firstRow(empty));
        } finally {
            description.release();
            row.release();
            run.release();
            empty.release();
        }
    }
}
