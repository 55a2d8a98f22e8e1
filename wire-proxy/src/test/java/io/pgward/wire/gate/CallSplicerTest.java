package io.pgward.wire.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import io.pgward.nl.NlException;
import io.pgward.nl.PgwardCallSites;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallSplicerTest {

    private static String splice(String sql, CallSplicer.Result... results) throws NlException {
        return CallSplicer.splice(sql, PgwardCallSites.find(sql, true), List.of(results));
    }

    private static CallSplicer.Rows rows(List<String> columns, List<String>... rows) {
        return new CallSplicer.Rows(columns, List.of(rows));
    }

    @Test
    void aFromItemBecomesAValuesListNamedAfterTheFunction() throws NlException {
        assertEquals("select count(*) from (SELECT * FROM (VALUES (E'a'::pg_catalog.text, E'b'::pg_catalog.text)) "
                + "AS pgward_rows(\"field\", \"value\")) AS \"describe\" where true",
                splice("select count(*) from pgward.describe('x') where true",
                        rows(List.of("field", "value"), List.of("a", "b"))));
        assertEquals("select * from (SELECT NULL::pg_catalog.text AS \"field\", NULL::pg_catalog.text AS \"value\" "
                + "WHERE false) d(f, v)", splice("select * from pgward.describe('x') d(f, v)",
                        rows(List.of("field", "value"))));
    }

    @Test
    void everyValueIsOneStringLiteralWhateverStandardConformingStringsSays() throws NlException {
        String nasty = "it's \\'); drop table orders; -- \\\\ $$ \" ";
        String sql = splice("select * from pgward.describe('x')", rows(List.of("field", "value"),
                Arrays.asList(nasty, null)));
        for (boolean scs : List.of(true, false)) {
            List<Token> strings = lex(sql, scs).stream().filter(t -> t.kind() == Token.Kind.STRING).toList();
            assertEquals(1, strings.size(), sql);
            assertEquals(nasty, strings.getFirst().value(), "standard_conforming_strings " + scs);
        }
    }

    @Test
    void boundArgumentsStayReferencedWithoutEffect() throws NlException {
        String sql = "select * from pgward.describe($2) where field = $1";
        assertEquals("select * from (SELECT NULL::pg_catalog.text AS \"field\", NULL::pg_catalog.text AS \"value\" "
                + "WHERE false AND ($2::pg_catalog.text IS NULL OR true)) AS \"describe\" where field = $1",
                CallSplicer.shape(sql, PgwardCallSites.find(sql, true)));
    }

    @Test
    void aQuestionsColumnsComeFromItsDefinitionList() throws NlException {
        String sql = "select * from pgward.ask($1) as t(name text, n int) order by 1";
        List<PgwardCallSites.CallSite> sites = PgwardCallSites.find(sql, true);
        assertEquals("select * from (SELECT NULL::text AS name, NULL::int AS n WHERE false AND "
                + "($1::pg_catalog.text IS NULL OR true)) AS t order by 1", CallSplicer.shape(sql, sites));
        assertEquals("select * from (SELECT pgward_query.pgward_c1::text AS name, pgward_query.pgward_c2::int AS n "
                + "FROM (\nSELECT 1, 2\n) AS pgward_query(pgward_c1, pgward_c2) WHERE ($1::pg_catalog.text IS NULL "
                + "OR true)) AS t order by 1", CallSplicer.splice(sql, sites,
                List.of(new CallSplicer.Query("SELECT 1, 2"))));
        String bare = "select * from pgward.ask($1)";
        NlException e = assertThrows(NlException.class, () -> CallSplicer.shape(bare,
                PgwardCallSites.find(bare, true)));
        assertEquals("42601", e.sqlState());
    }

    @Test
    void onlyOneValueStandsInAnExpression() throws NlException {
        assertEquals("select (SELECT E'{}'::pg_catalog.text AS \"dialect\")",
                splice("select pgward.dialect()", rows(List.of("dialect"), List.of("{}"))));
        NlException e = assertThrows(NlException.class, () -> splice("select pgward.describe('x')",
                rows(List.of("field", "value"), List.of("a", "b"))));
        assertEquals("0A000", e.sqlState());
    }

    @Test
    void aStatementTooLongForTheGuardIsAClearError() {
        List<String> row = List.of("x".repeat(1000), "y");
        @SuppressWarnings("unchecked")
        List<String>[] many = java.util.Collections.nCopies(CallSplicer.MAX_CHARS / 1000 + 1, row)
                .toArray(new List[0]);
        NlException e = assertThrows(NlException.class, () -> splice("select * from pgward.describe('x')",
                rows(List.of("field", "value"), many)));
        assertEquals("54000", e.sqlState());
        assertTrue(e.getMessage().contains("call it alone"), e.getMessage());
    }

    private static List<Token> lex(String sql, boolean scs) {
        try {
            return SqlLexer.tokenize(sql, scs);
        } catch (io.pgward.guard.lexer.LexerException e) {
            throw new AssertionError(e);
        }
    }
}
