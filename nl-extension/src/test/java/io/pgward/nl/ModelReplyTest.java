package io.pgward.nl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ModelReplyTest {

    @Test
    void readsTheJsonObjectWithOrWithoutAFence() throws Exception {
        assertEquals(new ModelReply(true, "SELECT 1 LIMIT 1", ""),
                ModelReply.parse("{\"isValid\": true, \"sql\": \" SELECT 1 LIMIT 1 \", \"answer\": \"\"}"));
        assertEquals(new ModelReply(true, "SELECT 1 LIMIT 1", ""),
                ModelReply.parse("Here it is:\n```json\n{\"isValid\": \"true\", \"sql\": \"```sql\\nSELECT 1 LIMIT 1\\n```\"}\n```"));
        assertEquals(new ModelReply(false, "", "Only questions about the shop."),
                ModelReply.parse("{\"isValid\": false, \"sql\": null, \"answer\": \"Only questions about the shop.\"}"));
    }

    @Test
    void unusableRepliesSayWhy() {
        assertEquals("the reply was empty", assertThrows(ModelReply.InvalidReply.class,
                () -> ModelReply.parse(" ")).getMessage());
        assertEquals("the reply was not the JSON object asked for", assertThrows(ModelReply.InvalidReply.class,
                () -> ModelReply.parse("SELECT 1")).getMessage());
        assertEquals("the reply was not valid JSON", assertThrows(ModelReply.InvalidReply.class,
                () -> ModelReply.parse("{isValid: true}")).getMessage());
        assertEquals("the reply had no boolean isValid", assertThrows(ModelReply.InvalidReply.class,
                () -> ModelReply.parse("{\"sql\": \"SELECT 1\"}")).getMessage());
        assertEquals("the reply said isValid true but its sql was empty", assertThrows(ModelReply.InvalidReply.class,
                () -> ModelReply.parse("{\"isValid\": true, \"sql\": \"\", \"answer\": \"\"}")).getMessage());
    }
}
