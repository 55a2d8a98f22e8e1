package io.pgward.wire.local;

import io.pgward.guard.Verdict;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class LocalAnswerTest {

    @Test
    void writesAnswerLiteralsThatReadTheSameWhateverStandardConformingStringsSays() {
        Verdict.Answer tricky = new Verdict.Answer(List.of("a\"b"), List.of(List.of("it's \\ here")), "SELECT 1",
                List.of());
        assertEquals("SELECT * FROM (VALUES (E'it''s \\\\ here'::text)) AS pgward_answer(\"a\"\"b\")",
                LocalAnswer.asQuery(tricky, 0));
        Verdict.Answer empty = new Verdict.Answer(List.of("x", "y"), List.of(), "SELECT 0", List.of());
        assertEquals("SELECT * FROM (SELECT NULL::text, NULL::text WHERE false) AS pgward_answer(\"x\", \"y\")",
                LocalAnswer.asQuery(empty, 0));
    }
}
