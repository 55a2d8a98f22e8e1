package io.pgward.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class CursorTest {

    @Test
    void aCursorCarriesTheStatementAndTheNextPage() {
        Cursor cursor = new Cursor("SELECT 'ä' FROM t ORDER BY 1", 3);
        assertEquals(cursor, Cursor.decode(cursor.encode()));
    }

    @Test
    void anythingElseIsNotACursor() {
        for (String text : new String[] {"", "abc", "eyJzcWwiOjF9", new Cursor("x", 1).encode() + "!!"}) {
            assertThrows(ToolError.class, () -> Cursor.decode(text), text);
        }
    }
}
