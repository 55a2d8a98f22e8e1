package io.pgward.arango;

import com.arangodb.ArangoDBException;
import com.arangodb.ArangoDatabase;
import com.arangodb.Request;
import com.arangodb.Response;
import com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Decides whether a statement may run for a read-only login.
 *
 * <p>The EXPLAIN plan is authoritative (see {@link PlanCheck}); asking for it also surfaces syntax errors with
 * ArangoDB's own message and number before anything runs. Fails closed: an EXPLAIN that does not answer is an
 * error, never an allow.
 *
 * <p>What a plan reads is checked against the login's {@link AqlPolicy} on every run, from the plan's facts
 * ({@link PlanFacts}), which do not depend on the login.
 *
 * <p>The keyword scan is the backstop, and it never refuses on its own. A statement in which no write keyword
 * appears outside strings, comments and quoted names cannot modify data in AQL, so once its plan has been seen
 * to read, the text is remembered and later runs (the question path validates, then runs the same text) skip
 * the second EXPLAIN. A statement in which a write keyword does appear, an attribute {@code doc.update} or a real
 * UPDATE, is never remembered: every run defers to a fresh plan check, which lets the read through and stops the
 * write.
 *
 * <p>What a text reads is remembered for {@link #REMEMBERED_FOR} only: a name's meaning can change (a collection
 * dropped and a view of the same name linking other collections created), and a stale list of data sources
 * would then check a selection against what the statement no longer reads. The question path's validate-then-run
 * falls well within it.
 */
final class ReadOnlyGate {

    private static final Logger log = LoggerFactory.getLogger(ReadOnlyGate.class);
    private static final int REMEMBERED_READS = 1024;
    static final Duration REMEMBERED_FOR = Duration.ofSeconds(10);

    private record Remembered(PlanFacts facts, long since) {
    }

    private final AqlLimits limits;
    private final LongSupplier nanoTime;
    /** The facts of texts whose plans were seen to read; selections are checked against them on every run. */
    private final Map<String, Remembered> knownReads = Collections.synchronizedMap(
            new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Remembered> eldest) {
                    return size() > REMEMBERED_READS;
                }
            });

    ReadOnlyGate(AqlLimits limits) {
        this(limits, System::nanoTime);
    }

    ReadOnlyGate(AqlLimits limits, LongSupplier nanoTime) {
        this.limits = limits;
        this.nanoTime = nanoTime;
    }

    /**
     * Returns normally when the statement only reads what {@code policy} selects; throws otherwise.
     *
     * @param db the database as the login reaches it, so EXPLAIN runs with the login's own grants
     */
    void check(ArangoDatabase db, String aql, Map<String, Object> bindVars, AqlPolicy policy) {
        Optional<String> keyword = WriteKeywords.firstMatch(aql);
        boolean rememberable = keyword.isEmpty() && bindVars.isEmpty();
        PlanFacts facts = rememberable ? remembered(aql) : null;
        if (facts == null) {
            facts = PlanCheck.read(explain(db, aql, bindVars, policy));
            if (facts.refusal().isPresent()) {
                throw AqlException.refused("AQL refused: this login may only read, and " + facts.refusal().get());
            }
            if (rememberable) {
                knownReads.put(aql, new Remembered(facts, nanoTime.getAsLong()));
            } else {
                keyword.ifPresent(k -> log.debug("write keyword {} matched, and the plan only reads", k));
            }
        }
        Optional<String> refusal = policy.refusal(facts);
        if (refusal.isPresent()) {
            throw AqlException.notSelected(refusal.get());
        }
    }

    private PlanFacts remembered(String aql) {
        Remembered remembered = knownReads.get(aql);
        if (remembered == null || nanoTime.getAsLong() - remembered.since() > REMEMBERED_FOR.toNanos()) {
            return null;
        }
        return remembered.facts();
    }

    /**
     * {@code POST /_api/explain}, read as JSON so that every member of every node can be looked at. Planning
     * runs constant folding ({@code RETURN LENGTH(RANGE(1, 1e8))} is computed there), so EXPLAIN carries the
     * same runtime and memory limits as the statement.
     */
    private JsonNode explain(ArangoDatabase db, String aql, Map<String, Object> bindVars, AqlPolicy policy) {
        AqlLimits applied = policy.applyTo(limits);
        Map<String, Object> options = new LinkedHashMap<>();
        options.put("maxRuntime", applied.maxRuntimeSeconds());
        options.put("memoryLimit", applied.memoryLimitBytes());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("query", aql);
        body.put("bindVars", bindVars);
        body.put("options", options);
        try {
            Response<JsonNode> response = db.arango().execute(Request.<Map<String, Object>>builder()
                    .db(db.name()).method(Request.Method.POST).path("/_api/explain").body(body).build(),
                    JsonNode.class);
            JsonNode answer = response.getBody();
            return answer == null ? null : answer.get("plan");
        } catch (ArangoDBException e) {
            throw ArangoErrors.translate(e);
        }
    }
}
