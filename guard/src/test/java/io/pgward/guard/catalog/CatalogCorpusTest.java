package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.guard.classify.CorpusFiles;
import io.pgward.guard.classify.ReadOnlyClassifier;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replays the guard corpus through the catalog check for the corpus's login (selection public.orders,
 * public.customers, public.v_sales, public.mv_region; the backend role is the database owner, as the corpus README
 * allows). Every case whose statements L1 and L2 all allow must get the corpus verdict from L3 alone, except the
 * cases {@link #RUNTIME_LIMITS} names: what they do wrong is how long they run or how much they produce, which no
 * analysis of the statement decides (layer L4: statement timeout and row cap). A {@code block} case must be refused
 * (L3 reports PostgreSQL's own analysis errors as refusals too); a {@code no-leak} case may be allowed or refused
 * here, since whether it leaks is a property of its result, which CorpusReplayIT reads through the proxy.
 */
@PostgresTest
class CatalogCorpusTest {

    static final Map<String, String> RUNTIME_LIMITS = Map.of(
            "dos-04", "an unbounded recursive CTE over no table: only the statement timeout ends it",
            "dos-05", "a four-way self join of a selected table: only the statement timeout ends it",
            "dos-06", "repeat('x', 500000000): a built-in that only computes; the server's memory limits apply",
            "dos-07", "string_agg over generate_series(1, 50000000): only the statement timeout ends it");

    private static CatalogCheck check;
    private static TableSelection selection;
    /** The same selection with its catalog filters, as a login has it: what the serving rewrites need. */
    private static TableSelection filtered;
    private static ReadOnlyClassifier classifier;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            GuardFixture.load(c);
            selection = GuardFixture.selection(c);
            filtered = FilteredFixture.filteredSelection(c, GuardFixture.SELECTED);
        }
        assertEquals(4, selection.relations().size());
        check = CatalogChecks.on(db);
        classifier = new ReadOnlyClassifier();
    }

    @AfterAll
    static void stop() {
        check.close();
        classifier.close();
    }

    @Test
    void everyCaseL2AllowsGetsItsCorpusVerdictFromL3() throws Exception {
        ReadOnlyPolicy policy = new ReadOnlyPolicy("analyst", Duration.ofSeconds(30));
        List<String> mismatches = new ArrayList<>();
        List<String> limits = new ArrayList<>();
        Map<String, int[]> perCategory = new TreeMap<>();   // reached L3, as expected
        int reached = 0;
        List<Long> micros = new ArrayList<>();
        for (CorpusFiles.Case c : CorpusFiles.cases()) {
            List<StatementText> statements;
            try {
                statements = SqlLexer.split(c.sql(), true);
            } catch (LexerException e) {
                continue;   // L1 refuses it
            }
            if (!allowedByL2(statements, policy)) {
                continue;
            }
            reached++;
            String refusal = null;
            long started = System.nanoTime();
            for (StatementText s : statements) {
                CheckRequest request = CheckRequest.of(selection, null, "\"$user\", public", s.text());
                if (check.checkNow(request) instanceof Verdict.Refuse r && !servedWithVisibleSchemas(r, s)) {
                    refusal = r.rule() + " " + r.sqlState() + ": " + r.message();
                    break;
                }
            }
            micros.add((System.nanoTime() - started) / 1_000);
            boolean asExpected = switch (c.expect()) {
                case "allow" -> refusal == null;
                case "no-leak" -> true;
                default -> refusal != null;   // refuse, block
            };
            int[] n = perCategory.computeIfAbsent(c.category(), k -> new int[2]);
            n[0]++;
            n[1] += asExpected ? 1 : 0;
            if (!asExpected && RUNTIME_LIMITS.containsKey(c.id())) {
                limits.add(c.id());
            } else if (!asExpected) {
                mismatches.add(c.id() + " expected " + c.expect() + ": " + c.sql()
                        + (refusal == null ? "" : "\n    -> " + refusal));
            }
        }
        StringBuilder out = new StringBuilder("\nGuard corpus through L3 (cases L1 and L2 allow: " + reached + ")\n");
        perCategory.forEach((k, n) -> out.append(String.format("%-24s %4d reached, %4d as expected%n", k, n[0], n[1])));
        out.append("Left to runtime limits (L4): ").append(limits).append('\n');
        micros.sort(null);
        out.append(String.format("First-sight check time: median %d µs, p90 %d µs, max %d µs%n",
                micros.get(micros.size() / 2), micros.get(micros.size() * 9 / 10), micros.getLast()));
        System.out.println(out);
        assertTrue(mismatches.isEmpty(), mismatches.size() + " case(s) got the wrong verdict:\n"
                + String.join("\n", mismatches));
        assertEquals(RUNTIME_LIMITS.keySet(), Set.copyOf(limits),
                "the runtime-limit cases must still reach L3 and be allowed by it");
    }

    /**
     * Whether a refusal of current_schema or current_schemas is one the login never gets: with its catalog filters the
     * statement is served rewritten, keeping the schemas it sees (SchemaPathCalls), and allowed.
     */
    private static boolean servedWithVisibleSchemas(Verdict.Refuse refusal, StatementText statement) {
        if (!refusal.equals(CatalogRefusals.deniedBuiltIn("current_schema"))
                && !refusal.equals(CatalogRefusals.deniedBuiltIn("current_schemas"))) {
            return false;
        }
        Served served = check.serve(CheckRequest.of(filtered, null, "\"$user\", public", statement.text()), statement)
                .toCompletableFuture().join();
        return served.verdict() instanceof Verdict.Allow && !served.text().equals(statement.text());
    }

    private static boolean allowedByL2(List<StatementText> statements, ReadOnlyPolicy policy) {
        Set<String> cursors = new HashSet<>();
        for (StatementText s : statements) {
            if (classifier.classify(s, policy, cursors) instanceof Verdict.Allow) {
                ReadOnlyClassifier.declaredCursor(s).ifPresent(cursors::add);
            } else {
                return false;
            }
        }
        return !statements.isEmpty();
    }
}
