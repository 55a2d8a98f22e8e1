package io.pgward.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.nl.ProviderConfig;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DemoModelTest {

    @Test
    void noProviderNamedMeansNoModelEvenWithAKeyInTheEnvironment() {
        assertTrue(DemoModel.choose(null, null, null, Map.of("OPENAI_API_KEY", "sk")::get).isEmpty());
    }

    @Test
    void openAiTakesItsKeyFromTheEnvironmentAndDefaultsToOpenAi() {
        ProviderConfig.OpenAiCompatible openAi = assertInstanceOf(ProviderConfig.OpenAiCompatible.class,
                DemoModel.choose("openai", null, null, Map.of("OPENAI_API_KEY", "sk-1")::get).orElseThrow());
        assertEquals(URI.create("https://api.openai.com/v1"), openAi.baseUrl());
        assertEquals("gpt-4o-mini", openAi.model());
        assertEquals(Optional.of("sk-1"), openAi.apiKey());
    }

    @Test
    void aLocalOpenAiCompatibleServerNeedsNoKey() {
        ProviderConfig.OpenAiCompatible local = assertInstanceOf(ProviderConfig.OpenAiCompatible.class,
                DemoModel.choose("openai", "Qwen/Qwen2.5-Coder-7B-Instruct", "http://localhost:8000/v1",
                        Map.<String, String>of()::get).orElseThrow());
        assertEquals(Optional.empty(), local.apiKey());
        assertEquals("Qwen/Qwen2.5-Coder-7B-Instruct", local.model());
    }

    @Test
    void theEnvironmentNamesTheProviderWhenNoOptionDoes() {
        Map<String, String> env = Map.of("PGWARD_LLM_PROVIDER", "ollama", "PGWARD_LLM_MODEL", "llama3.1",
                "PGWARD_LLM_BASE_URL", "http://gpu-box:11434");
        ProviderConfig.Ollama ollama = assertInstanceOf(ProviderConfig.Ollama.class,
                DemoModel.choose(null, null, null, env::get).orElseThrow());
        assertEquals(URI.create("http://gpu-box:11434"), ollama.baseUrl());
        assertEquals("llama3.1", ollama.model());
        assertEquals("qwen2.5-coder:7b", assertInstanceOf(ProviderConfig.Ollama.class,
                DemoModel.choose("ollama", null, null, Map.<String, String>of()::get).orElseThrow()).model());
    }

    @Test
    void saysWhatIsMissing() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoModel.choose("anthropic", null, null,
                Map.<String, String>of()::get)).getMessage().contains("ANTHROPIC_API_KEY"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoModel.choose("openai", null, null,
                Map.<String, String>of()::get)).getMessage().contains("OPENAI_API_KEY"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoModel.choose("gemini", null, null,
                Map.<String, String>of()::get)).getMessage().contains("openai, anthropic or ollama"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DemoModel.choose("ollama", null,
                "localhost:11434", Map.<String, String>of()::get)).getMessage().contains("http or https URL"));
    }
}
