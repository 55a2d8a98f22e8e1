package io.pgward.nl;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One LLM provider, as configured under {@code nl.provider}. API keys are secrets: the proxy's loader fills them
 * from the environment ({@code ${OPENAI_API_KEY}}), and {@code toString} never shows them.
 */
public sealed interface ProviderConfig {

    String model();

    Duration timeout();

    /** Whether to ask for the reply with the provider's JSON-schema response format. */
    boolean jsonSchema();

    /**
     * Any server speaking OpenAI's chat-completions API: OpenAI itself, vLLM, llama.cpp's server, LM Studio.
     *
     * @param baseUrl e.g. {@code https://api.openai.com/v1} or {@code http://localhost:8000/v1}
     * @param apiKey empty for local servers that take none
     */
    record OpenAiCompatible(URI baseUrl, String model, Optional<String> apiKey, Duration timeout, boolean jsonSchema)
            implements ProviderConfig {

        public OpenAiCompatible {
            Objects.requireNonNull(baseUrl, "nl.provider.base_url");
            requireText(model, "nl.provider.model");
            Objects.requireNonNull(apiKey, "nl.provider.api_key");
            requirePositive(timeout, "nl.provider.timeout");
        }

        @Override
        public String toString() {
            return "OpenAiCompatible[baseUrl=" + baseUrl + ", model=" + model + ", apiKey="
                    + apiKey.map(k -> "<redacted>").orElse("<none>") + ", timeout=" + timeout + ", jsonSchema="
                    + jsonSchema + "]";
        }
    }

    /** Anthropic's Messages API; {@code baseUrl} empty for Anthropic's own endpoint. */
    record Anthropic(Optional<URI> baseUrl, String model, String apiKey, Duration timeout, int maxTokens,
                     boolean jsonSchema) implements ProviderConfig {

        /** The reply length limit the Messages API requires; a query and a short answer fit easily. */
        public static final int DEFAULT_MAX_TOKENS = 1024;

        public Anthropic {
            Objects.requireNonNull(baseUrl, "nl.provider.base_url");
            requireText(model, "nl.provider.model");
            requireText(apiKey, "nl.provider.api_key");
            requirePositive(timeout, "nl.provider.timeout");
            if (maxTokens < 1) {
                throw new IllegalArgumentException("nl.provider.max_tokens must be at least 1, was " + maxTokens);
            }
        }

        @Override
        public String toString() {
            return "Anthropic[baseUrl=" + baseUrl.map(URI::toString).orElse("<default>") + ", model=" + model
                    + ", apiKey=<redacted>, timeout=" + timeout + ", maxTokens=" + maxTokens + ", jsonSchema="
                    + jsonSchema + "]";
        }
    }

    /** A local Ollama server, e.g. {@code http://localhost:11434}. */
    record Ollama(URI baseUrl, String model, Duration timeout, boolean jsonSchema) implements ProviderConfig {

        public Ollama {
            Objects.requireNonNull(baseUrl, "nl.provider.base_url");
            requireText(model, "nl.provider.model");
            requirePositive(timeout, "nl.provider.timeout");
        }
    }

    Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private static void requireText(String value, String key) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " is required");
        }
    }

    private static void requirePositive(Duration value, String key) {
        if (value == null || !value.isPositive()) {
            throw new IllegalArgumentException(key + " must be a positive duration, was " + value);
        }
    }
}
