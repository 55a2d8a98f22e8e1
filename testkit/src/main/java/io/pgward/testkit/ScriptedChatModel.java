package io.pgward.testkit;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * A chat model that replies from a script, in order, and records every request; no network. Asked once more than
 * the script allows, it fails the test. Replies are any text; {@link #valid} and {@link #notAboutTheDatabase}
 * write pgward's structured reply, {@code {"isValid": ..., "<query field>": "...", "answer": "..."}}, for SQL or
 * AQL.
 */
public final class ScriptedChatModel implements ChatModel {

    /** The query languages of the structured reply, by the key its query goes under. */
    public enum Language {
        SQL("sql"), AQL("aql");

        private final String replyField;

        Language(String replyField) {
            this.replyField = replyField;
        }
    }

    private final Deque<String> replies;
    private final List<ChatRequest> requests = new ArrayList<>();

    public ScriptedChatModel(String... replies) {
        this.replies = new ArrayDeque<>(List.of(replies));
    }

    /** The structured reply that proposes {@code query}. */
    public static String valid(Language language, String query) {
        return reply(true, language, query, "");
    }

    /** The structured reply of a question that is not about the database, answered in words. */
    public static String notAboutTheDatabase(Language language, String answer) {
        return reply(false, language, "", answer);
    }

    private static String reply(boolean isValid, Language language, String query, String answer) {
        return "{\"isValid\": " + isValid + ", \"" + language.replyField + "\": " + jsonString(query)
                + ", \"answer\": " + jsonString(answer) + "}";
    }

    private static String jsonString(String text) {
        StringBuilder json = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"').toString();
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        requests.add(request);
        if (replies.isEmpty()) {
            throw new AssertionError("the model was asked more often than the script allows");
        }
        return ChatResponse.builder().aiMessage(AiMessage.from(replies.removeFirst())).build();
    }

    @Override
    public Set<Capability> supportedCapabilities() {
        return Set.of(Capability.RESPONSE_FORMAT_JSON_SCHEMA);
    }

    /** Every request so far, in order. */
    public List<ChatRequest> requests() {
        return requests;
    }

    /** The system message of request {@code request} (0 is the first). */
    public String systemText(int request) {
        return ((SystemMessage) requests.get(request).messages().getFirst()).text();
    }

    /** The last user message of request {@code request} (0 is the first). */
    public String lastUserText(int request) {
        return ((UserMessage) requests.get(request).messages().getLast()).singleText();
    }
}
