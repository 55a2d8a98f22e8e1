package io.pgward.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A page cursor: the statement of a capped result and the page that follows, as base64url JSON. It grants
 * nothing: a cursor's statement is run again, as the calling login, through the same guard as any other.
 */
record Cursor(String sql, long nextPage) {

    String encode() {
        ObjectNode node = JsonRows.JSON.createObjectNode().put("sql", sql).put("page", nextPage);
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(node.toString().getBytes(StandardCharsets.UTF_8));
    }

    static Cursor decode(String text) {
        try {
            JsonNode node = JsonRows.JSON.readTree(Base64.getUrlDecoder().decode(text.strip()));
            if (node.path("sql").isTextual() && node.path("page").canConvertToLong()
                    && node.get("page").asLong() >= 1) {
                return new Cursor(node.get("sql").asText(), node.get("page").asLong());
            }
        } catch (IllegalArgumentException | java.io.IOException e) {
            // falls through to the one error below
        }
        throw new ToolError("cursor is not a cursor from an earlier query result.");
    }
}
