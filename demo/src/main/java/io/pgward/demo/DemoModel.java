package io.pgward.demo;

import io.pgward.nl.ProviderConfig;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * The LLM {@code pgward demo} asks questions with: from {@code --llm-*} options, else from the environment
 * ({@code PGWARD_LLM_PROVIDER}, {@code PGWARD_LLM_MODEL}, {@code PGWARD_LLM_BASE_URL}). API keys come only from
 * the environment ({@code OPENAI_API_KEY}, {@code ANTHROPIC_API_KEY}), never from an option, so they stay out of
 * shell histories and process lists. Nothing is chosen unless asked for: the schema is sent to whatever provider
 * is named, so a key lying in the environment does not pick one.
 */
final class DemoModel {

    public static final String PROVIDER_VARIABLE = "PGWARD_LLM_PROVIDER";
    public static final String MODEL_VARIABLE = "PGWARD_LLM_MODEL";
    public static final String BASE_URL_VARIABLE = "PGWARD_LLM_BASE_URL";

    private DemoModel() {
    }

    /**
     * @param provider {@code openai} (any OpenAI-compatible server), {@code anthropic} or {@code ollama}; null to
     *                 read {@code PGWARD_LLM_PROVIDER}
     * @param model null for the variable, then a default per provider
     * @param baseUrl null for the variable, then a default per provider
     * @return empty when no provider is named
     * @throws IllegalArgumentException for an unknown provider, a bad URL or a missing key, saying which
     */
    public static Optional<ProviderConfig> choose(String provider, String model, String baseUrl,
                                                  Function<String, String> environment) {
        String type = firstOf(provider, environment.apply(PROVIDER_VARIABLE));
        if (type == null) {
            return Optional.empty();
        }
        String name = firstOf(model, environment.apply(MODEL_VARIABLE));
        String url = firstOf(baseUrl, environment.apply(BASE_URL_VARIABLE));
        return Optional.of(switch (type.strip().toLowerCase(Locale.ROOT)) {
            case "openai" -> {
                String key = firstOf(environment.apply("OPENAI_API_KEY"), null);
                if (url == null && key == null) {
                    throw new IllegalArgumentException("--llm-provider openai needs OPENAI_API_KEY in the "
                            + "environment, or --llm-base-url of an OpenAI-compatible server that takes no key");
                }
                yield new ProviderConfig.OpenAiCompatible(uri(url == null ? "https://api.openai.com/v1" : url),
                        name == null ? "gpt-4o-mini" : name, Optional.ofNullable(key), ProviderConfig.DEFAULT_TIMEOUT,
                        true);
            }
            case "anthropic" -> {
                String key = firstOf(environment.apply("ANTHROPIC_API_KEY"), null);
                if (key == null) {
                    throw new IllegalArgumentException("--llm-provider anthropic needs ANTHROPIC_API_KEY in the "
                            + "environment");
                }
                yield new ProviderConfig.Anthropic(Optional.ofNullable(url).map(DemoModel::uri),
                        name == null ? "claude-sonnet-4-5" : name, key, ProviderConfig.DEFAULT_TIMEOUT,
                        ProviderConfig.Anthropic.DEFAULT_MAX_TOKENS, true);
            }
            case "ollama" -> new ProviderConfig.Ollama(uri(url == null ? "http://localhost:11434" : url),
                    name == null ? "qwen2.5-coder:7b" : name, ProviderConfig.DEFAULT_TIMEOUT, true);
            default -> throw new IllegalArgumentException("the LLM provider must be openai, anthropic or ollama, was \""
                    + type + "\"");
        });
    }

    private static String firstOf(String given, String fallback) {
        if (given != null && !given.isBlank()) {
            return given.strip();
        }
        return fallback == null || fallback.isBlank() ? null : fallback.strip();
    }

    private static URI uri(String text) {
        URI uri = URI.create(text);
        if (uri.getScheme() == null || uri.getHost() == null || !uri.getScheme().startsWith("http")) {
            throw new IllegalArgumentException("the LLM base URL must be an http or https URL, was \"" + text + "\"");
        }
        return uri;
    }
}
