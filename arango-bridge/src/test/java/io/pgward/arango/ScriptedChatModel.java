package io.pgward.arango;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
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

/** A chat model that replies from a script, in order, and records every request; no network. */
final class ScriptedChatModel implements ChatModel {

    private final Deque<String> replies;
    final List<ChatRequest> requests = new ArrayList<>();

    ScriptedChatModel(String... replies) {
        this.replies = new ArrayDeque<>(List.of(replies));
    }

    /** The structured reply with {@code aql} as the query. */
    static String valid(String aql) {
        return "{\"isValid\": true, \"aql\": \"" + aql.replace("\\", "\\\\").replace("\"", "\\\"")
                .replace("\n", "\\n") + "\", \"answer\": \"\"}";
    }

    static String notAboutTheDatabase(String answer) {
        return "{\"isValid\": false, \"aql\": \"\", \"answer\": \"" + answer + "\"}";
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

    String systemText(int request) {
        return ((SystemMessage) requests.get(request).messages().getFirst()).text();
    }

    String lastUserText(int request) {
        List<ChatMessage> messages = requests.get(request).messages();
        return ((UserMessage) messages.getLast()).singleText();
    }
}
