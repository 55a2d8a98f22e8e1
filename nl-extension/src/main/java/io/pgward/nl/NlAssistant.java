package io.pgward.nl;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The {@code pgward.*} natural-language entry points for one login, as plain calls the proxy makes off its event
 * loop: {@link #ask}, {@link #sql}, {@link #schema}, {@link #refreshSchema}, {@link #dialect}. The proxy runs the
 * SQL that {@code ask} returns on the client's own backend session (so the login's read-only mode, timeout and
 * row cap apply) and never passes rows back here.
 *
 * <p>One instance per login (it owns that login's schema cache); {@link #withValidator} gives a view with the
 * validator of one session (its search_path) that shares the cache. Thread-safe.
 */
public final class NlAssistant {

    static final String NOT_CONFIGURED = "natural-language questions need an LLM provider, and none is configured: "
            + "set nl.provider in pgward's configuration (type openai with base_url, model and api_key for OpenAI "
            + "or any OpenAI-compatible server; type anthropic with model and api_key; type ollama with base_url "
            + "and model), see docs/nl.md";

    /** Longer questions are refused rather than sent: they are not questions so much as prompts. */
    public static final int MAX_QUESTION_LENGTH = 4_000;

    private final String login;
    private final NlSettings settings;
    private final Optional<ChatModel> model;
    private final SchemaCatalog catalog;
    private final String rules;
    private final long rowCap;
    private final StatementValidator validator;
    private final NlAuditListener audit;

    private NlAssistant(String login, NlSettings settings, Optional<ChatModel> model, SchemaCatalog catalog,
                        String rules, long rowCap, StatementValidator validator, NlAuditListener audit) {
        this.login = login;
        this.settings = settings;
        this.model = model;
        this.catalog = catalog;
        this.rules = rules;
        this.rowCap = rowCap;
        this.validator = validator;
        this.audit = audit;
    }

    public static Builder builder(String login, NlSettings settings, SchemaCatalog catalog) {
        return new Builder(login, settings, catalog);
    }

    /** The same login and cache, validating with {@code sessionValidator} (e.g. the session's search_path). */
    public NlAssistant withValidator(StatementValidator sessionValidator) {
        return new NlAssistant(login, settings, model, catalog, rules, rowCap,
                Objects.requireNonNull(sessionValidator, "sessionValidator"), audit);
    }

    /**
     * {@code pgward.ask(question [, row_limit])} and the comment form.
     *
     * @param rowLimit empty for the default (250); capped at the maximum (25,000) and the login's row cap
     * @throws NlException no provider, a bad row limit, an empty question, no valid query after every attempt
     *                     (the message lists each attempt's error), or a provider failure
     */
    public AskResult ask(String question, OptionalInt rowLimit) throws NlException {
        int limit = RowLimit.resolve(rowLimit.isPresent() ? rowLimit.getAsInt() : null, settings, rowCap);
        Generation generation = generate(question, limit);
        return switch (generation) {
            case Generation.Valid valid -> new AskResult.Rows(valid.sql(), RowLimit.apply(valid.sql(), limit), limit,
                    valid.attempts().size());
            case Generation.NotAboutDatabase answer -> new AskResult.Answer(answer.answer());
            case Generation.Exhausted exhausted -> throw new NlException(NlException.NO_VALID_SQL, exhausted.message());
            case Generation.ProviderFailed failed -> throw new NlException(NlException.NO_VALID_SQL, failed.message());
        };
    }

    /** {@code pgward.sql(question)}: the SQL only; nothing runs. A query that never passed is reported, not thrown. */
    public SqlResult sql(String question) throws NlException {
        Generation generation = generate(question, settings.defaultRowLimit());
        return switch (generation) {
            case Generation.Valid valid -> new SqlResult(Optional.of(valid.sql()), true, Optional.empty(),
                    Optional.empty());
            case Generation.NotAboutDatabase answer -> new SqlResult(Optional.empty(), false, Optional.empty(),
                    Optional.of(answer.answer()));
            case Generation.Exhausted exhausted -> new SqlResult(lastSql(exhausted.attempts()), false,
                    Optional.of(exhausted.message()), Optional.empty());
            case Generation.ProviderFailed failed -> throw new NlException(NlException.NO_VALID_SQL, failed.message());
        };
    }

    /**
     * {@code pgward.schema([relation])}: columns, types and keys of what the login may read, from the cached
     * snapshot (a relation created since is visible after {@link #refreshSchema}).
     *
     * @param relation a name as in SQL ({@code orders}, {@code public.orders}, {@code "Mixed"."Case"}); a bare name
     *                 must match one readable relation
     */
    public List<SchemaRow> schema(Optional<String> relation) throws NlException {
        SchemaSnapshot snapshot = catalog.snapshot();
        if (relation.isEmpty()) {
            return snapshot.relations().stream().flatMap(r -> SchemaRow.of(r).stream()).toList();
        }
        Relation found = snapshot.find(relation.get()).orElseThrow(() -> new NlException(NlException.UNDEFINED_TABLE,
                "relation \"" + relation.get() + "\" is not one this login may read, or is ambiguous"));
        return SchemaRow.of(found);
    }

    /** {@code pgward.refresh_schema()}. */
    public RefreshResult refreshSchema() {
        return catalog.refresh();
    }

    /** {@code pgward.dialect()}. */
    public static String dialect() {
        return "{\"dialect\": \"postgres\"}";
    }

    private Generation generate(String question, int rowLimit) throws NlException {
        ChatModel chat = model.orElseThrow(() -> new NlException(NlException.NOT_CONFIGURED, NOT_CONFIGURED));
        if (question == null || question.isBlank()) {
            throw new NlException(NlException.INVALID_PARAMETER, "the question is empty");
        }
        if (question.length() > MAX_QUESTION_LENGTH) {
            throw new NlException(NlException.INVALID_PARAMETER, "the question is longer than "
                    + MAX_QUESTION_LENGTH + " characters");
        }
        audit.question(login, question);
        List<ChatMessage> prompt = List.of(
                Prompt.system(settings.description(), rules, catalog.forQuestion(question), rowLimit),
                Prompt.question(question));
        Generation generation = new SqlGenerator(chat, settings.maxAttempts())
                .generate(prompt, validator, attempt -> audit.attempt(login, question, attempt));
        audit.verdict(login, question, generation);
        return generation;
    }

    private static Optional<String> lastSql(List<Attempt> attempts) {
        return attempts.reversed().stream().map(Attempt::sql).filter(s -> !s.isEmpty()).findFirst();
    }

    public static final class Builder extends AssistantOptions<Builder> {
        private final String login;
        private final NlSettings settings;
        private final SchemaCatalog catalog;
        private StatementValidator validator;

        private Builder(String login, NlSettings settings, SchemaCatalog catalog) {
            super(settings);
            this.login = Objects.requireNonNull(login, "login");
            this.settings = settings;
            this.catalog = Objects.requireNonNull(catalog, "catalog");
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Required: every guard layer of the login, then {@link ExplainValidator}. */
        public Builder validator(StatementValidator statementValidator) {
            this.validator = Objects.requireNonNull(statementValidator, "validator");
            return this;
        }

        public NlAssistant build() {
            Objects.requireNonNull(validator, "a validator is required: the login's guard then ExplainValidator");
            return new NlAssistant(login, settings, model, catalog, rules, rowCap, validator, audit);
        }
    }

    @Override
    public String toString() {
        return "NlAssistant[login=" + login + ", provider=" + settings.provider().map(Object::toString).orElse("none")
                + ", rules=" + (rules.isBlank() ? "none" : rules.lines().count() + " lines") + "]";
    }
}
