package io.pgward.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class DollarParametersTest {

    @Test
    void dollarParametersBecomeQuestionMarksInBindOrder() {
        DollarParameters p = DollarParameters.of("SELECT $2, $1, $2", 2);
        assertEquals("SELECT ?, ?, ?", p.text());
        assertEquals(List.of(1, 0, 1), p.order());
    }

    @Test
    void stringsIdentifiersAndCommentsKeepTheirDollarsAndQuestionMarks() {
        DollarParameters p = DollarParameters.of("SELECT '$1 ?', \"a$1?\", $$ $1 ? $$ /* $1 ? */ -- $1 ?\n, $1", 1);
        assertEquals("SELECT '$1 ?', \"a$1?\", $$ $1 ? $$ /* $1 ? */ -- $1 ?\n, ?", p.text());
        assertEquals(List.of(0), p.order());
    }

    @Test
    void jsonbQuestionMarkOperatorsAreEscapedForPgjdbc() {
        assertEquals("SELECT j ?? 'a', j ??| array['b'], j ??& array['c'] FROM t",
                DollarParameters.of("SELECT j ? 'a', j ?| array['b'], j ?& array['c'] FROM t", 0).text());
    }

    @Test
    void aParameterWithoutAValueIsAnError() {
        ToolError e = assertThrows(ToolError.class, () -> DollarParameters.of("SELECT $2", 1));
        assertEquals("SQL execution failed: the statement uses $2 but params has 1 value.", e.getMessage());
    }
}
