package io.pgward.nl;

import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.ollama.OllamaChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.util.Set;

/**
 * LangChain4j chat models from {@link ProviderConfig}. Retries are left to the validate-and-retry loop (one
 * HTTP attempt per model call), so a failing provider fails the question quickly instead of multiplying delays.
 * No sampling temperature is sent: several current models accept only their default and refuse any other.
 */
public final class ChatModels {

    private ChatModels() {
    }

    public static ChatModel create(ProviderConfig config) {
        Set<Capability> capabilities = config.jsonSchema() ? Set.of(Capability.RESPONSE_FORMAT_JSON_SCHEMA) : Set.of();
        return switch (config) {
            case ProviderConfig.OpenAiCompatible openAi -> OpenAiChatModel.builder()
                    .baseUrl(openAi.baseUrl().toString())
                    // OpenAI-compatible local servers take any key; the client library requires one.
                    .apiKey(openAi.apiKey().orElse("none"))
                    .modelName(openAi.model())
                    .timeout(openAi.timeout())
                    .maxRetries(0)
                    .strictJsonSchema(true)
                    .supportedCapabilities(capabilities)
                    .build();
            case ProviderConfig.Anthropic anthropic -> {
                AnthropicChatModel.AnthropicChatModelBuilder builder = AnthropicChatModel.builder()
                        .apiKey(anthropic.apiKey())
                        .modelName(anthropic.model())
                        .timeout(anthropic.timeout())
                        .maxTokens(anthropic.maxTokens())
                        .maxRetries(0)
                        .supportedCapabilities(capabilities);
                anthropic.baseUrl().ifPresent(url -> builder.baseUrl(url.toString()));
                yield builder.build();
            }
            case ProviderConfig.Ollama ollama -> OllamaChatModel.builder()
                    .baseUrl(ollama.baseUrl().toString())
                    .modelName(ollama.model())
                    .timeout(ollama.timeout())
                    .maxRetries(0)
                    .supportedCapabilities(capabilities)
                    .build();
        };
    }
}
