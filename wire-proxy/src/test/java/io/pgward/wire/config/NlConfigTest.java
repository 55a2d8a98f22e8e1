package io.pgward.wire.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.nl.NlSettings;
import io.pgward.nl.ProviderConfig;
import io.pgward.nl.RetrievalSettings;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NlConfigTest {

    private static final Map<String, String> ENV = Map.of("OPENAI_API_KEY", "sk-from-env",
            "ANTHROPIC_API_KEY", "sk-ant");
    private final ConfigLoader loader = new ConfigLoader(ENV::get);

    private static final String BASE = """
            backend:
              host: db.internal
            logins:
              analyst:
                auth: trust
            """;

    private NlSettings nl(String section) {
        return loader.parse(BASE + section, "pgward.yaml").nl().orElseThrow();
    }

    private String error(String section) {
        return assertThrows(ConfigException.class, () -> loader.parse(BASE + section, "pgward.yaml")).getMessage();
    }

    @Test
    void withoutTheSectionTheFunctionsAreOff() {
        assertTrue(loader.parse(BASE, "pgward.yaml").nl().isEmpty());
    }

    @Test
    void anEmptySectionTurnsThemOnWithDefaultsAndNoProvider() {
        NlSettings settings = nl("nl:\n");
        assertEquals(NlSettings.defaults(), settings);
        assertFalse(settings.provider().isPresent());
    }

    @Test
    void readsEverySettingWithTheKeyFromTheEnvironment() {
        NlSettings settings = nl("""
                nl:
                  provider:
                    type: openai
                    base_url: https://api.openai.com/v1
                    model: gpt-4o-mini
                    api_key: ${OPENAI_API_KEY}
                    timeout: 30s
                    json_schema: false
                  description: The EU webshop.
                  max_attempts: 3
                  prompt_budget_chars: 5000
                  top_k: 4
                  default_row_limit: 100
                  max_row_limit: 1000
                  explain_timeout: 2s
                """);
        ProviderConfig.OpenAiCompatible openAi = assertInstanceOf(ProviderConfig.OpenAiCompatible.class,
                settings.provider().orElseThrow());
        assertEquals(URI.create("https://api.openai.com/v1"), openAi.baseUrl());
        assertEquals("gpt-4o-mini", openAi.model());
        assertEquals(Optional.of("sk-from-env"), openAi.apiKey());
        assertEquals(Duration.ofSeconds(30), openAi.timeout());
        assertFalse(openAi.jsonSchema());
        assertFalse(openAi.toString().contains("sk-from-env"), "the key never shows");
        assertEquals(new NlSettings(settings.provider(), "The EU webshop.", 3, 5000, 4, 100, 1000,
                Duration.ofSeconds(2)), settings);
    }

    @Test
    void readsTheRetrievalSwitches() {
        assertEquals(RetrievalSettings.defaults(), nl("nl:\n").retrieval());
        assertEquals(new RetrievalSettings(0, false, RetrievalSettings.Expansion.NEIGHBOURS, false, false), nl("""
                nl:
                  retrieval:
                    relation_limit: 0
                    lexical: false
                    expansion: neighbours
                    inferred_keys: false
                    schema_ranking: false
                """).retrieval());
        assertEquals(RetrievalSettings.Expansion.NONE,
                nl("nl:\n  retrieval: { expansion: none }\n").retrieval().expansion());
        assertEquals(new RetrievalSettings(40, true, RetrievalSettings.Expansion.BRIDGES, true, true),
                nl("nl:\n  retrieval: { relation_limit: 40 }\n").retrieval());
    }

    @Test
    void refusesRetrievalSettingsItCannotUse() {
        assertEquals("nl.retrieval.expansion: must be one of bridges, neighbours, none, was \"all\"",
                error("nl:\n  retrieval: { expansion: all }\n"));
        assertEquals("nl.retrieval.relation_limit: must be a whole number from 0 to 2147483647, was \"-1\"",
                error("nl:\n  retrieval: { relation_limit: -1 }\n"));
        assertEquals("nl.retrieval.lexical: must be true or false, was \"sometimes\"",
                error("nl:\n  retrieval: { lexical: sometimes }\n"));
        assertEquals("nl.retrieval.top_k: is not a setting pgward knows", error("nl:\n  retrieval: { top_k: 3 }\n"));
    }

    @Test
    void readsAnthropicAndOllama() {
        ProviderConfig.Anthropic anthropic = assertInstanceOf(ProviderConfig.Anthropic.class, nl("""
                nl:
                  provider: { type: anthropic, model: claude-sonnet-4-5, api_key: "${ANTHROPIC_API_KEY}", max_tokens: 2048 }
                """).provider().orElseThrow());
        assertEquals("sk-ant", anthropic.apiKey());
        assertEquals(2048, anthropic.maxTokens());
        assertTrue(anthropic.baseUrl().isEmpty());
        ProviderConfig.Ollama ollama = assertInstanceOf(ProviderConfig.Ollama.class, nl("""
                nl:
                  provider: { type: ollama, base_url: "http://localhost:11434", model: "qwen2.5-coder:7b" }
                """).provider().orElseThrow());
        assertEquals(URI.create("http://localhost:11434"), ollama.baseUrl());
        assertEquals(ProviderConfig.DEFAULT_TIMEOUT, ollama.timeout());
    }

    @Test
    void refusesWhatItCannotUseNamingTheKey() {
        assertEquals("nl.provider.type: is required: openai, anthropic or ollama",
                error("nl:\n  provider: { model: m }\n"));
        assertEquals("nl.provider.base_url: is required for type openai (https://api.openai.com/v1 for OpenAI "
                + "itself)", error("nl:\n  provider: { type: openai, model: m }\n"));
        assertEquals("nl.provider.api_key: is required for type anthropic (write ${ANTHROPIC_API_KEY})",
                error("nl:\n  provider: { type: anthropic, model: m }\n"));
        assertEquals("nl.provider.api_key: environment variable MISSING_KEY is not set",
                error("nl:\n  provider: { type: openai, base_url: \"http://x:1/v1\", model: m, api_key: "
                        + "\"${MISSING_KEY}\" }\n"));
        assertEquals("nl.provider.base_url: must be an http or https URL, was \"localhost:11434\"",
                error("nl:\n  provider: { type: ollama, base_url: \"localhost:11434\", model: m }\n"));
        assertEquals("nl.max_attempts: must be a whole number from 1 to 20, was \"21\"",
                error("nl:\n  max_attempts: 21\n"));
        assertEquals("nl.provider.json_schema: must be true or false, was \"yes please\"",
                error("nl:\n  provider: { type: ollama, base_url: \"http://h:1\", model: m, json_schema: yes please }\n"));
        assertEquals("nl.provider.max_tokens: applies to type anthropic only",
                error("nl:\n  provider: { type: ollama, base_url: \"http://h:1\", model: m, max_tokens: 5 }\n"));
        assertEquals("nl.default_row_limit must be between 1 and nl.max_row_limit (10), was 250",
                error("nl:\n  max_row_limit: 10\n  default_row_limit: 250\n"));
        assertEquals("nl.temperature: is not a setting pgward knows", error("nl:\n  temperature: 0\n"));
        assertEquals("nl.provider.key: is not a setting pgward knows",
                error("nl:\n  provider: { type: ollama, base_url: \"http://h:1\", model: m, key: k }\n"));
    }
}
