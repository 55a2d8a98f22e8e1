package io.pgward.wire.arango;

import dev.langchain4j.model.chat.ChatModel;
import io.pgward.arango.AqlAskResult;
import io.pgward.arango.AqlAssistant;
import io.pgward.arango.AqlCompletion;
import io.pgward.arango.AqlException;
import io.pgward.arango.AqlResult;
import io.pgward.arango.ArangoBridge;
import io.pgward.arango.GeneratedAql;
import io.pgward.guard.Verdict;
import io.pgward.nl.NlException;
import io.pgward.nl.NlSettings;
import io.pgward.nl.PgwardCall;
import io.pgward.nl.PgwardCallParser;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.local.LocalDatabaseException;
import io.pgward.wire.protocol.SqlState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code pgward.*} functions on an ArangoDB session: questions become read-only AQL ({@code pgward.ask} and
 * the {@code nl:} comment form run it, {@code pgward.aql} only shows it), {@code pgward.schema} and
 * {@code pgward.refresh_schema} read the reflected schema, {@code pgward.dialect} says arango. The SQL-only
 * functions are refused here. Runs on the statement's own thread (it blocks).
 */
final class ArangoQuestions {

    private final ArangoBridge bridge;
    private final NlSettings settings;
    private final ChatModel model;
    private final LoginPolicies policies;
    /** By login and policy: a reload that changes the policy must not leave new sessions with the old assistant. */
    private final Map<Map.Entry<String, PgwardConfig.Policy>, AqlAssistant> assistants = new ConcurrentHashMap<>();

    /** @param model the shared chat model, or null to make one from {@code settings} (none without a provider) */
    ArangoQuestions(ArangoBridge bridge, NlSettings settings, ChatModel model, LoginPolicies policies) {
        this.bridge = bridge;
        this.policies = policies;
        this.settings = settings;
        this.model = model;
    }

    /** The answer when the statement calls one of pgward's functions; empty when it is AQL to run. */
    Optional<Verdict.Answer> answer(LocalDatabase.Statement statement) {
        Optional<PgwardCall> call;
        try {
            call = PgwardCallParser.recognize(statement.sql(), true);
        } catch (NlException e) {
            throw LocalDatabaseException.error(e.sqlState(), e.getMessage());
        }
        if (call.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(answer(call.get(), assistant(statement.login(), statement.policy())));
        } catch (NlException e) {
            throw LocalDatabaseException.error(e.sqlState(), e.getMessage());
        } catch (AqlException e) {
            throw ArangoLocalDatabase.asLocalError(e);
        }
    }

    private Verdict.Answer answer(PgwardCall call, AqlAssistant assistant) throws NlException {
        return switch (call) {
            case PgwardCall.Ask ask -> switch (assistant.ask(ask.question(), ask.rowLimit())) {
                case AqlAskResult.Rows rows -> run(assistant, rows);
                case AqlAskResult.Answer answer -> one(List.of("answer"), answer.answer());
            };
            case PgwardCall.Aql aql -> {
                GeneratedAql generated = assistant.aql(aql.question());
                yield new Verdict.Answer(GeneratedAql.COLUMNS, List.of(generated.row()), "SELECT 1", List.of());
            }
            case PgwardCall.Schema schema -> rows(assistant.schema(schema.relation()));
            case PgwardCall.RefreshSchema refresh -> {
                bridge.refreshSchema();
                yield one(List.of("refreshed_at"), Instant.now().toString());
            }
            case PgwardCall.Dialect dialect -> one(List.of("dialect"), AqlAssistant.dialect());
            case PgwardCall.Sql sql -> throw notHere("pgward.sql", "pgward.aql");
            case PgwardCall.Relations relations -> throw notHere("pgward.relations", "pgward.schema");
            case PgwardCall.Describe describe -> throw notHere("pgward.describe", "pgward.schema");
        };
    }

    private static Verdict.Answer run(AqlAssistant assistant, AqlAskResult.Rows rows) {
        ArangoLocalDatabase.Rows collected = new ArangoLocalDatabase.Rows();
        AqlCompletion completion = assistant.run(rows, collected);
        List<String> notices = new ArrayList<>();
        notices.add("AQL: " + rows.generatedAql());
        notices.addAll(completion.warnings());
        return new Verdict.Answer(collected.columns, collected.rows, completion.commandTag(), notices);
    }

    private static Verdict.Answer rows(AqlResult result) {
        return new Verdict.Answer(result.columns(), result.rows(), result.commandTag(), List.of());
    }

    private static Verdict.Answer one(List<String> columns, String value) {
        return new Verdict.Answer(columns, List.of(List.of(value)), "SELECT 1", List.of());
    }

    private static LocalDatabaseException notHere(String function, String instead) {
        return LocalDatabaseException.error(SqlState.FEATURE_NOT_SUPPORTED, function + " is not available on an "
                + "ArangoDB database; use " + instead);
    }

    private AqlAssistant assistant(String loginName, PgwardConfig.Policy policy) {
        return assistants.computeIfAbsent(Map.entry(loginName, policy), key -> {
            String name = key.getKey();
            AqlAssistant.Builder builder = AqlAssistant.builder(name, bridge, settings)
                    .policy(policies.of(name, policy));
            if (model != null) {
                builder.chatModel(model);
            }
            if (policy.rules() != null) {
                builder.rules(policy.rules());
            }
            if (policy.rowCap() > 0) {
                builder.rowCap(policy.rowCap());
            }
            return builder.build();
        });
    }
}
