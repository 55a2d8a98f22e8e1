package io.pgward.wire.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.Unpooled;
import io.pgward.wire.protocol.FrontendMessage;
import org.junit.jupiter.api.Test;

class VerdictsTest {

    private static FrontendMessage.Parse parse(String sql, int... types) {
        return new FrontendMessage.Parse("", sql, types, Unpooled.EMPTY_BUFFER);
    }

    @Test
    void countsTheHighestParameterOrTheTypesGiven() {
        assertEquals(3, Verdicts.parameterCount(parse("select $3, $1"), true));
        assertEquals(5, Verdicts.parameterCount(parse("select $3", 0, 0, 0, 0, 0), true));
        assertEquals(0, Verdicts.parameterCount(parse("select '$4'"), true));
    }

    @Test
    void countsNoMoreParametersThanABindCarries() {
        // The statement put in place of an answered one gets one condition per parameter: a number in the text
        // must not size it.
        assertEquals(65_535, Verdicts.parameterCount(parse("select $2000000000"), true));
        assertEquals(65_535, Verdicts.parameterCount(parse("select $65535"), true));
    }
}
