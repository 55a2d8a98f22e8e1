package io.pgward.nl;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The validate-and-retry loop, for any query language: ask the model, check what it wrote with the
 * {@link ProposalCheck}, and when it is rejected feed the query and the exact reason back in the same conversation,
 * up to the configured number of attempts. Nothing generated is executed here. A provider that supports a
 * JSON-schema response format is asked for the language's structured reply.
 */
public final class QueryGenerator {

    private final ChatModel model;
    private final int maxAttempts;
    private final QueryLanguage language;

    public QueryGenerator(ChatModel model, int maxAttempts, QueryLanguage language) {
        this.model = Objects.requireNonNull(model, "model");
        this.maxAttempts = maxAttempts;
        this.language = Objects.requireNonNull(language, "language");
    }

    /**
     * @param prompt the system message and the question
     * @param listener told of every attempt as it is decided
     */
    public Generation generate(List<ChatMessage> prompt, ProposalCheck check, Listener listener) {
        List<ChatMessage> conversation = new ArrayList<>(prompt);
        List<Attempt> attempts = new ArrayList<>();
        boolean jsonSchema = model.supportedCapabilities().contains(Capability.RESPONSE_FORMAT_JSON_SCHEMA);
        for (int number = 1; number <= maxAttempts; number++) {
            String text;
            try {
                ChatRequest.Builder request = ChatRequest.builder().messages(List.copyOf(conversation));
                if (jsonSchema) {
                    request.responseFormat(language.responseFormat());
                }
                ChatResponse response = model.chat(request.build());
                text = response.aiMessage().text();
            } catch (RuntimeException e) {
                return new Generation.ProviderFailed("the LLM provider failed: " + describe(e), attempts);
            }
            conversation.add(AiMessage.from(text == null ? "" : text));
            ModelReply reply;
            try {
                reply = ModelReply.parse(text, language.replyField());
            } catch (ModelReply.InvalidReply e) {
                Attempt attempt = new Attempt(number, "", Optional.of(e.getMessage()));
                attempts.add(attempt);
                listener.attempt(attempt);
                conversation.add(Prompt.unreadable(e.getMessage(), language.replyField()));
                continue;
            }
            if (!reply.isValid()) {
                return new Generation.NotAboutDatabase(reply.answer(), attempts);
            }
            ProposalCheck.Outcome outcome = check.check(reply.sql());
            Optional<String> problem = outcome instanceof ProposalCheck.Rejected rejected
                    ? Optional.of(rejected.problem()) : Optional.empty();
            Attempt attempt = new Attempt(number, reply.sql(), problem);
            attempts.add(attempt);
            listener.attempt(attempt);
            if (outcome instanceof ProposalCheck.Passed passed) {
                return new Generation.Valid(passed.query(), attempts);
            }
            conversation.add(Prompt.feedback(reply.sql(), problem.orElseThrow()));
        }
        return new Generation.Exhausted(attempts);
    }

    private static String describe(RuntimeException e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }

    @FunctionalInterface
    public interface Listener {
        void attempt(Attempt attempt);
    }
}
