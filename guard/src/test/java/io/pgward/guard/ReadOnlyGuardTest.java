package io.pgward.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.classify.Refusals;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.guard.lexer.StatementText;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadOnlyGuardTest {

    private static final ReadOnlyPolicy POLICY = new ReadOnlyPolicy("analyst", null);
    private final ReadOnlyGuard guard = new ReadOnlyGuard();
    private final ReadOnlyGuard proven = new ReadOnlyGuard(true);

    @AfterEach
    void close() {
        guard.close();
        proven.close();
    }

    private ReadOnlyGuard.Classification check(ReadOnlyGuard g, String sql) {
        return g.check(sql, true, POLICY, Set.of());
    }

    @Test
    void theFirstRefusedStatementRefusesTheWholeText() {
        ReadOnlyGuard.Classification classification = check(guard, "SELECT 1; DELETE FROM orders; SELECT 2");
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, classification.verdict());
        assertEquals(Refusals.STATEMENT_KIND, refuse.rule());
        assertEquals(11, refuse.position());
        assertEquals(List.of(), classification.reads());
    }

    @Test
    void aTextTheServerWouldRejectIsRefusedAsUnreadable() {
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, check(guard, "SELECT 'open").verdict());
        assertEquals("lexical", refuse.rule());
    }

    @Test
    void aQueryTooComplexForTheSyntaxCheckIsLeftToTheCatalogCheckOrRefusedWith54001() {
        String nested = "select (".repeat(29) + "select 1001" + ")".repeat(29);
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, check(guard, nested).verdict());
        assertEquals(Refusals.TOO_COMPLEX_TO_PARSE, refuse.rule());
        assertEquals(SqlStates.STATEMENT_TOO_COMPLEX, refuse.sqlState());
        ReadOnlyGuard.Classification left = check(proven, nested);
        assertInstanceOf(Verdict.Allow.class, left.verdict());
        assertEquals(1, left.reads().size(), "proven by PostgreSQL's own parse");
        Verdict.Refuse wrapped = assertInstanceOf(Verdict.Refuse.class, check(proven, "explain " + nested)
                .verdict());
        assertEquals(SqlStates.STATEMENT_TOO_COMPLEX, wrapped.sqlState(),
                "only a query on its own is left to the catalog check");
    }

    @Test
    void aTextPostgreSQLsScannerWouldReadOverAndOverIsRefusedWith54001NotForItsKind() {
        // A 42501 refusal is shown to PostgreSQL's grammar for its own error, which would scan the text for minutes.
        String nested = "/*".repeat(1_000) + "*/".repeat(1_000);
        for (String sql : List.of("select 1 " + nested, "delete from orders " + nested)) {
            Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, check(proven, sql).verdict());
            assertEquals(Refusals.TOO_COMPLEX, refuse.rule(), sql);
            assertEquals(SqlStates.STATEMENT_TOO_COMPLEX, refuse.sqlState());
            assertEquals(sql.indexOf("/*") + 1, refuse.position());
            assertTrue(refuse.message().startsWith("pgward refused this query: it is too complex to check (its runs "
                    + "of operator characters would cost PostgreSQL's scanner more than"), refuse.message());
        }
    }

    @Test
    void aTextLongerThanTheGuardReadsIsRefusedBeforeItIsLexed() {
        String huge = "select 1 where 1 in (" + "1, ".repeat(100_000) + "1)";
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, check(proven, huge).verdict());
        assertEquals(Refusals.TOO_COMPLEX, refuse.rule());
        assertEquals(SqlStates.STATEMENT_TOO_COMPLEX, refuse.sqlState());
        assertTrue(refuse.message().startsWith("pgward refused this query: it is too complex to check ("
                + huge.length() + " characters"), refuse.message());
        assertEquals(null, proven.cached(huge, true, POLICY));
        assertInstanceOf(Verdict.Allow.class, check(proven, "select 1 where 1 in (" + "1, ".repeat(80_000)
                + "1)").verdict(), "under the limit: the token checks, then L3");
    }

    @Test
    void cachesVerdictsButNotThoseThatDependOnDeclaredCursors() {
        assertSame(check(guard, "SELECT 1"), check(guard, "SELECT 1"));
        assertNotSame(check(guard, "FETCH 1 FROM c"), check(guard, "FETCH 1 FROM c"));
        ReadOnlyGuard.Classification fetch = guard.check("FETCH 1 FROM c", true, POLICY, Set.of("c"));
        assertInstanceOf(Verdict.Allow.class, fetch.verdict());
        assertInstanceOf(Verdict.Refuse.class, check(guard, "FETCH 1 FROM c").verdict(),
                "a cursor this session did not declare");
    }

    @Test
    void listsTheStatementsThatReadForTheCatalogCheck() {
        ReadOnlyGuard.Classification classification = check(guard, "SET application_name = 'x'; SELECT 1; "
                + "EXPLAIN SELECT 2; SHOW search_path; DECLARE c CURSOR FOR SELECT 3; COPY orders TO STDOUT");
        assertEquals(List.of("SELECT 1", "EXPLAIN SELECT 2", "DECLARE c CURSOR FOR SELECT 3", "COPY orders TO STDOUT"),
                classification.reads().stream().map(StatementText::text).toList());
        assertEquals(List.of("c"), classification.declaredCursors());
        assertFalse(classification.setsSearchPath(), "application_name is not search_path");
        assertFalse(classification.endsTransaction());
        assertFalse(classification.readsAfterChange());
    }

    @Test
    void saysWhenATextMayChangeSearchPathAndWhetherAReadFollows() {
        for (String sql : List.of("SET search_path = hr", "SET LOCAL search_path TO hr", "SET SCHEMA 'hr'",
                "RESET search_path", "RESET ALL", "SET \"search_path\" = hr", "SET \"SEARCH_PATH\" TO hr",
                "SET SESSION \"Search_Path\" TO hr", "RESET \"ALL\"", "set Search_Path = hr")) {
            ReadOnlyGuard.Classification classification = check(guard, sql);
            assertTrue(classification.setsSearchPath(), sql);
            assertFalse(classification.readsAfterChange(), sql);
            assertTrue(check(guard, sql + "; SELECT 1").readsAfterChange(), sql);
            assertFalse(check(guard, "SELECT 1; " + sql).readsAfterChange(), sql);
        }
        for (String sql : List.of("COMMIT", "ROLLBACK", "ROLLBACK TO SAVEPOINT s", "END", "ABORT")) {
            ReadOnlyGuard.Classification classification = check(guard, "BEGIN; " + sql + "; TABLE orders");
            assertTrue(classification.endsTransaction(), sql);
            assertFalse(classification.setsSearchPath(), sql);
            assertTrue(classification.readsAfterChange(), sql);
        }
    }

    @Test
    void discardAllChangesSearchPathOnlyOnItsOwn() {
        assertTrue(check(guard, "DISCARD ALL").setsSearchPath());
        // In a text of several statements PostgreSQL refuses DISCARD ALL (25001, an implicit transaction block)
        // before anything after it runs.
        for (String sql : List.of("DISCARD ALL; SELECT 1", "SELECT 1; DISCARD ALL; SELECT 2")) {
            ReadOnlyGuard.Classification classification = check(guard, sql);
            assertInstanceOf(Verdict.Allow.class, classification.verdict(), sql);
            assertFalse(classification.setsSearchPath(), sql);
            assertFalse(classification.readsAfterChange(), sql);
        }
    }

    @Test
    void aSyntaxErrorAtTheFirstWordIsPlacedInCharactersAsPostgresqlCountsThem() {
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class,
                check(guard, "/* \uD834\uDD1E */ selec * from orders").verdict());
        assertEquals(Refusals.SYNTAX_ERROR, r.rule());
        assertEquals("syntax error at or near \"selec\"", r.message());
        assertEquals(9, r.position());   // the clef is one character, two Java chars
        r = assertInstanceOf(Verdict.Refuse.class, check(guard, "SELECT 1; SELEC 2").verdict());
        assertEquals("syntax error at or near \"SELEC\"", r.message());
        assertEquals(11, r.position());
    }

    @Test
    void leavesQueriesJSqlParserCannotParseToTheCatalogCheckOnlyWhenOneFollows() {
        String sql = "SELECT x FROM t ORDER BY x USING <";
        Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, check(guard, sql).verdict());
        assertEquals(Refusals.UNPARSED_QUERY, refuse.rule());

        ReadOnlyGuard.Classification classification = check(proven, sql);
        assertInstanceOf(Verdict.Allow.class, classification.verdict());
        assertEquals(List.of(sql), classification.reads().stream().map(StatementText::text).toList());
    }

    @Test
    void theTokenChecksStillRefuseWhatJSqlParserCannotParse() {
        for (String sql : List.of(
                "SELECT sum(x) OVER (ORDER BY y GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) INTO t2 FROM t",
                "SELECT nextval('s') OVER (ORDER BY y GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
                "SELECT x FROM t ORDER BY x USING < FOR UPDATE",
                "WITH d AS (DELETE FROM t RETURNING *) SELECT x BETWEEN SYMMETRIC 1 AND 2 FROM d")) {
            assertInstanceOf(Verdict.Refuse.class, check(proven, sql).verdict(), sql);
        }
        assertInstanceOf(Verdict.Refuse.class, check(proven, "SET statement_timeout = '5 weeks'").verdict(),
                "only queries are left to the catalog check");
    }
}
