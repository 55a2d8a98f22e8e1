package io.pgward.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgward.guard.classify.ReadOnlyPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** L1/L2's verdicts by shape: which constants share a verdict, which keep it per text, and pairs that must not. */
class TextShapeTest {

    private static final ReadOnlyPolicy POLICY = new ReadOnlyPolicy("analyst", Duration.ofSeconds(30));
    private final ReadOnlyGuard guard = new ReadOnlyGuard(true);
    private final ReadOnlyGuard reference = new ReadOnlyGuard(true, false);

    @AfterEach
    void close() {
        guard.close();
        reference.close();
    }

    private static String key(String sql) {
        return VerdictByShapeCorpusTest.key(sql);
    }

    private static void sameShape(String a, String b) {
        assertNotNull(key(a), a);
        assertEquals(key(a), key(b), a + " and " + b + " must share a shape");
    }

    private static void otherShape(String a, String b) {
        assertNotEquals(key(a), key(b), a + " and " + b + " must not share a shape");
    }

    @Test
    void valuesInComparisonsListsAndSelectListsShareAShape() {
        sameShape("SELECT abalance FROM pgbench_accounts WHERE aid = 42",
                "SELECT abalance FROM pgbench_accounts WHERE aid = 917311");
        sameShape("select * from orders where region = 'EU' and amount > 10.50 or status in ('new', 'paid')",
                "select * from orders  where region = 'O''Brien' and amount > 0.1 /* x */ or status in ('a', 'b')");
        sameShape("select 1 from t where a between 1 and 5 and b like 'x%' and c <> -3",
                "select 1 from t where a between 7 and 9 and b like 'y%' and c <> -8");
        sameShape("select case when a = 1 then 'one' else 'other' end from t",
                "select case when a = 2 then 'two' else 'none' end from t");
        sameShape("select 1 from t where a = 1; select 2 from u where b = 'x'",
                "select 1 from t where a = 9; select 2 from u where b = 'y'");
        sameShape("select * from t where a = 1 union select * from u where b = 2",
                "select * from t where a = 3 union select * from u where b = 4");
        sameShape("select * from t join u on u.a = t.a and u.b = 1 left join v on v.c = 'x' where t.d = 2",
                "select * from t join u on u.a = t.a and u.b = 5 left join v on v.c = 'y' where t.d = 9");
        sameShape("select a, count(*) from t group by a having count(*) > 3",
                "select a, count(*) from t group by a having count(*) > 7");
        sameShape("select a from t group by a union select b from u where b = 1",
                "select a from t group by a union select b from u where b = 2");
    }

    @Test
    void textsThatReadConstantsAsNamesSettingsOrQueriesHaveNoShape() {
        for (String sql : List.of("select 'orders'::regclass", "select regclass 'orders'",
                "select * from t where c = 'x'::text::regclass", "select cast('orders' as regclass)",
                "select nextval('s')", "select set_config('search_path', 'x', false)",
                "select current_setting('search_path')", "select query_to_xml('select 1', true, true, '')",
                "select * from dblink('dbname=x', 'select 1') as t(a int)", "select format('%I', 'x')",
                "select to_regclass('orders')", "select pg_relation_size('orders')",
                "select has_table_privilege('orders', 'select')", "select * from t where a = $1",
                "select U&'d\\0061t'", "select U&'d!0061t' uescape '!'",
                "set statement_timeout = 1000", "show search_path", "explain (analyze 0) select 1",
                "copy (select 1) to stdout", "declare c cursor for select 1 from t where a = 1",
                "select 1; set statement_timeout = 1000")) {
            assertNull(key(sql), sql);
        }
    }

    @Test
    void constantsWhoseValueIsMoreThanAValueAreKeptAsWritten() {
        otherShape("select '2024-01-01'::date", "select '2025-01-01'::date");
        otherShape("select date '2024-01-01'", "select date '2025-01-01'");
        otherShape("select interval '1' day", "select interval '2' day");
        otherShape("select 1 from t where ts at time zone 'UTC' > now()",
                "select 1 from t where ts at time zone 'CET' > now()");
        otherShape("select * from t where a = E'a'", "select * from t where a = E'b'");
        otherShape("select * from t where a = $$a$$", "select * from t where a = $$b$$");
        otherShape("select * from t where a = N'a'", "select * from t where a = N'b'");
        otherShape("select * from t where a = B'1'", "select * from t where a = B'0'");
        otherShape("select * from t where a = 'a' collate \"C\"", "select * from t where a = 'b' collate \"C\"");
        otherShape("select * from t where a = 'a'\n'b'", "select * from t where a = 'c'\n'd'");
        otherShape("select * from t where a = 'a' 'b'", "select * from t where a = 'c' 'd'");
        otherShape("select * from t where a like 'a!%' escape '!'", "select * from t where a like 'a!%' escape '#'");
        otherShape("select cast('1' as int)", "select cast('2' as int)");
        otherShape("select a, b from t order by 1", "select a, b from t order by 2");
        otherShape("select a, count(*) from t group by 1", "select a, count(*) from t group by 2");
        otherShape("select distinct on (1) a from t", "select distinct on (2) a from t");
        otherShape("select * from t limit 1", "select * from t limit 2");
        otherShape("select a from t group by a, 1 having count(*) > 1",
                "select a from t group by a, 2 having count(*) > 1");
        otherShape("select a from t order by a limit 1", "select a from t order by a limit 2");
        otherShape("select f(a, (select b from u where c = 1 having true)) from t",
                "select f(a, (select b from u where c = 2 having true)) from t");
        otherShape("select * from t offset 1", "select * from t offset 2");
        otherShape("select * from t fetch first 1 rows only", "select * from t fetch first 2 rows only");
        otherShape("select * from t where a = (select b from u order by 1 limit 1)",
                "select * from t where a = (select b from u order by 1 limit 2)");
        otherShape("select round(a, 2) from t", "select round(a, 3) from t");
        otherShape("select a::numeric(10, 2) from t", "select a::numeric(12, 2) from t");
        otherShape("select float(24) '1'", "select float(25) '1'");
        otherShape("select a[1] from t", "select a[2] from t");
        otherShape("select date_trunc('month', d) from t", "select date_trunc('year', d) from t");
        otherShape("select * from t tablesample system (10)", "select * from t tablesample system (20)");
    }

    @Test
    void aNumberAStringAndOtherClassesOrFormsNeverShare() {
        otherShape("select * from t where a = 1", "select * from t where a = '1'");
        otherShape("select * from t where a = 1", "select * from t where a = 3000000000");
        otherShape("select * from t where a = 1", "select * from t where a = 1.5");
        otherShape("select * from t where a = 1", "select * from t where a = 1e3");
        otherShape("select * from t where a = 2147483648", "select * from t where a = 2147483649");
        otherShape("select * from t where a = 0x1F", "select * from t where a = 0x2F");
        otherShape("select * from t where a = 'a\\b'", "select * from t where a = 'a\\c'");
        otherShape("select * from t where a = 'a;b'", "select * from t where a = 'a;c'");
        otherShape("select * from t where a = 1", "select * from t where a=1");
        otherShape("select * from t where a = 'x'", "select * from t where a = \"x\"");
    }

    /** Only the plain forms get a class: [0-9]{1,18} as int4 or int8, [0-9]{1,15}.[0-9]{1,15} as numeric. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"0,int4", "2147483647,int4", "2147483648,", "2147483649,int8",
            "999999999999999999,int8", "0999999999999999999,", "1.0,numeric", "123456789012345.123456789012345,numeric",
            "1234567890123456.1,", "1.1234567890123456,", ".5,", "5.,", "1.2.3,", "1e3,", "0x1F,", "1_000,", "-1,",
            "١٢,", "1a,"})
    void onlyPlainNumbersGetAClass(String text, String expected) {
        assertEquals(expected, TextShape.numberClass(text));
    }

    /** Benign first, then a text of the same tokens but other constants that the full path refuses. */
    @Test
    void anAllowIsNeverSharedWithATextTheFullPathRefuses() {
        List<List<String>> pairs = List.of(
                List.of("set statement_timeout = 1000", "set statement_timeout = 0"),
                List.of("set statement_timeout = '1s'", "set statement_timeout = '1h'"),
                List.of("set default_transaction_read_only = 'on'", "set default_transaction_read_only = 'off'"),
                List.of("set transaction_read_only = 1", "set transaction_read_only = 0"),
                List.of("explain (analyze 0) select 1", "explain (analyze 1) select 1"),
                List.of("explain (analyze 'off') select 1", "explain (analyze 'on') select 1"),
                List.of("select 1; set statement_timeout = 1000", "select 1; set statement_timeout = 0"),
                List.of("select * from orders where id = 1", "select * from orders where id = 1 for update"));
        for (List<String> pair : pairs) {
            assertInstanceOf(Verdict.Allow.class, guard.check(pair.get(0), true, POLICY, Set.of()).verdict(),
                    pair.get(0));
            assertInstanceOf(Verdict.Refuse.class, guard.check(pair.get(1), true, POLICY, Set.of()).verdict(),
                    pair.get(1));
            assertNull(guard.cached(pair.get(1) + " ", true, POLICY), pair.get(1));
            assertEquals(VerdictByShapeCorpusTest.describe(reference.check(pair.get(1), true, POLICY, Set.of())),
                    VerdictByShapeCorpusTest.describe(guard.check(pair.get(1), true, POLICY, Set.of())));
        }
    }

    /** Benign first, then a twin whose constant PostgreSQL would read as a name, a position or a row count. */
    @Test
    void aTwinWhoseConstantIsReadAsMoreThanAValueTakesTheFullPath() {
        List<List<String>> pairs = List.of(
                List.of("select 'orders'::regclass", "select 'secrets'::regclass"),
                List.of("select regclass 'orders'", "select regclass 'secrets'"),
                List.of("select pg_relation_size('orders')", "select pg_relation_size('secrets')"),
                List.of("select to_regclass('orders')", "select to_regclass('secrets')"),
                List.of("select format('%I', 'orders')", "select format('%I', 'secrets')"),
                List.of("select * from orders where note = 'a' || current_setting('application_name')",
                        "select * from orders where note = 'b' || current_setting('application_name')"),
                List.of("select id, amount from orders order by 1", "select id, amount from orders order by 2"),
                List.of("select * from orders limit 1", "select * from orders limit 100000"),
                List.of("select * from orders where note = E'a'", "select * from orders where note = E'\\'"),
                List.of("select * from orders where id = $1 and note = 'a'",
                        "select * from orders where id = $1 and note = 'b'"));
        ReadOnlyPolicy noSelection = new ReadOnlyPolicy("analyst", Duration.ofSeconds(30),
                ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED);
        for (List<String> pair : pairs) {
            assertInstanceOf(Verdict.Allow.class, guard.check(pair.get(0), true, noSelection, Set.of()).verdict(),
                    pair.get(0));
            assertNull(guard.cached(pair.get(1), true, noSelection), pair.get(1));
            assertEquals(VerdictByShapeCorpusTest.describe(reference.check(pair.get(1), true, noSelection,
                    Set.of())), VerdictByShapeCorpusTest.describe(guard.check(pair.get(1), true, noSelection,
                    Set.of())));
        }
    }

    @Test
    void aNewLiteralOfASeenShapeIsAnsweredWithoutTheParserWithItsOwnStatements() {
        assertNull(guard.cached("select * from orders where id = 1", true, POLICY));
        guard.check("select * from orders where id = 1", true, POLICY, Set.of());
        ReadOnlyGuard.Classification shared = guard.cached("select * from orders where id = 2; select 3", true,
                POLICY);
        assertNull(shared, "another shape");
        shared = guard.cached("select * from orders  where id = 12345", true, POLICY);
        assertNotNull(shared);
        assertInstanceOf(Verdict.Allow.class, shared.verdict());
        assertEquals("select * from orders  where id = 12345", shared.reads().get(0).text(),
                "L3 proves the new text, not the one first seen");
        assertNull(guard.cached("select * from orders where id = 1", true,
                new ReadOnlyPolicy("other", Duration.ofSeconds(30))), "per policy");
        assertNull(guard.cached("select * from orders where id = 1", false, POLICY),
                "per standard_conforming_strings");
        String longText = "select * from orders where id = 1 and note = '" + "x".repeat(600) + "'";
        guard.check(longText, true, POLICY, Set.of());
        String longTwin = longText.replace("id = 1", "id = 2");
        assertNull(guard.cached(longTwin, true, POLICY), "a long text is not lexed on the caller's thread");
        assertEquals(longTwin, guard.check(longTwin, true, POLICY, Set.of()).reads().get(0).text());
    }
}
