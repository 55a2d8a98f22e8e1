package io.pgward.guard.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class ComplexityEnvelopeTest {

    private static final ReadOnlyPolicy POLICY = new ReadOnlyPolicy("analyst", null);
    private static final ReadOnlyClassifier CLASSIFIER = new ReadOnlyClassifier();

    @AfterAll
    static void close() {
        CLASSIFIER.close();
    }

    private static StatementText statement(String sql) {
        try {
            return SqlLexer.split(sql, true).get(0);
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    private static ComplexityEnvelope.Measure measure(String sql) {
        return ComplexityEnvelope.measure(statement(sql).tokens());
    }

    @Test
    void countsBracketsThatOpenANestedQueryOrExpressionApartFromCalls() {
        assertEquals(new ComplexityEnvelope.Measure(8, 3, 3), measure("select (((1)))"));
        assertEquals(new ComplexityEnvelope.Measure(11, 3, 0), measure("select abs(abs(abs(1)))"));
        assertEquals(2, measure("select (select (select 1))").openDepth());
        assertEquals(2, measure("select array[array[1]]").openDepth());
        assertEquals(1, measure("select x from t where y in (select z from u)").openDepth());
        assertEquals(0, measure("select \"my func\"(1), a[1], cast(b as numeric(10, 2)) from t").openDepth());
        assertEquals(2, measure("select sum(x) over (partition by (y)) from t").openDepth());
        assertEquals(3, measure("select case when case when (a) then 1 end = 1 then 2 end, case when b then 3 end")
                .openDepth());
        assertEquals(new ComplexityEnvelope.Measure(9, 1, 1), measure("select case when a then b end ) end"));
    }

    @Test
    void measuresUnbalancedTextWithoutFailing() {
        assertEquals(new ComplexityEnvelope.Measure(5, 0, 0), measure("select 1 ) ) ]"));
        assertEquals(2, measure("select ((1").depth());
    }

    @Test
    void measuresDeepNestingWithoutRecursion() {
        int deep = 200_000;
        ComplexityEnvelope.Measure m = measure("select " + "(".repeat(deep) + "1" + ")".repeat(deep));
        assertEquals(deep, m.depth());
        assertEquals(deep, m.openDepth());
    }

    @Test
    void theEnvelopeAdmitsADashboardQueryAndLeavesALargeBiQueryToTheTokenChecks() {
        String columns = IntStream.rangeClosed(1, 100)
                .mapToObj(i -> "round(sum(coalesce(t.c" + i + ", 0)), 2) as s" + i)
                .collect(Collectors.joining(", "));
        String sql = "with recent as (select * from orders where id in (select order_id from items where qty > "
                + "(select avg(qty) from items))) select " + columns + ", case when (a > 1 and (b < 2 or (c = 3))) "
                + "then 1 else 0 end from recent t group by 1";
        ComplexityEnvelope.Measure m = measure(sql);
        assertTrue(m.tokens() > 1_500, m.toString());
        assertNull(m.beyondParser(), m.toString());
        assertInstanceOf(Verdict.Allow.class, CLASSIFIER.classify(statement(sql), POLICY));

        String large = sql.replace("group by 1", "where t.id in (" + IntStream.rangeClosed(1, 3_000)
                .mapToObj(Integer::toString).collect(Collectors.joining(", ")) + ") group by 1");
        assertEquals("7967 tokens, more than the 3000 the syntax check reads", measure(large).beyondParser());
    }

    @Test
    void nestedSubqueriesBracketsAndLongTextsAreBeyondIt() {
        assertNotNull(measure("select (".repeat(7) + "select 1" + ")".repeat(7)).beyondParser());
        assertNull(measure("select (".repeat(6) + "select 1" + ")".repeat(6)).beyondParser());
        assertNotNull(measure("select " + "array[".repeat(7) + "1" + "]".repeat(7)).beyondParser());
        assertNotNull(measure("select " + "abs(".repeat(65) + "1" + ")".repeat(65)).beyondParser());
        assertNull(measure("select " + "abs(".repeat(64) + "1" + ")".repeat(64)).beyondParser());
        assertNotNull(measure("select " + "1+".repeat(2_000) + "1").beyondParser());
        String condition = "true";
        for (int level = 1; level <= 7; level++) {
            condition = "case when " + condition + " then true else false end";
            assertEquals(level > 6, measure("select " + condition).beyondParser() != null, condition);
        }
    }

    @Test
    void aQueryBeyondTheEnvelopeIsRefusedAsTooComplexAfterItsTokenChecks() {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class,
                CLASSIFIER.classify(statement("select (".repeat(29) + "select 1001" + ")".repeat(29)), POLICY));
        assertEquals(Refusals.TOO_COMPLEX_TO_PARSE, refuse.rule());
        assertEquals(SqlStates.STATEMENT_TOO_COMPLEX, refuse.sqlState());
        assertEquals("pgward refused this query: it is too complex to check (subqueries, parentheses, arrays or "
                + "CASE nested 29 deep, more than the 6 the syntax check reads)", refuse.message());
        // The token checks run first, whatever the size.
        Verdict.Refuse locking = assertInstanceOf(Verdict.Refuse.class, CLASSIFIER.classify(statement(
                "select " + "1+".repeat(5_000) + "1 from t for update"), POLICY));
        assertEquals(Refusals.LOCKING, locking.rule());
        assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, locking.sqlState());
    }

    @Test
    void theTokenChecksOfNestedWithListsAreLinear() {
        // Each WITH's CTE list is read to its closing parenthesis; nested 40,000 deep (above the text limit, but the
        // classifier does not know that), reading each one from its opening parenthesis took 74 s; the matched
        // parentheses are read once.
        int deep = 40_000;
        String sql = "select * from " + "(with a as (".repeat(deep) + "select 1" + ") select * from a) x".repeat(deep);
        long start = System.nanoTime();
        Verdict decision = CLASSIFIER.classify(statement(sql), POLICY);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertEquals(Refusals.TOO_COMPLEX_TO_PARSE, assertInstanceOf(Verdict.Refuse.class, decision).rule());
        assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, took.toString());
    }

    @Test
    void everyReproductionIsDecidedWithinItsBound() {
        // Generous: a bound on the order of the envelope's measured worst case, not a benchmark (bench/guard-work.sh).
        Duration bound = Duration.ofSeconds(2);
        for (String sql : Set.of("select (".repeat(29) + "select 1001" + ")".repeat(29),
                "select " + "1+".repeat(4_999) + "1", "select " + "(".repeat(3_000) + "1" + ")".repeat(3_000),
                "select " + "array[".repeat(500) + "1" + "]".repeat(500),
                "select " + IntStream.rangeClosed(1, 1_600).mapToObj(i -> i + " as c" + i)
                        .collect(Collectors.joining(", ")),
                "select case g " + IntStream.rangeClosed(1, 2_000).mapToObj(i -> "when " + i + " then " + i)
                        .collect(Collectors.joining(" ")) + " end from t g",
                "select " + "(select ".repeat(3) + "array[".repeat(3) + "1" + "]".repeat(3) + ")".repeat(3))) {
            long start = System.nanoTime();
            CLASSIFIER.classify(statement(sql), POLICY);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(bound) < 0, took + " for " + sql.substring(0, 40));
        }
    }
}
