package io.pgward.nl;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The validate-and-retry loop: ask the model, check what it wrote (guard and EXPLAIN through the
 * {@link StatementValidator}, after the one-query shape check), and when it is rejected feed the statement and
 * the exact reason back in the same conversation, up to the configured number of attempts. Nothing generated
 * is executed here.
 */
final class SqlGenerator {

    private final ChatModel model;
    private final int maxAttempts;

    SqlGenerator(ChatModel model, int maxAttempts) {
        this.model = model;
        this.maxAttempts = maxAttempts;
    }

    Generation generate(List<ChatMessage> prompt, StatementValidator validator, Listener listener) {
        List<ChatMessage> conversation = new ArrayList<>(prompt);
        List<Attempt> attempts = new ArrayList<>();
        boolean jsonSchema = model.supportedCapabilities().contains(Capability.RESPONSE_FORMAT_JSON_SCHEMA);
        for (int number = 1; number <= maxAttempts; number++) {
            String text;
            try {
                ChatRequest.Builder request = ChatRequest.builder().messages(List.copyOf(conversation));
                if (jsonSchema) {
                    request.responseFormat(ModelReply.FORMAT);
                }
                ChatResponse response = model.chat(request.build());
                text = response.aiMessage().text();
            } catch (RuntimeException e) {
                return new Generation.ProviderFailed("the LLM provider failed: " + describe(e), attempts);
            }
            conversation.add(AiMessage.from(text == null ? "" : text));
            ModelReply reply;
            try {
                reply = ModelReply.parse(text);
            } catch (ModelReply.InvalidReply e) {
                Attempt attempt = new Attempt(number, "", Optional.of(e.getMessage()));
                attempts.add(attempt);
                listener.attempt(attempt);
                conversation.add(Prompt.unreadable(e.getMessage()));
                continue;
            }
            if (!reply.isValid()) {
                return new Generation.NotAboutDatabase(reply.answer(), attempts);
            }
            Optional<String> problem = validator.problem(reply.sql());
            if (problem.isEmpty()) {
                problem = shapeProblem(reply.sql());
            }
            Attempt attempt = new Attempt(number, reply.sql(), problem);
            attempts.add(attempt);
            listener.attempt(attempt);
            if (problem.isEmpty()) {
                return new Generation.Valid(((QueryShape.Query) QueryShape.check(reply.sql())).text(), attempts);
            }
            conversation.add(Prompt.feedback(reply.sql(), problem.get()));
        }
        return new Generation.Exhausted(attempts);
    }

    private static Optional<String> shapeProblem(String sql) {
        return QueryShape.check(sql) instanceof QueryShape.Problem problem ? Optional.of(problem.message())
                : Optional.empty();
    }

    private static String describe(RuntimeException e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }

    @FunctionalInterface
    interface Listener {
        void attempt(Attempt attempt);
    }
}
