package io.pgward.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class SelectionBlockTest {

    private static ObjectNode described(String name, String kind, String comment, String... columns) {
        ObjectNode node = JsonRows.JSON.createObjectNode().put("name", name).put("kind", kind);
        if (comment != null) {
            node.put("comment", comment);
        }
        var array = node.putArray("columns");
        for (String column : columns) {
            array.add(column);
        }
        return node;
    }

    @Test
    void aLineNamesKindColumnsAndTheCommentOnOneLine() {
        assertEquals("- public.orders (table): id, \"Order Date\" — One row\tper order.".replace("\t", " "),
                SelectionBlock.line(described("public.orders", "table", "One row\n\tper order.",
                        "id integer not null", "\"Order Date\" date -- when")));
    }

    @Test
    void moreThanTwelveColumnsAreCutAndALongCommentTooAndNoCommentHasNoDash() {
        String[] columns = new String[14];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = "c" + i + " text";
        }
        assertEquals("- s.t (view): c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, …",
                SelectionBlock.line(described("s.t", "view", null, columns)));
        String line = SelectionBlock.line(described("s.t", "table", "x".repeat(200), "a int"));
        assertEquals("- s.t (table): a — " + "x".repeat(120), line);
        assertEquals("- s.e (table): nothing here", SelectionBlock.line(described("s.e", "table", "nothing here")));
    }

    @Test
    void withoutADatabaseEachLineIsTheNameAlone() {
        assertEquals("\n\nOnly these relations can be queried.\n- public.a\n- \"S 1\".b",
                SelectionBlock.of(List.of("public.a", "\"S 1\".b"), null));
        assertEquals("", SelectionBlock.of(List.of(), null));
    }
}
