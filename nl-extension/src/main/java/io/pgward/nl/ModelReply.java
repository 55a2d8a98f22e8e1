package io.pgward.nl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchema;
import java.util.Optional;

/**
 * The structured reply the model is asked for: {@code {"isValid": bool, "sql": string, "answer": string}}, the
 * query under the language's field ({@code sql}, {@code aql}); {@code sql} holds it whatever the language.
 * {@code isValid} false means the question is not a question about this database, and {@code answer} says so
 * in prose; nothing runs then.
 */
record ModelReply(boolean isValid, String sql, String answer) {

    /** The JSON-schema response format of a reply whose query is under {@code field}. */
    static ResponseFormat format(String schemaName, String field, String fieldDescription) {
        return ResponseFormat.builder()
                .type(ResponseFormatType.JSON)
                .jsonSchema(JsonSchema.builder()
                        .name(schemaName)
                        .rootElement(JsonObjectSchema.builder()
                                .addBooleanProperty("isValid",
                                        "true when the question can be answered with a query on this database")
                                .addStringProperty(field, fieldDescription)
                                .addStringProperty("answer", "when isValid is false: a short answer for the user")
                                .required("isValid", field, "answer")
                                .additionalProperties(false)
                                .build())
                        .build())
                .build();
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A reply with the query under {@code sql}. */
    static ModelReply parse(String text) throws InvalidReply {
        return parse(text, QueryLanguage.SQL.replyField());
    }

    /**
     * The reply in {@code text}, with the query under {@code field}, tolerating a Markdown fence or prose around
     * the JSON object; else the problem.
     */
    static ModelReply parse(String text, String field) throws InvalidReply {
        if (text == null || text.isBlank()) {
            throw new InvalidReply("the reply was empty");
        }
        int open = text.indexOf('{');
        int close = text.lastIndexOf('}');
        if (open < 0 || close < open) {
            throw new InvalidReply("the reply was not the JSON object asked for");
        }
        JsonNode node;
        try {
            node = JSON.readTree(text.substring(open, close + 1));
        } catch (Exception e) {
            throw new InvalidReply("the reply was not valid JSON");
        }
        boolean valid = isValid(node.get("isValid"));
        String sql = withoutFence(text(node, field).orElse(""));
        String answer = text(node, "answer").orElse("");
        if (valid && sql.isBlank()) {
            throw new InvalidReply("the reply said isValid true but its " + field + " was empty");
        }
        return new ModelReply(valid, sql, answer.strip());
    }

    /** A boolean, or the string "true" / "false" that models without a JSON-schema mode sometimes write. */
    private static boolean isValid(JsonNode value) throws InvalidReply {
        if (value != null && value.isBoolean()) {
            return value.booleanValue();
        }
        if (value != null && value.isTextual() && (value.asText().equals("true") || value.asText().equals("false"))) {
            return Boolean.parseBoolean(value.asText());
        }
        throw new InvalidReply("the reply had no boolean isValid");
    }

    /** The query without a Markdown code fence around it, which some models put inside the JSON string too. */
    private static String withoutFence(String sql) {
        String text = sql.strip();
        if (text.startsWith("```") && text.endsWith("```") && text.length() >= 6) {
            int firstLineEnd = text.indexOf('\n');
            text = firstLineEnd < 0 ? text.substring(3, text.length() - 3)
                    : text.substring(firstLineEnd + 1, text.length() - 3);
        }
        return text.strip();
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
    }

    static final class InvalidReply extends Exception {
        InvalidReply(String message) {
            super(message);
        }
    }
}
