package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgward.guard.lexer.LexerException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ConstantShapeTest {

    private static String key(String sql) {
        try {
            return ConstantShape.key(StatementShape.of(sql, true));
        } catch (LexerException e) {
            throw new AssertionError(e);
        }
    }

    private static void same(String a, String b) {
        assertEquals(key(a), key(b), a + " / " + b);
    }

    private static void different(String a, String b) {
        assertNotEquals(key(a), key(b), a + " / " + b);
    }

    @Test
    void integersShareByTheTypeTheirValueGets() {
        same("select * from orders where id = 1", "select * from orders where id = 2");
        same("select * from orders where id = 0", "select * from orders where id = 2147483647");
        same("select * from orders where id = 007", "select * from orders where id = 12");
        different("select * from orders where id = 2147483647", "select * from orders where id = 2147483649");
        same("select * from orders where id = 2147483649", "select * from orders where id = 9223372036854775807");
        different("select * from orders where id = 9223372036854775807",
                "select * from orders where id = 9223372036854775809");
        same("select * from orders where id = 9223372036854775809",
                "select * from orders where id = 123456789012345678901234567890");
        different("select * from orders where id = 1", "select * from orders where id = 1.5");
        same("select * from orders where id = 1.5", "select * from orders where id = 2e3");
        same("select * from orders where id = .5", "select * from orders where id = 10.");
    }

    @Test
    void theEdgeValuesThatANegationFoldsIntoTheSmallerTypeAreKept() {
        // -2147483648 is int4 and -2147483649 int8; 2147483648 alone is int8.
        different("select * from orders where id = -2147483648", "select * from orders where id = -2147483649");
        different("select * from orders where id = -9223372036854775808",
                "select * from orders where id = -9223372036854775809");
        same("select * from orders where id = -1", "select * from orders where id = -2147483647");
    }

    @Test
    void numbersInOtherFormsAreKept() {
        different("select * from orders where id = 0x10", "select * from orders where id = 0x11");
        different("select * from orders where id = 1_000", "select * from orders where id = 2_000");
    }

    @Test
    void stringsShareAsUnknownWhateverTheirQuoting() {
        same("select * from orders where status = 'open'", "select * from orders where status = 'closed'");
        same("select * from orders where status = 'open'", "select * from orders where status = E'a\\'b'");
        same("select * from orders where status = 'open'", "select * from orders where status = $$x$$");
        same("select * from orders where status = 'open'", "select * from orders where status = $q$x$q$");
        same("select * from orders where status = 'open'", "select * from orders where status = U&'d\\0061t'");
        same("select * from orders where status = 'a'\n'b'", "select * from orders where status = ''");
    }

    @Test
    void bitAndNationalStringsAreClassesOfTheirOwn() {
        same("select B'101' = x", "select X'1F' = x");
        different("select B'101' = x", "select '101' = x");
        different("select N'abc' = x", "select 'abc' = x");
        same("select N'abc' = x", "select n'' = x");
    }

    @Test
    void aTypedLiteralKeepsItsTypeName() {
        same("select * from orders where d > date '2024-01-01'", "select * from orders where d > date '2025-12-31'");
        different("select * from orders where d > date '2024-01-01'",
                "select * from orders where d > timestamp '2024-01-01'");
        same("select now() - interval '1 day'", "select now() - interval '7 days'");
        same("select '2024-01-01'::date", "select '1999-01-01'::date");
        different("select 'orders'::regclass", "select 'orders'::regtype");
    }

    @Test
    void keywordsParametersAndNamesAreKept() {
        different("select * from orders where x is null", "select * from orders where x is true");
        different("select * from orders where id = $1", "select * from orders where id = $2");
        different("select * from orders where id = 1", "select * from orders where id = $1");
        different("select * from orders where id = 1", "select * from customers where id = 1");
        different("select * from orders where id = 1", "SELECT * FROM orders WHERE id = 1");
    }

    @Test
    void whitespaceAndCommentsAreNotTokens() {
        same("select * from orders where id = 1", "select *\n  from orders -- c\n where id=/* c */42");
    }

    @Test
    void positionsInOrderByGroupByAndDistinctOnAreKept() {
        different("select a, b from t order by 1", "select a, b from t order by 2");
        different("select a, b from t order by a, (1)", "select a, b from t order by a, (2)");
        different("select a, count(*) from t group by 1", "select a, count(*) from t group by 2");
        different("select distinct on (1) a, b from t", "select distinct on (2) a, b from t");
        different("select a from t group by rollup (1, 2)", "select a from t group by rollup (2, 1)");
        // the list ends where its clause does
        same("select a from t where x = 1 order by a limit 10", "select a from t where x = 2 order by a limit 20");
        same("select a from t group by a having count(*) > 1", "select a from t group by a having count(*) > 5");
        same("select distinct on (a) a from t where x = 1", "select distinct on (a) a from t where x = 3");
        same("select distinct on (a) 1, a from t", "select distinct on (a) 2, a from t");
        different("select a from t order by a is distinct from b, 1",
                "select a from t order by a is distinct from b, 2");
        different("select a from t order by a is not distinct from b, 1",
                "select a from t order by a is not distinct from b, 2");
        // an ORDER BY of a subquery ends with its parentheses
        same("select (select b from u order by b limit 1) from t where x = 1",
                "select (select b from u order by b limit 1) from t where x = 2");
    }

    @Test
    void literalsInsideAnythingWrittenLikeACallAreKept() {
        different("select '1'::float(24)", "select '1'::float(25)");
        different("select x::numeric(10, 2) from t", "select x::numeric(12, 2) from t");
        different("select numeric(10, 2) '1.5'", "select numeric(12, 2) '1.5'");
        different("select pg_relation_size('orders')", "select pg_relation_size('salaries')");
        different("select nextval('s1')", "select nextval('s2')");
        different("select x::\"numeric\"(10) from t", "select x::\"numeric\"(11) from t");
        different("select '{1}'::int[3]", "select '{1}'::int[4]");
        different("select localtimestamp(3)", "select localtimestamp(4)");
        // but a subquery's own parentheses end it
        same("select coalesce((select max(a) from t where b = 1), 0)",
                "select coalesce((select max(a) from t where b = 2), 0)");
        // and parentheses after a reserved word or VALUES are not a call
        same("select * from t where id in (1, 2, 3)", "select * from t where id in (4, 5, 6)");
        same("select * from t where (a = 1 and b = 'x')", "select * from t where (a = 2 and b = 'y')");
        same("select cast('5' as int)", "select cast('6' as int)");
        same("select * from (values (1, 'a')) v(a, b)", "select * from (values (2, 'b')) v(a, b)");
        same("select * from t where x = any ('{1,2}')", "select * from t where x = any ('{3}')");
        same("select array[1, 2]", "select array[3, 4]");
    }

    @Test
    void onlyTheAnalysedQueryHasItsLiteralsReplaced() {
        same("explain (costs off) select * from t where id = 1", "explain (costs off) select * from t where id = 2");
        different("copy (select * from t where id = 1) to stdout with (delimiter ',')",
                "copy (select * from t where id = 1) to stdout with (delimiter ';')");
        same("copy (select * from t where id = 1) to stdout", "copy (select * from t where id = 2) to stdout");
        same("declare c cursor for select * from t where id = 1", "declare c cursor for select * from t where id = 2");
        different("declare c cursor for select 1", "declare d cursor for select 1");
        different("select 1", "explain select 1");
    }

    @Test
    void statementsTheCheckDoesNotAnalyseHaveNoKey() {
        assertNull(key("set search_path = public"));
        assertNull(key("drop table t"));
    }

    @ParameterizedTest
    @CsvSource({"0,int4", "2147483647,int4", "2147483648,", "2147483649,int8", "9223372036854775807,int8",
            "9223372036854775808,", "9223372036854775809,numeric", "1.0,numeric", "1e10,numeric", "1E-3,numeric",
            ".1,numeric", "0x1F,", "1_0,"})
    void numberClasses(String text, String expected) {
        assertEquals(expected, ConstantShape.numberClass(text));
    }
}
