package io.pgward.wire.arango;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgward.arango.AqlCompletion;
import io.pgward.arango.AqlException;
import io.pgward.arango.AqlText;
import io.pgward.arango.ArangoBridge;
import io.pgward.arango.ExecutionMode;
import io.pgward.arango.RowSink;
import io.pgward.guard.Verdict;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.local.LocalDatabaseException;
import io.pgward.wire.protocol.SqlState;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * An ArangoDB database served under a pgward database name: each statement is AQL, run by the
 * {@link ArangoBridge} on a virtual thread, read-only logins through the bridge's plan gate, read-write logins
 * raw, each under its login's policy on this database ({@link LoginPolicies}: selection, row cap, timeout). Rows
 * come back as text columns; ArangoDB's warnings become notices.
 *
 * <p>PostgreSQL parameters {@code $1 ...} become the AQL bind parameters {@code @p1 ...}. Their value follows
 * the type the client declared: integer and floating-point types as numbers, {@code bool} as a boolean,
 * {@code json}/{@code jsonb} as the JSON value, everything else (text, varchar, unspecified) as a string.
 */
public final class ArangoLocalDatabase implements LocalDatabase {

    /** The audit rule of a statement the read-only gate refused. */
    public static final String GATE_RULE = "arango-plan";
    /** The audit rule of a statement that reads outside the login's selection or a system collection. */
    public static final String SELECTION_RULE = "arango-selection";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ArangoBridge bridge;
    /** Where statements run: owned by whoever serves this database, which shuts it down. */
    private final ExecutorService statements;
    private final ArangoQuestions questions;
    private final LoginPolicies policies;
    private final Map<String, String> parameterStatus;

    ArangoLocalDatabase(ArangoBridge bridge, ArangoQuestions questions, LoginPolicies policies,
                        ExecutorService statements) {
        this.bridge = bridge;
        this.policies = policies;
        this.statements = statements;
        this.questions = questions;
        this.parameterStatus = LocalDatabase.standardParameterStatus(
                "17.0 (pgward, ArangoDB " + bridge.serverInfo().version() + ")");
    }

    @Override
    public CompletionStage<Verdict.Answer> execute(Statement statement) {
        return submit(() -> run(statement, null));
    }

    /** AQL's rows go to the client batch by batch (the cursor's batches); pgward's own answers come whole. */
    @Override
    public CompletionStage<Verdict.Answer> stream(Statement statement, ResultStream out) {
        return submit(() -> run(statement, out));
    }

    private CompletionStage<Verdict.Answer> submit(java.util.concurrent.Callable<Verdict.Answer> statement) {
        CompletableFuture<Verdict.Answer> answer = new CompletableFuture<>();
        Future<?> work = statements.submit(() -> {
            try {
                answer.complete(statement.call());
            } catch (Throwable e) {
                answer.completeExceptionally(e);
            }
        });
        // A cancel fails the answer from outside; the thread is interrupted so the driver stops waiting.
        answer.whenComplete((result, failure) -> {
            if (failure != null) {
                work.cancel(true);
            }
        });
        return answer;
    }

    @Override
    public boolean isEmpty(String statement) {
        // A comment that asks a question (/* nl: ... */) is a statement here, as on a PostgreSQL database.
        return AqlText.isEmpty(statement) && io.pgward.nl.NlComment.question(statement).isEmpty();
    }

    @Override
    public Map<String, String> parameterStatus() {
        return parameterStatus;
    }

    public ArangoBridge bridge() {
        return bridge;
    }

    /** @param out where rows stream to, or null to collect them into the answer */
    private Verdict.Answer run(Statement statement, ResultStream out) {
        Optional<Verdict.Answer> setting = ClientSettings.answer(statement.sql());
        if (setting.isPresent()) {
            return setting.get();
        }
        Optional<Verdict.Answer> function = questions.answer(statement);
        if (function.isPresent()) {
            return function.get();
        }
        AqlText.Prepared prepared = AqlText.prepare(statement.sql());
        Map<String, Object> bindVars = bindVars(prepared, statement);
        ExecutionMode mode = statement.readOnly() ? ExecutionMode.READ_ONLY : ExecutionMode.RAW;
        Rows rows = out == null ? new Rows() : new StreamedRows(out, bridge.config().limits().batchSize());
        try {
            AqlCompletion completion = bridge.run(prepared.aql(), bindVars, mode,
                    policies.of(statement.login(), statement.policy()), rows);
            rows.finish();
            return new Verdict.Answer(rows.columns, rows.rows, completion.commandTag(), completion.warnings());
        } catch (AqlException e) {
            throw asLocalError(e);
        }
    }

    static LocalDatabaseException asLocalError(AqlException e) {
        String detail = e.errorNum() == 0 ? null : "ArangoDB error " + e.errorNum();
        String rule = switch (e.reason()) {
            case REFUSED -> GATE_RULE;
            case NOT_SELECTED -> SELECTION_RULE;
            default -> null;
        };
        return new LocalDatabaseException(e.sqlState(), e.getMessage(), detail, null,
                rule == null ? "error" : "refuse", rule);
    }

    private static Map<String, Object> bindVars(AqlText.Prepared prepared, Statement statement) {
        Map<String, Object> vars = new LinkedHashMap<>();
        for (int number : prepared.parameters()) {
            if (number < 1 || number > statement.parameters().size()) {
                throw LocalDatabaseException.error(SqlState.UNDEFINED_PARAMETER, "there is no parameter $" + number);
            }
            int type = number <= statement.parameterTypes().size() ? statement.parameterTypes().get(number - 1) : 0;
            vars.put(AqlText.bindName(number), value(statement.parameters().get(number - 1), type, number));
        }
        return vars;
    }

    private static Object value(String text, int type, int number) {
        if (text == null) {
            return null;
        }
        try {
            return switch (type) {
                case 20, 21, 23 -> Long.parseLong(text.strip());
                case 700, 701, 1700 -> new BigDecimal(text.strip());
                case 16 -> switch (text.strip().toLowerCase(java.util.Locale.ROOT)) {
                    case "t", "true", "on", "yes", "1" -> true;
                    case "f", "false", "off", "no", "0" -> false;
                    default -> throw new NumberFormatException();
                };
                case 114, 3802 -> JSON.readValue(text, Object.class);
                default -> text;
            };
        } catch (NumberFormatException | JsonProcessingException e) {
            throw LocalDatabaseException.error(SqlState.INVALID_TEXT_REPRESENTATION, "invalid input for parameter $"
                    + number + " of type " + type + ": \"" + text + "\"");
        }
    }

    /** Keeps the rows of one statement; the row cap of the bridge bounds how many. */
    static class Rows implements RowSink {
        List<String> columns = List.of();
        final List<List<String>> rows = new ArrayList<>();

        @Override
        public void columns(List<String> names) {
            columns = List.copyOf(names);
        }

        @Override
        public void row(List<String> values) {
            rows.add(Collections.unmodifiableList(new ArrayList<>(values)));
        }

        /** After the last row. */
        void finish() {
        }
    }

    /**
     * Hands rows on to the client in batches of the cursor's batch size, keeping none of them: the answer ends
     * with the command tag only. The columns are remembered, empty or not, so the answer says whether the
     * statement had a result set.
     */
    static final class StreamedRows extends Rows {
        private final ResultStream out;
        private final int batchSize;
        private final List<List<String>> batch = new ArrayList<>();

        StreamedRows(ResultStream out, int batchSize) {
            this.out = out;
            this.batchSize = batchSize;
        }

        @Override
        public void columns(List<String> names) {
            super.columns(names);
            out.columns(columns);
        }

        @Override
        public void row(List<String> values) {
            batch.add(Collections.unmodifiableList(new ArrayList<>(values)));
            if (batch.size() >= batchSize) {
                finish();
            }
        }

        @Override
        void finish() {
            if (!batch.isEmpty()) {
                out.rows(List.copyOf(batch));
                batch.clear();
            }
        }
    }
}
