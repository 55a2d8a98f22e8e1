package io.pgward.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.classify.CorpusFiles;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The guard corpus with and without L1/L2's verdicts by shape ({@link TextShape}): every case must get the same
 * classification (verdict, rule, message, position, statements for L3) from a guard that shares allows by shape as
 * from one that judges every text in full, also when a text of the same shape with other constants was judged
 * first, in either order. The twins replace every constant the shape leaves out, once with plain values and once
 * with values full of quotes and edges of their classes.
 */
class VerdictByShapeCorpusTest {

    private static final ReadOnlyPolicy SELECTION_ONLY_L2 = new ReadOnlyPolicy("analyst", Duration.ofSeconds(30));
    private static final ReadOnlyPolicy SELECTION_WITH_L3 = new ReadOnlyPolicy("analyst", Duration.ofSeconds(30),
            ReadOnlyPolicy.CatalogFunctions.GATED);

    private static final Function<String, String> PLAIN = c -> switch (c) {
        case "string" -> "'b'";
        case "int4" -> "7";
        case "int8" -> "3000000000";
        default -> "1.5";
    };
    private static final Function<String, String> EDGES = c -> switch (c) {
        case "string" -> "'x'' or ''1''=''1 -- /'";
        case "int4" -> "2147483647";
        case "int8" -> "999999999999999999";
        default -> "999999999999999.999999999999999";
    };

    @Test
    void everyCaseGetsTheSameVerdictWhenATwinOfItsShapeWasJudgedFirst() throws IOException {
        int shared = 0;
        List<String> differences = new ArrayList<>();
        for (boolean catalogFollows : new boolean[] {false, true}) {
            ReadOnlyPolicy policy = catalogFollows ? SELECTION_WITH_L3 : SELECTION_ONLY_L2;
            try (ReadOnlyGuard reference = new ReadOnlyGuard(catalogFollows, false)) {
                for (CorpusFiles.Case c : CorpusFiles.cases()) {
                    for (Function<String, String> values : List.of(PLAIN, EDGES)) {
                        String twin = twin(c.sql(), values);
                        if (twin == null) {
                            continue;   // the lexer rejects the case: no shape, nothing to share
                        }
                        assertEquals(key(c.sql()), key(twin), () -> "the twin has another shape: " + twin);
                        shared += compare(c.id() + " after its twin", twin, c.sql(), catalogFollows, policy,
                                reference, differences);
                        compare(c.id() + "'s twin after it", c.sql(), twin, catalogFollows, policy, reference,
                                differences);
                    }
                }
            }
        }
        assertTrue(differences.isEmpty(), () -> differences.size() + " difference(s):\n"
                + String.join("\n", differences));
        int sharedCases = shared;
        assertTrue(sharedCases > 60, () -> "only " + sharedCases + " cases were answered by shape: the test no "
                + "longer exercises the sharing");
    }

    /** 1 when {@code second} was answered by the shape {@code first} left, else 0; a difference is recorded. */
    private static int compare(String what, String first, String second, boolean catalogFollows,
                               ReadOnlyPolicy policy, ReadOnlyGuard reference, List<String> differences) {
        String expected = describe(reference.check(second, true, policy, Set.of()));
        try (ReadOnlyGuard primed = new ReadOnlyGuard(catalogFollows, true)) {
            ReadOnlyGuard.Classification firstVerdict = primed.check(first, true, policy, Set.of());
            ReadOnlyGuard.Classification onCaller = primed.cached(second, true, policy);
            if (onCaller != null && !describe(onCaller).equals(expected)) {
                differences.add(what + " (cached): " + second + "\n  expected " + expected + "\n  got      "
                        + describe(onCaller));
            }
            ReadOnlyGuard.Classification got = primed.check(second, true, policy, Set.of());
            if (!describe(got).equals(expected)) {
                differences.add(what + ": " + second + "\n  expected " + expected + "\n  got      "
                        + describe(got));
            }
            boolean byShape = !first.equals(second) && firstVerdict.verdict() instanceof Verdict.Allow
                    && key(second) != null;
            return byShape ? 1 : 0;
        }
    }

    static String describe(ReadOnlyGuard.Classification c) {
        return c.verdict() + " reads=" + c.reads().stream().map(s -> s.start() + ":" + s.text()).toList()
                + " cursors=" + c.declaredCursors() + " path=" + c.setsSearchPath() + "/" + c.endsTransaction()
                + "/" + c.readsAfterChange();
    }

    static String key(String sql) {
        try {
            return TextShape.key(SqlLexer.split(sql, true));
        } catch (LexerException e) {
            return null;
        }
    }

    /** {@code sql} with every constant its shape leaves out replaced by {@code values} of its class. */
    static String twin(String sql, Function<String, String> values) {
        List<StatementText> statements;
        try {
            statements = SqlLexer.split(sql, true);
        } catch (LexerException e) {
            return null;
        }
        StringBuilder out = new StringBuilder(sql);
        List<Token> constants = TextShape.constants(statements);
        for (int i = constants.size() - 1; i >= 0; i--) {
            Token t = constants.get(i);
            String shapeClass = t.kind() == Token.Kind.STRING ? TextShape.stringClass(t)
                    : TextShape.numberClass(t.text());
            out.replace(t.start(), t.end(), values.apply(shapeClass));
        }
        return out.toString();
    }
}
