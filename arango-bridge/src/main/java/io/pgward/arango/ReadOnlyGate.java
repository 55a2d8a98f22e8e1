package io.pgward.arango;

import com.arangodb.ArangoDBException;
import com.arangodb.ArangoDatabase;
import com.arangodb.entity.AqlQueryExplainEntity;
import com.arangodb.model.ExplainAqlQueryOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether a statement may run for a read-only login.
 *
 * <p>The EXPLAIN plan is authoritative (see {@link PlanCheck}); asking for it also surfaces syntax errors with
 * ArangoDB's own message and number before anything runs. Fails closed: an EXPLAIN that does not answer is an
 * error, never an allow.
 *
 * <p>The keyword scan is the backstop, and it never refuses on its own. A statement in which no write keyword
 * appears outside strings, comments and quoted names cannot modify data in AQL, so once its plan has been seen
 * to read, the text is remembered and later runs (the question path validates, then runs the same text) skip
 * the second EXPLAIN. A statement in which a write keyword does appear, an attribute {@code doc.update} or a real
 * UPDATE, is never remembered: every run defers to a fresh plan check, which lets the read through and stops the
 * write.
 */
final class ReadOnlyGate {

    private static final Logger log = LoggerFactory.getLogger(ReadOnlyGate.class);
    private static final int REMEMBERED_READS = 1024;

    private final ArangoDatabase db;
    private final Set<String> knownReads = Collections.synchronizedSet(Collections.newSetFromMap(
            new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > REMEMBERED_READS;
                }
            }));

    ReadOnlyGate(ArangoDatabase db) {
        this.db = db;
    }

    /** Returns normally when the statement only reads; throws {@link AqlException} otherwise. */
    void check(String aql, Map<String, Object> bindVars) {
        Optional<String> keyword = WriteKeywords.firstMatch(aql);
        boolean rememberable = keyword.isEmpty() && bindVars.isEmpty();
        if (rememberable && knownReads.contains(aql)) {
            return;
        }
        AqlQueryExplainEntity explained;
        try {
            explained = db.explainAqlQuery(aql, bindVars, new ExplainAqlQueryOptions());
        } catch (ArangoDBException e) {
            throw ArangoErrors.translate(e);
        }
        Optional<String> evidence = PlanCheck.writeEvidence(explained == null ? null : explained.getPlan());
        if (evidence.isPresent()) {
            throw AqlException.refused("AQL refused: this login may only read, and " + evidence.get());
        }
        if (rememberable) {
            knownReads.add(aql);
        } else {
            keyword.ifPresent(k -> log.debug("write keyword {} matched, and the plan only reads", k));
        }
    }
}
