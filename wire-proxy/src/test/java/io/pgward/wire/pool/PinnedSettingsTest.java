package io.pgward.wire.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

    private static final PinnedSettings ONE_SECOND = new PinnedSettings(1000L, null);
    private static final PinnedSettings SELECTION = new PinnedSettings(1000L, "notice");

    @Test
    void startsTheSessionWithThePolicysValues() {
        assertEquals(Map.of("client_encoding", "UTF8", "standard_conforming_strings", "on",
                "default_transaction_read_only", "on", "statement_timeout", "1000"), ONE_SECOND.startupParameters());
        assertEquals(Map.of("client_encoding", "UTF8", "standard_conforming_strings", "on",
                "default_transaction_read_only", "on"), new PinnedSettings(null, null).startupParameters());
        assertEquals(Map.of("client_encoding", "UTF8", "standard_conforming_strings", "on",
                "default_transaction_read_only", "on", "statement_timeout", "1000", "client_min_messages", "notice"),
                SELECTION.startupParameters());
    }

    @Test
    void pinsOnlyALevelThatKeepsLogAndDebugOut() {
        for (String level : List.of("info", "notice", "warning", "error", "WARNING")) {
            assertEquals(level, new PinnedSettings(null, level).startupParameters().get("client_min_messages"));
        }
        for (String level : List.of("log", "debug1", "debug", "DEBUG5", "", "notice ")) {
            assertThrows(IllegalArgumentException.class, () -> new PinnedSettings(null, level), level);
        }
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
        assertNull(ONE_SECOND.checkViolation(row("1000", "none", "notice")));
        assertNull(new PinnedSettings(null, null).checkViolation(row("0", "none", "notice")));
        assertEquals("statement_timeout is 0 ms (pgward needs 1000 ms)",
                ONE_SECOND.checkViolation(row("0", "none", "notice")));
        assertEquals("transaction_read_only is off (pgward needs on)",
                ONE_SECOND.checkViolation(List.of("UTF8", "on", "on", "off", "1000", "none", "notice")));
        assertEquals("role is admin (pgward needs none)", ONE_SECOND.checkViolation(row("1000", "admin", "notice")));
        assertEquals("pgward could not read the session's settings", ONE_SECOND.checkViolation(null));
        assertEquals("pgward could not read the session's settings",
                ONE_SECOND.checkViolation(List.of("UTF8", "on", "on", "on", "1000", "none")));
        assertEquals("role is null (pgward needs none)", ONE_SECOND.checkViolation(row("1000", null, "notice")));
    }

    @Test
    void aSelectionsSessionMustKeepLogAndDebugMessagesOut() {
        for (String level : List.of("info", "notice", "warning", "error")) {
            assertNull(SELECTION.checkViolation(row("1000", "none", level)), level);
        }
        for (String level : List.of("log", "debug1", "debug2", "debug5")) {
            assertEquals("client_min_messages is " + level + " (pgward needs notice or above)",
                    SELECTION.checkViolation(row("1000", "none", level)));
        }
        assertEquals("client_min_messages is null (pgward needs notice or above)",
                SELECTION.checkViolation(row("1000", "none", null)));
        // Without a selection the server's level stands, whatever it is.
        assertNull(ONE_SECOND.checkViolation(row("1000", "none", "debug5")));
        assertNull(ONE_SECOND.checkViolation(row("1000", "none", "log")));
    }

    /** A check row with the fixed settings as pinned and these statement_timeout, role and client_min_messages. */
    private static List<String> row(String statementTimeout, String role, String clientMinMessages) {
        return Arrays.asList("UTF8", "on", "on", "on", statementTimeout, role, clientMinMessages);
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
