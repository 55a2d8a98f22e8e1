package io.pgward.wire.config;

import io.pgward.nl.NlSettings;
import io.pgward.nl.ProviderConfig;
import io.pgward.nl.RetrievalSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code nl:} section (see docs/nl.md): natural-language questions and the LLM that writes their SQL.
 * The section turns the {@code pgward.*} natural-language functions on; {@code nl.provider} is what questions
 * need, while {@code pgward.schema()}, {@code refresh_schema()} and {@code dialect()} answer without it.
 */
final class NlConfig {

    private enum ProviderType { OPENAI, ANTHROPIC, OLLAMA }

    private NlConfig() {
    }

    /** Empty when the file has no {@code nl:} key. */
    static Optional<NlSettings> read(ConfigSection top) {
        if (!top.present("nl")) {
            return Optional.empty();
        }
        try {
            return Optional.of(settings(top.section("nl")));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    private static NlSettings settings(ConfigSection section) {
        Optional<ProviderConfig> provider = section.has("provider")
                ? Optional.of(provider(section.section("provider"))) : Optional.empty();
        section.section("provider");
        int maxRowLimit = section.integer("max_row_limit", NlSettings.MAX_ROW_LIMIT, 1, NlSettings.MAX_ROW_LIMIT);
        NlSettings settings = new NlSettings(provider, section.string("description", "").strip(),
                section.integer("max_attempts", NlSettings.DEFAULT_MAX_ATTEMPTS, 1, NlSettings.MAX_MAX_ATTEMPTS),
                section.integer("prompt_budget_chars", NlSettings.DEFAULT_PROMPT_BUDGET_CHARS, 1_000,
                        Integer.MAX_VALUE),
                section.integer("top_k", NlSettings.DEFAULT_TOP_K, 1, 1_000),
                section.integer("default_row_limit", Math.min(NlSettings.DEFAULT_ROW_LIMIT, maxRowLimit), 1,
                        NlSettings.MAX_ROW_LIMIT),
                maxRowLimit,
                positive(section, "explain_timeout", NlSettings.DEFAULT_EXPLAIN_TIMEOUT),
                retrieval(section.section("retrieval")));
        section.done();
        return settings;
    }

    /** {@code nl.retrieval}: every key optional, each default the one docs/nl.md measures. */
    private static RetrievalSettings retrieval(ConfigSection section) {
        RetrievalSettings defaults = RetrievalSettings.defaults();
        RetrievalSettings settings = new RetrievalSettings(
                section.integer("relation_limit", defaults.relationLimit(), 0, Integer.MAX_VALUE),
                bool(section, "lexical", defaults.lexical()),
                section.choice("expansion", RetrievalSettings.Expansion.class, defaults.expansion()),
                bool(section, "inferred_keys", defaults.inferredKeys()),
                bool(section, "schema_ranking", defaults.schemaRanking()));
        section.done();
        return settings;
    }

    private static ProviderConfig provider(ConfigSection section) {
        ProviderType type = section.choice("type", ProviderType.class, null);
        if (type == null) {
            throw ConfigException.at(section.keyPath("type"), "is required: openai, anthropic or ollama");
        }
        String model = section.requiredString("model");
        Duration timeout = positive(section, "timeout", ProviderConfig.DEFAULT_TIMEOUT);
        boolean jsonSchema = bool(section, "json_schema", true);
        Optional<String> apiKey = Optional.ofNullable(section.string("api_key", null)).filter(k -> !k.isBlank());
        String baseUrlKey = section.keyPath("base_url");
        Optional<URI> baseUrl = Optional.ofNullable(section.string("base_url", null))
                .map(u -> url(baseUrlKey, u, section.was("base_url")));
        if (type != ProviderType.ANTHROPIC && section.has("max_tokens")) {
            throw ConfigException.at(section.keyPath("max_tokens"), "applies to type anthropic only");
        }
        int maxTokens = section.integer("max_tokens", ProviderConfig.Anthropic.DEFAULT_MAX_TOKENS, 1, 1_000_000);
        ProviderConfig config = switch (type) {
            case OPENAI -> new ProviderConfig.OpenAiCompatible(baseUrl.orElseThrow(() -> ConfigException.at(
                    baseUrlKey, "is required for type openai (https://api.openai.com/v1 for OpenAI itself)")),
                    model, apiKey, timeout, jsonSchema);
            case ANTHROPIC -> new ProviderConfig.Anthropic(baseUrl, model, apiKey.orElseThrow(() ->
                    ConfigException.at(section.keyPath("api_key"), "is required for type anthropic (write "
                            + "${ANTHROPIC_API_KEY})")), timeout, maxTokens, jsonSchema);
            case OLLAMA -> {
                if (apiKey.isPresent()) {
                    throw ConfigException.at(section.keyPath("api_key"), "does not apply to type ollama");
                }
                yield new ProviderConfig.Ollama(baseUrl.orElseThrow(() -> ConfigException.at(baseUrlKey,
                        "is required for type ollama (e.g. http://localhost:11434)")), model, timeout, jsonSchema);
            }
        };
        section.done();
        return config;
    }

    private static URI url(String key, String text, String was) {
        try {
            URI uri = new URI(text.strip());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if ((scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null) {
                return uri;
            }
        } catch (URISyntaxException e) {
            // reported below
        }
        throw ConfigException.at(key, "must be an http or https URL, " + was);
    }

    private static Duration positive(ConfigSection section, String key, Duration fallback) {
        Duration value = section.duration(key, fallback);
        if (!value.isPositive()) {
            throw ConfigException.at(section.keyPath(key), "must be a positive duration, was " + value);
        }
        return value;
    }

    private static boolean bool(ConfigSection section, String key, boolean fallback) {
        String text = section.string(key, null);
        if (text == null) {
            return fallback;
        }
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ConfigException.at(section.keyPath(key), "must be true or false, " + section.was(key));
        };
    }
}
