package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuietPatternsTest {

    @Test
    void acceptsTheNamePatternsOfPsqlAndTheDrivers() {
        for (String p : List.of("^(orders)$", "^pg_toast", "^pg_", "^(pg_.*|information_schema)$", "^(ord.rs)$",
                "^(a\\$b)$", "[a-z_]+", "[^0-9]", "^(orders|customers)$", "x?y*z+", "a\\.b")) {
            assertTrue(QuietPatterns.regex(p), p);
        }
    }

    @Test
    void refusesPatternsThatCanFailOrBacktrack() {
        for (String p : List.of("", "(", ")", "(a)\\1", "a{1,100}", "a{2}", "(?i)a", "***:a", "*a", "a**", "a*?",
                "a+*", "[z-a]", "[a-9]", "[[:alpha:]]", "[]a]", "[a", "\\d", "\\w+", "\\", "()", "a|", "|a", "^*",
                "$+", "(a|)", "é", "a\tb", "((((((((((a))))))))))", "x".repeat(QuietPatterns.MAX_LENGTH + 1))) {
            assertFalse(QuietPatterns.regex(p), p);
        }
    }

    @Test
    void likePatternsMustNotEndInAnEscape() {
        assertTrue(QuietPatterns.like("pg\\_%"));
        assertTrue(QuietPatterns.like("%"));
        assertTrue(QuietPatterns.like("a\\\\"));
        assertFalse(QuietPatterns.like("w\\"));
        assertFalse(QuietPatterns.like("a\\\\\\"));
        assertFalse(QuietPatterns.like("%".repeat(QuietPatterns.MAX_LENGTH + 1)));
    }

    @Test
    void readsTextDatumsWithEitherHeader() {
        byte[] body = "^pg_".getBytes(StandardCharsets.US_ASCII);
        byte[] four = new byte[4 + body.length];
        four[0] = (byte) ((four.length << 2) & 0xFF);
        System.arraycopy(body, 0, four, 4, body.length);
        assertEquals("^pg_", QuietPatterns.asciiText(new TreeValue.Datum(four.length, four)));
        byte[] one = new byte[1 + body.length];
        one[0] = (byte) ((one.length << 1) | 1);
        System.arraycopy(body, 0, one, 1, body.length);
        assertEquals("^pg_", QuietPatterns.asciiText(new TreeValue.Datum(one.length, one)));
        four[5] = (byte) 0xC3;
        assertNull(QuietPatterns.asciiText(new TreeValue.Datum(four.length, four)));
        assertNull(QuietPatterns.asciiText(new TreeValue.Datum(3, new byte[] {12, 0, 0})));
    }
}
