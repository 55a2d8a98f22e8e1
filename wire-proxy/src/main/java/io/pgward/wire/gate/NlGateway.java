package io.pgward.wire.gate;

import io.pgward.guard.Verdict;
import io.pgward.guard.policy.LoginGuard;
import io.pgward.guard.selection.ResolvedSelection;
import io.pgward.guard.selection.SelectedRelation;
import io.pgward.nl.AskResult;
import io.pgward.nl.Attempt;
import io.pgward.nl.ExplainValidator;
import io.pgward.nl.Generation;
import io.pgward.nl.NlAssistant;
import io.pgward.nl.NlAuditListener;
import io.pgward.nl.NlException;
import io.pgward.nl.NlSettings;
import io.pgward.nl.PgwardCall;
import io.pgward.nl.RefreshResult;
import io.pgward.nl.RelationRef;
import io.pgward.nl.SchemaCatalog;
import io.pgward.nl.SchemaRow;
import io.pgward.nl.SqlGuard;
import io.pgward.nl.SqlResult;
import io.pgward.nl.StatementValidator;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.metrics.PgwardMetrics;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The natural-language {@code pgward.*} functions of a pgward with an {@code nl:} section. Per (login, database):
 * one {@link SchemaCatalog} that reflects as the login's role on its control pool, restricted to its resolved table
 * selection and read again when the catalog check notices a schema change; and one {@link NlAssistant} with the
 * login's rules and row cap. Each question is validated by every guard layer of the login (L1 and L2, then L3 for
 * each statement that reads, with the session's search_path) and then EXPLAIN as the login's role with that
 * search_path.
 *
 * <p>A question's rows come from the client's own backend session ({@link Verdict.Rewrite}), so the login's
 * read-only mode, statement timeout and row cap apply to them. Everything that blocks (reflection, the LLM,
 * EXPLAIN) runs on virtual threads; the returned stage never fails: a fault is a refusal.
 */
final class NlGateway implements NlFunctions, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NlGateway.class);

    /** The search_path PostgreSQL starts sessions with; value samples name their relations in full anyway. */
    private static final String DEFAULT_SEARCH_PATH = "\"$user\", public";

    private final NlSettings settings;
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("pgward-nl-", 0).factory());
    /**
     * By the login's whole configuration and the database: a reload that changes a login's selection or rules must
     * not leave its new sessions with the prompt and schema of the old ones.
     */
    private final ConcurrentHashMap<LoginOnDatabase, LoginNl> logins = new ConcurrentHashMap<>();

    private record LoginOnDatabase(PgwardConfig.Login login, String database) {
    }

    /** After a reload: forgets the prompts and schemas of logins' earlier configurations. */
    void retain(java.util.Collection<PgwardConfig.Login> configured) {
        java.util.Set<PgwardConfig.Login> kept = java.util.Set.copyOf(configured);
        logins.entrySet().removeIf(entry -> {
            if (kept.contains(entry.getKey().login())) {
                return false;
            }
            entry.getValue().forget();
            return true;
        });
    }
    private final AuditLog audit;
    private volatile PgwardMetrics metrics;

    /** Writes questions, attempts and verdicts to {@code audit} (none when null). */
    NlGateway(NlSettings settings, AuditLog audit) {
        this.audit = audit;
        this.settings = settings;
    }

    @Override
    public CompletionStage<Verdict> answer(PgwardCall call, PgwardConfig.Login login, GateRequest request,
                                           LoginGuard loginGuard) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return answerNow(call, login, request, loginGuard);
            } catch (NlException e) {
                return new Verdict.Refuse(e.sqlState(), e.getMessage(), 0, "nl");
            } catch (RuntimeException e) {
                log.warn("a natural-language call of login \"{}\" failed", login.name(), e);
                return new Verdict.Refuse(SqlState.INTERNAL_ERROR, "pgward could not answer: " + e, 0, "nl");
            }
        }, executor);
    }

    private Verdict answerNow(PgwardCall call, PgwardConfig.Login login, GateRequest request,
                              LoginGuard loginGuard) throws NlException {
        // A login guard made anew (the guard closed the last one's control pools after its idle timeout) reads the
        // schema through new pools: the assistant of the old one would read through closed ones.
        LoginNl nl = logins.compute(new LoginOnDatabase(login, request.database()), (key, known) -> {
            if (known != null && known.loginGuard == loginGuard) {
                return known;
            }
            if (known != null) {
                known.forget();
            }
            return new LoginNl(login, request.database(), loginGuard);
        });
        nl.used = true;
        return switch (call) {
            case PgwardCall.Ask ask -> switch (nl.assistant.withValidator(validator(login, request, loginGuard))
                    .ask(ask.question(), ask.rowLimit())) {
                case AskResult.Rows rows -> new Verdict.Rewrite(rows.sqlToRun(),
                        List.of("pgward ran this query for the question (at most " + rows.rowLimit() + " rows):\n"
                                + rows.generatedSql()));
                case AskResult.Answer answer -> rows(List.of("answer"), List.of(List.of(answer.answer())));
            };
            case PgwardCall.Sql sql -> {
                SqlResult result = nl.assistant.withValidator(validator(login, request, loginGuard))
                        .sql(sql.question());
                List<String> row = new ArrayList<>();
                row.add(result.sql().orElse(null));
                row.add(Boolean.toString(result.valid()));
                row.add(result.error().orElse(null));
                row.add(result.answer().orElse(null));
                yield rows(List.of("sql", "valid", "error", "answer"), List.of(row));
            }
            case PgwardCall.Schema schema -> rows(SchemaRow.COLUMNS,
                    nl.assistant.schema(schema.relation()).stream().map(NlGateway::row).toList());
            case PgwardCall.RefreshSchema refresh -> switch (nl.assistant.refreshSchema()) {
                case RefreshResult.Refreshed done -> rows(List.of("refreshed_at"),
                        List.of(List.of(done.refreshedAt().toString())));
                case RefreshResult.Failed failed -> new Verdict.Refuse(NlException.SCHEMA_UNAVAILABLE,
                        failed.message(), 0, "nl");
            };
            case PgwardCall.Aql aql -> new Verdict.Refuse(SqlState.FEATURE_NOT_SUPPORTED, "pgward.aql() answers on "
                    + "an ArangoDB database; this database is PostgreSQL, where pgward.sql('question') gives the SQL",
                    0, "nl");
            case PgwardCall.Dialect dialect -> rows(List.of("dialect"), List.of(List.of(NlAssistant.dialect())));
            case PgwardCall.Relations r -> throw new IllegalStateException("pgward.relations() is not a question");
            case PgwardCall.Describe d -> throw new IllegalStateException("pgward.describe() is not a question");
        };
    }

    /** Every guard layer of the login, then EXPLAIN, with this session's search_path. */
    private StatementValidator validator(PgwardConfig.Login login, GateRequest request, LoginGuard loginGuard)
            throws NlException {
        String searchPath = request.searchPath();
        if (searchPath == null && login.mode() == PgwardConfig.Mode.READ_WRITE) {
            // A read-write login's session does not follow its search_path (nothing else it runs is checked): its
            // question's statement is checked with the path PostgreSQL starts sessions with.
            searchPath = DEFAULT_SEARCH_PATH;
        }
        if (searchPath == null) {
            throw new NlException(SqlState.INTERNAL_ERROR, "pgward cannot check a generated query: the session's "
                    + "search_path is not known");
        }
        boolean scs = request.standardConformingStrings();
        String path = searchPath;
        SqlGuard layers = sql -> refusal(loginGuard.decideNow(sql, path, scs));
        return new ExplainValidator(loginGuard.control()::getConnection, Optional.of(login.backendUser()),
                Optional.of(path), settings.explainTimeout()).after(failClosed(layers));
    }

    private static Optional<String> refusal(Verdict verdict) {
        return verdict instanceof Verdict.Refuse refuse ? Optional.of(refuse.message()) : Optional.empty();
    }

    /** A guard that throws refuses: the statement is never offered as valid. */
    private static SqlGuard failClosed(SqlGuard guard) {
        return sql -> {
            try {
                return guard.refusal(sql);
            } catch (RuntimeException e) {
                return Optional.of("pgward could not check this statement: " + e.getMessage());
            }
        };
    }

    private static List<String> row(SchemaRow row) {
        List<String> values = new ArrayList<>();
        values.add(row.relation());
        values.add(row.kind());
        values.add(row.column().orElse(null));
        values.add(row.type().orElse(null));
        values.add(Boolean.toString(row.notNull()));
        values.add(Boolean.toString(row.primaryKey()));
        values.add(row.references().orElse(null));
        values.add(row.comment().orElse(null));
        return values;
    }

    private static Verdict rows(List<String> columns, List<List<String>> rows) {
        return new Verdict.Answer(columns, rows, "SELECT " + rows.size(), List.of());
    }

    @Override
    public void close() {
        executor.shutdown();
    }

    /** One login on one database: its schema cache and its assistant. */
    private final class LoginNl {
        final LoginGuard loginGuard;
        final SchemaCatalog catalog;
        final NlAssistant assistant;
        /** Set once a call used the catalog: only then is a schema change worth reading again. */
        volatile boolean used;
        private final Runnable stopListening;

        LoginNl(PgwardConfig.Login login, String database, LoginGuard loginGuard) {
            this.loginGuard = loginGuard;
            SchemaCatalog.Builder builder = SchemaCatalog.builder(loginGuard.control()::getConnection)
                    .role(login.backendUser())
                    .sampleGuard(failClosed(sql -> refusal(loginGuard.proveNow(sql, DEFAULT_SEARCH_PATH, true))))
                    .settings(settings);
            if (loginGuard.resolved().isSet() || loginGuard.resolved().noneExists()) {
                builder.selection(selected(loginGuard));
            }
            this.catalog = builder.build();
            NlAssistant.Builder assistant = NlAssistant.builder(login.name(), settings, catalog)
                    .rules(login.policy().rules() == null ? "" : login.policy().rules())
                    // Each session validates with its own search_path (withValidator); this one is never used.
                    .validator(sql -> Optional.of("no session"))
                    .audit(new NlAudit(database));
            if (login.policy().rowCap() > 0) {
                assistant.rowCap(login.policy().rowCap());
            }
            this.assistant = assistant.build();
            this.stopListening = loginGuard.check().onSchemaChange(() -> {
                if (used) {
                    executor.execute(this::refreshAfterChange);
                }
            });
        }

        /** A reload dropped its login policy: its schema is no longer read again after each change. */
        void forget() {
            stopListening.run();
        }

        private void refreshAfterChange() {
            if (catalog.refresh() instanceof RefreshResult.Failed failed) {
                log.warn("{}; the last schema read stands", failed.message());
            }
        }
    }

    /**
     * The selection as last resolved (it is resolved again after each schema change, so a selected table dropped
     * and created again is found under its new oid).
     */
    private static Predicate<RelationRef> selected(LoginGuard loginGuard) {
        return ref -> oids(loginGuard.resolved()).contains(ref.oid());
    }

    private static Set<Long> oids(ResolvedSelection resolved) {
        return resolved.relations().stream().map(SelectedRelation::oid).collect(Collectors.toUnmodifiableSet());
    }

    /** Counts questions and attempts in {@code metrics} from now on. */
    void countIn(PgwardMetrics metrics) {
        this.metrics = metrics;
    }

    /** Audit lines for questions: the question, each attempt with its SQL and outcome, the verdict. */
    private final class NlAudit implements NlAuditListener {
        private final String database;

        NlAudit(String database) {
            this.database = database;
        }

        @Override
        public void question(String login, String question) {
            write(login, "nl-question", null, question);
        }

        @Override
        public void attempt(String login, String question, Attempt attempt) {
            PgwardMetrics counted = metrics;
            if (counted != null) {
                counted.forLogin(login).nlAttempt(attempt.passed());
            }
            write(login, "nl-attempt", attempt.passed() ? "passed" : "rejected", "-- attempt " + attempt.number()
                    + (attempt.error().map(e -> ": " + e.replace('\n', ' ')).orElse("")) + "\n" + attempt.sql());
        }

        @Override
        public void verdict(String login, String question, Generation generation) {
            String outcome = switch (generation) {
                case Generation.Valid v -> "valid-sql";
                case Generation.NotAboutDatabase n -> "not-about-database";
                case Generation.Exhausted e -> "all-attempts-failed";
                case Generation.ProviderFailed p -> "provider-failed";
            };
            PgwardMetrics counted = metrics;
            if (counted != null) {
                counted.forLogin(login).nlQuestion(outcome);
            }
            write(login, "nl-verdict", outcome, question);
        }

        private void write(String login, String verdict, String rule, String statement) {
            AuditLog target = audit;
            if (target != null) {
                target.record(new AuditLog.Entry("nl", login, database, verdict, rule, statement, 0));
            }
        }
    }
}
