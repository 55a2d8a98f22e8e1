package io.pgward.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PositionsTest {

    private static final String TEXT = "SELECT '\uD83D\uDE00', 'é' x";

    @Test
    void aCharacterOutsideTheBmpIsOneCharacterAndTwoUnits() {
        // x is PostgreSQL's 17th character and Java's 18th unit.
        assertEquals(18, Positions.inUtf16(TEXT, 17));
        assertEquals(17, Positions.inCharacters(TEXT, 18));
        assertEquals(9, Positions.inUtf16(TEXT, 9));
        assertEquals(9, Positions.inCharacters(TEXT, 9));
        assertEquals(11, Positions.inUtf16(TEXT, 10));
    }

    @Test
    void everyCharacterGoesThereAndBack() {
        for (int p = 1; p <= TEXT.codePointCount(0, TEXT.length()) + 1; p++) {
            assertEquals(p, Positions.inCharacters(TEXT, Positions.inUtf16(TEXT, p)), "character " + p);
        }
    }

    @Test
    void noneStaysNoneAndPastTheEndIsJustAfterIt() {
        assertEquals(0, Positions.inUtf16(TEXT, 0));
        assertEquals(0, Positions.inCharacters(TEXT, 0));
        assertEquals(TEXT.length() + 1, Positions.inUtf16(TEXT, 1000));
        assertEquals(TEXT.codePointCount(0, TEXT.length()) + 1, Positions.inCharacters(TEXT, 1000));
    }
}
