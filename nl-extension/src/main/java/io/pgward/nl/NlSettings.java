package io.pgward.nl;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code nl:} section of pgward's configuration, validated. See docs/nl.md for the YAML keys.
 *
 * @param provider the LLM; empty means natural-language questions are answered with an error saying how to
 *                 configure one
 * @param description free text about what the database holds and means, put in every prompt
 * @param maxAttempts how many statements the model may propose for one question, 1 to 20
 * @param promptBudgetChars above this many characters of schema text, relations are chosen per question
 * @param topK how many relations the similarity search picks before foreign-key neighbours are added
 * @param defaultRowLimit rows {@code pgward.ask} returns when the call names no limit
 * @param maxRowLimit the most rows {@code pgward.ask} returns, before the login's row cap
 * @param explainTimeout statement timeout of each EXPLAIN
 * @param retrieval how relations are chosen per question for a large schema
 */
public record NlSettings(Optional<ProviderConfig> provider, String description, int maxAttempts,
                         int promptBudgetChars, int topK, int defaultRowLimit, int maxRowLimit,
                         Duration explainTimeout, RetrievalSettings retrieval) {

    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final int MAX_MAX_ATTEMPTS = 20;
    public static final int DEFAULT_PROMPT_BUDGET_CHARS = 24_000;
    public static final int DEFAULT_TOP_K = 10;
    public static final int DEFAULT_ROW_LIMIT = 250;
    public static final int MAX_ROW_LIMIT = 25_000;
    public static final Duration DEFAULT_EXPLAIN_TIMEOUT = Duration.ofSeconds(5);

    public NlSettings {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(explainTimeout, "explainTimeout");
        Objects.requireNonNull(retrieval, "retrieval");
        check(maxAttempts >= 1 && maxAttempts <= MAX_MAX_ATTEMPTS, "nl.max_attempts",
                "must be between 1 and " + MAX_MAX_ATTEMPTS + ", was " + maxAttempts);
        check(promptBudgetChars >= 1_000, "nl.prompt_budget_chars", "must be at least 1000, was " + promptBudgetChars);
        check(topK >= 1, "nl.top_k", "must be at least 1, was " + topK);
        check(maxRowLimit >= 1 && maxRowLimit <= MAX_ROW_LIMIT, "nl.max_row_limit",
                "must be between 1 and " + MAX_ROW_LIMIT + ", was " + maxRowLimit);
        check(defaultRowLimit >= 1 && defaultRowLimit <= maxRowLimit, "nl.default_row_limit",
                "must be between 1 and nl.max_row_limit (" + maxRowLimit + "), was " + defaultRowLimit);
        check(explainTimeout.isPositive(), "nl.explain_timeout", "must be positive, was " + explainTimeout);
    }

    /** With the default retrieval settings. */
    public NlSettings(Optional<ProviderConfig> provider, String description, int maxAttempts, int promptBudgetChars,
                      int topK, int defaultRowLimit, int maxRowLimit, Duration explainTimeout) {
        this(provider, description, maxAttempts, promptBudgetChars, topK, defaultRowLimit, maxRowLimit,
                explainTimeout, RetrievalSettings.defaults());
    }

    /** No provider, no description, every default. */
    public static NlSettings defaults() {
        return new NlSettings(Optional.empty(), "", DEFAULT_MAX_ATTEMPTS, DEFAULT_PROMPT_BUDGET_CHARS, DEFAULT_TOP_K,
                DEFAULT_ROW_LIMIT, MAX_ROW_LIMIT, DEFAULT_EXPLAIN_TIMEOUT);
    }

    public NlSettings withProvider(ProviderConfig config) {
        return new NlSettings(Optional.of(config), description, maxAttempts, promptBudgetChars, topK,
                defaultRowLimit, maxRowLimit, explainTimeout, retrieval);
    }

    public NlSettings withDescription(String text) {
        return new NlSettings(provider, text, maxAttempts, promptBudgetChars, topK, defaultRowLimit, maxRowLimit,
                explainTimeout, retrieval);
    }

    public NlSettings withMaxAttempts(int attempts) {
        return new NlSettings(provider, description, attempts, promptBudgetChars, topK, defaultRowLimit,
                maxRowLimit, explainTimeout, retrieval);
    }

    private static void check(boolean ok, String key, String problem) {
        if (!ok) {
            throw new IllegalArgumentException(key + " " + problem);
        }
    }
}
