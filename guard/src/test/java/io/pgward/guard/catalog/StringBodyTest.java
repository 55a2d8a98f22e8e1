package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class StringBodyTest {

    @Test
    void namesWhatABodyCalls() {
        StringBody body = StringBody.read("SELECT upper(x) || public.helper(\"Mixed\"(1)) || extract(year from now())",
                "sql");
        assertTrue(body.passes(), body.failure());
        assertEquals(Set.of("upper", "helper", "Mixed", "extract", "now"), body.calledNames());
    }

    @Test
    void tellsWhetherACallsFirstArgumentIsOneLiteral() {
        StringBody body = StringBody.read("SELECT current_setting('a', true) || lower(x) || upper('b' || x) "
                + "|| trim('c') || trim(d)", "sql");
        assertFalse(body.callsWithComputedFirstArgument("current_setting"));
        assertTrue(body.callsWithComputedFirstArgument("lower"));
        assertTrue(body.callsWithComputedFirstArgument("upper"));
        assertTrue(body.callsWithComputedFirstArgument("trim"), "one call of two names a constant");
        assertTrue(StringBody.read("SELECT f()", "sql").callsWithComputedFirstArgument("f"));
    }

    @Test
    void theKeywordCurrentSchemaIsACallButAColumnOfThatNameIsNot() {
        assertEquals(Set.of("current_schema"), StringBody.read("BEGIN RETURN current_schema; END", "plpgsql")
                .calledNames());
        assertEquals(Set.of(), StringBody.read("SELECT r.current_schema, \"current_schema\"", "sql").calledNames());
    }

    @Test
    void fromIsAKeywordInsideTheFormsThatTakeIt() {
        assertTrue(StringBody.read("SELECT substring(x from 2 for 3), trim(both 'a' from x), "
                + "x IS DISTINCT FROM y, position('a' in x), overlay(x placing 'y' from 1)", "sql").passes());
        assertFalse(StringBody.read("SELECT substring((SELECT token FROM secrets) from 2)", "sql").passes());
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT token FROM public.secrets", "INSERT INTO t VALUES (1)", "UPDATE t SET a = 1",
            "DELETE FROM t", "BEGIN EXECUTE 'DROP TABLE t'; END", "SELECT 1 INTO t", "TABLE t", "SET work_mem = 1",
            "BEGIN PERFORM 1; COPY t TO STDOUT; END", "SELECT 1; 'unterminated"})
    void failsWritesDynamicSqlAndRelationReads(String source) {
        assertFalse(StringBody.read(source, "sql").passes(), source);
    }

    @Test
    void plpgsqlMayAssignWithInto() {
        assertTrue(StringBody.read("DECLARE r int; BEGIN SELECT 1 + x INTO r; RETURN r; END", "plpgsql").passes());
        assertFalse(StringBody.read("DECLARE r int; BEGIN SELECT 1 INTO r FROM t; RETURN r; END", "plpgsql").passes());
    }
}
