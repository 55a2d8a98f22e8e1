package io.pgward.guard.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The tree walk on its own, without the token pass in front of it: each check must hold by itself, so that a
 * statement the token pass misreads is still caught.
 */
class AstScanTest {

    private static final QueryParser PARSER = new QueryParser();
    private static final AstScan SCAN = new AstScan(DeniedFunctions.load());

    @AfterAll
    static void close() {
        PARSER.close();
    }

    private static AstScan.Finding scan(String sql) throws Exception {
        return SCAN.scan(PARSER.parse(sql), ReadOnlyPolicy.CatalogFunctions.DENIED);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SELECT nextval('s')                                                              | nextval",
        "SELECT \"nextval\"('s')                                                          | nextval",
        "SELECT pg_catalog.NEXTVAL('s')                                                   | nextval",
        "SELECT * FROM pg_read_file('/etc/passwd')                                        | pg_read_file",
        "SELECT * FROM t, LATERAL pg_ls_dir('.') d                                        | pg_ls_dir",
        "SELECT * FROM t ORDER BY pg_sleep(1)                                             | pg_sleep",
        "SELECT sum(x) OVER (PARTITION BY pg_advisory_lock(1)) FROM t                     | pg_advisory_lock",
        "SELECT x FROM t WINDOW w AS (ORDER BY lo_get(1))                                 | lo_get",
        "SELECT CASE WHEN x THEN set_config('a', 'b', false) END FROM t                   | set_config",
        "VALUES (1, txid_current())                                                       | txid_current",
        "SELECT CAST(pg_notify('a', 'b') AS text)                                         | pg_notify",
        "SELECT count(*) FILTER (WHERE pg_cancel_backend(1)) FROM t                       | pg_cancel_backend",
        "SELECT array_agg(x ORDER BY pg_reload_conf()) FROM t                             | pg_reload_conf",
        "WITH x AS (SELECT dblink('a', 'b')) SELECT * FROM x                              | dblink",
        "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = query_to_xml('q', true, true, '')) | query_to_xml",
        "SELECT lo_get(1) OVER () FROM t                                                  | lo_get",
    })
    void findsDeniedFunctionsAnywhereInTheTree(String sql, String function) throws Exception {
        AstScan.Finding f = scan(sql);
        assertNotNull(f, sql);
        assertEquals(Refusals.DENIED_FUNCTION, f.rule());
        assertEquals(function, f.functionName());
    }

    @Test
    void quotedNamesKeepTheirCase() throws Exception {
        assertNull(scan("SELECT \"NEXTVAL\"('s')"));
        assertEquals("nextval", AstScan.lastPart(java.util.List.of("pg_catalog", "\"nextval\""), null));
        assertEquals("Next\"Val", AstScan.lastPart(java.util.List.of("\"Next\"\"Val\""), null));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "WITH u AS (UPDATE t SET a = 0 RETURNING id) SELECT * FROM u",
        "WITH a AS (SELECT 1), b AS (DELETE FROM t RETURNING 1) SELECT * FROM a",
        "WITH a AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM a",
    })
    void findsDataModifyingCtes(String sql) throws Exception {
        assertEquals(Refusals.DML_IN_CTE, scan(sql).rule());
    }

    @Test
    void findsIntoLockingAndOtherStatementKinds() throws Exception {
        assertEquals(Refusals.SELECT_INTO, scan("SELECT * INTO t2 FROM t").rule());
        assertEquals(Refusals.LOCKING, scan("SELECT * FROM (SELECT * FROM t FOR UPDATE) s").rule());
        assertEquals("FOR KEY SHARE", scan("WITH x AS (SELECT * FROM t FOR KEY SHARE) SELECT 1").what());
        assertEquals(Refusals.LOCKING, scan("SELECT 1 UNION SELECT 2 FOR UPDATE").rule());
        assertEquals(Refusals.STATEMENT_KIND, scan("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x").rule());
        assertEquals("INSERT", scan("INSERT INTO t VALUES (1)").what());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT c.name, sum(o.amount) OVER (PARTITION BY c.id) FROM customers c JOIN orders o ON o.customer_id = c.id",
        "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT * FROM t",
        "SELECT * FROM generate_series(1, 3) g(x), LATERAL (SELECT x * 2) d",
        "VALUES (1, now())",
        "TABLE orders",
    })
    void findsNothingInPlainReads(String sql) throws Exception {
        assertNull(scan(sql), sql);
    }
}
