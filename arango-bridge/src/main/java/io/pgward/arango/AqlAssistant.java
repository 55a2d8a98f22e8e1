package io.pgward.arango;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import io.pgward.nl.Attempt;
import io.pgward.nl.Generation;
import io.pgward.nl.NlAssistant;
import io.pgward.nl.NlAuditListener;
import io.pgward.nl.NlException;
import io.pgward.nl.AssistantOptions;
import io.pgward.nl.NlSettings;
import io.pgward.nl.ProposalCheck;
import io.pgward.nl.QueryGenerator;
import io.pgward.nl.RowLimit;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The {@code pgward.*} natural-language entry points on an ArangoDB database, for one login: {@link #ask},
 * {@link #aql}, {@link #schema}, {@link #dialect}. Questions become read-only AQL through the same
 * validate-and-retry loop as SQL: each query the model proposes is checked with the bridge's read-only gate
 * (EXPLAIN, then the plan check), and a syntax error (ArangoDB's message and number) or a refused write plan is
 * fed back to the model. Nothing the model writes runs before it has passed; {@link #run} runs an answer through
 * the gate once more, with the database's limits.
 *
 * <p>Every call blocks on the model or on ArangoDB: the proxy calls it off its event loop. Thread-safe. Faults
 * are {@link NlException}s whose SQLSTATE the client gets.
 */
public final class AqlAssistant {

    static final String NOT_CONFIGURED = "natural-language questions need an LLM provider, and none is configured: "
            + "set nl.provider in pgward's configuration (see docs/nl.md)";

    private final String login;
    private final ArangoBridge bridge;
    private final NlSettings settings;
    private final Optional<ChatModel> model;
    private final String rules;
    private final long rowCap;
    private final NlAuditListener audit;
    private final AqlPolicy policy;

    private AqlAssistant(Builder builder) {
        this.login = builder.login;
        this.bridge = builder.bridge;
        this.settings = builder.settings;
        AssistantOptions.Values options = builder.values();
        this.model = options.model();
        this.rules = options.rules();
        this.rowCap = Math.min(options.rowCap(), bridge.config().limits().maxRows());
        this.audit = options.audit();
        this.policy = builder.policy;
    }

    /**
     * @param settings the {@code nl:} section: provider, attempts and row limits (its description is that of the
     *                 PostgreSQL database and is not used: an ArangoDB database has its own, in its configuration)
     */
    public static Builder builder(String login, ArangoBridge bridge, NlSettings settings) {
        return new Builder(login, bridge, settings);
    }

    /**
     * {@code pgward.ask(question [, row_limit])} and the comment form.
     *
     * @param rowLimit empty for the default; capped at the maximum, the login's row cap and the database's row
     *                 limit
     * @throws NlException no provider, a bad row limit, an empty question, no valid query after every attempt
     *                     (the message lists each attempt's error), a provider failure, ArangoDB unreachable
     */
    public AqlAskResult ask(String question, OptionalInt rowLimit) throws NlException {
        int limit = RowLimit.resolve(rowLimit.isPresent() ? rowLimit.getAsInt() : null, settings, rowCap);
        Generation generation = generate(question, limit);
        return switch (generation) {
            case Generation.Valid valid -> new AqlAskResult.Rows(valid.sql(), limited(valid.sql(), limit), limit,
                    valid.attempts().size());
            case Generation.NotAboutDatabase answer -> new AqlAskResult.Answer(answer.answer());
            case Generation.Exhausted exhausted -> throw new NlException(NlException.NO_VALID_SQL, exhausted.message());
            case Generation.ProviderFailed failed -> throw new NlException(NlException.NO_VALID_SQL, failed.message());
        };
    }

    /**
     * Runs the answer of {@link #ask}: its {@code aqlToRun} through the read-only gate, under the database's
     * limits, whatever the login's mode (generated AQL never runs raw).
     *
     * @throws AqlException as {@link ArangoBridge#run} does
     */
    public AqlCompletion run(AqlAskResult.Rows rows, RowSink sink) {
        return bridge.run(rows.aqlToRun(), Map.of(), ExecutionMode.READ_ONLY, policy, sink);
    }

    /** {@code pgward.aql(question)}: the AQL only; nothing runs. A query that never passed is reported, not thrown. */
    public GeneratedAql aql(String question) throws NlException {
        Generation generation = generate(question, (int) Math.min(settings.defaultRowLimit(), rowCap));
        return switch (generation) {
            case Generation.Valid valid -> new GeneratedAql(Optional.of(valid.sql()), true, Optional.empty(),
                    Optional.empty());
            case Generation.NotAboutDatabase answer -> new GeneratedAql(Optional.empty(), false, Optional.empty(),
                    Optional.of(answer.answer()));
            case Generation.Exhausted exhausted -> new GeneratedAql(lastAql(exhausted.attempts()), false,
                    Optional.of(exhausted.message()), Optional.empty());
            case Generation.ProviderFailed failed -> throw new NlException(NlException.NO_VALID_SQL, failed.message());
        };
    }

    /**
     * {@code pgward.schema([collection])}: rows of kind, name and definition (JSON), from the reflected schema.
     *
     * @param collection one collection, with the graphs and views it takes part in; empty for everything
     * @throws NlException 42P01 when there is no such collection, or ArangoDB's error when reflection fails
     */
    public AqlResult schema(Optional<String> collection) throws NlException {
        try {
            return bridge.schemaRows(collection, policy);
        } catch (AqlException e) {
            throw asNlException(e);
        }
    }

    /** {@code pgward.dialect()}. */
    public static String dialect() {
        return ArangoBridge.DIALECT_JSON;
    }

    private Generation generate(String question, int rowLimit) throws NlException {
        ChatModel chat = model.orElseThrow(() -> new NlException(NlException.NOT_CONFIGURED, NOT_CONFIGURED));
        if (question == null || question.isBlank()) {
            throw new NlException(NlException.INVALID_PARAMETER, "the question is empty");
        }
        if (question.length() > NlAssistant.MAX_QUESTION_LENGTH) {
            throw new NlException(NlException.INVALID_PARAMETER, "the question is longer than "
                    + NlAssistant.MAX_QUESTION_LENGTH + " characters");
        }
        audit.question(login, question);
        try {
            List<ChatMessage> prompt = List.of(AqlPrompt.system(bridge.schemaPrompt(policy), rules, rowLimit),
                    AqlPrompt.question(question));
            Generation generation = new QueryGenerator(chat, settings.maxAttempts(), AqlPrompt.AQL)
                    .generate(prompt, this::check, attempt -> audit.attempt(login, question, attempt));
            audit.verdict(login, question, generation);
            return generation;
        } catch (AqlException e) {
            throw asNlException(e);
        }
    }

    /** The bridge's read-only gate on what the model wrote; what it rejects is fed back in ArangoDB's words. */
    private ProposalCheck.Outcome check(String proposed) {
        String aql = AqlRowLimit.withoutTrailingSemicolons(proposed);
        return switch (bridge.validate(aql, policy)) {
            case Validation.Valid valid -> new ProposalCheck.Passed(valid.aql());
            case Validation.Invalid invalid -> new ProposalCheck.Rejected(invalid.errorNum() == 0 ? invalid.message()
                    : "ArangoDB error " + invalid.errorNum() + ": " + invalid.message());
        };
    }

    /**
     * The query with the row limit applied, checked again: the wrapper is plain AQL, but this is the text that
     * runs, and the gate remembers a read it has seen, so the run does not explain it a second time.
     */
    private String limited(String aql, int limit) throws NlException {
        String wrapped = AqlRowLimit.apply(aql, limit);
        Validation validation;
        try {
            validation = bridge.validate(wrapped, policy);
        } catch (AqlException e) {
            throw asNlException(e);
        }
        if (validation instanceof Validation.Invalid invalid) {
            throw new NlException(invalid.sqlState(), "the generated AQL passed, but not with the row limit applied ("
                    + wrapped + "): " + invalid.message());
        }
        return wrapped;
    }

    private static NlException asNlException(AqlException e) {
        return new NlException(e.sqlState(), e.getMessage(), e);
    }

    private static Optional<String> lastAql(List<Attempt> attempts) {
        return attempts.reversed().stream().map(Attempt::sql).filter(s -> !s.isEmpty()).findFirst();
    }

    public static final class Builder extends AssistantOptions<Builder> {
        private final String login;
        private final ArangoBridge bridge;
        private final NlSettings settings;
        private AqlPolicy policy = AqlPolicy.UNRESTRICTED;

        private Builder(String login, ArangoBridge bridge, NlSettings settings) {
            super(settings);
            this.login = Objects.requireNonNull(login, "login");
            this.bridge = Objects.requireNonNull(bridge, "bridge");
            this.settings = settings;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * The login's selection, row cap and timeout on ArangoDB: generated AQL is checked against the selection
         * (a refusal is fed back to the model), the prompt shows only what it selects, and runs have its limits.
         */
        public Builder policy(AqlPolicy loginPolicy) {
            this.policy = Objects.requireNonNull(loginPolicy, "policy");
            return this;
        }

        public AqlAssistant build() {
            return new AqlAssistant(this);
        }
    }

    @Override
    public String toString() {
        return "AqlAssistant[login=" + login + ", database=" + bridge.config().name() + ", provider="
                + settings.provider().map(Object::toString).orElse("none") + ", rules="
                + (rules.isBlank() ? "none" : rules.lines().count() + " lines") + "]";
    }
}
