package io.pgward.guard.classify;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.util.List;
import org.junit.jupiter.api.Test;

class ParserTextTest {

    /** The one statement of {@code sql}, as the guard's lexer reads it (standard_conforming_strings on). */
    private static StatementText statement(String sql) {
        List<StatementText> statements = assertDoesNotThrow(() -> SqlLexer.split(sql, true), sql);
        assertEquals(1, statements.size(), () -> "expected one statement: " + sql);
        return statements.getFirst();
    }

    private static String render(String sql) {
        return ParserText.render(statement(sql)).sql();
    }

    @Test
    void dropsCommentsAndKeepsTokenAdjacency() {
        assertEquals("SELECT a.b, $1::int FROM t", render("SELECT /* x /* nested */ */ a.b,\n\t$1::int -- c\nFROM t"));
        assertEquals("SELECT 1 FROM public . orders", render("SELECT 1 FROM public . orders"));
    }

    @Test
    void writesEveryStringAndQuotedNameInStandardForm() {
        assertEquals("SELECT 'O''Brien', 'it''s', ' $$ ', 'data', '\\'",
                render("SELECT E'O\\'Brien', $$it's$$, $t$ $$ $t$, U&'d\\0061t\\+000061', '\\'"));
        assertEquals("SELECT \"say \"\"hi\"\"\", \"orders\"", render("SELECT \"say \"\"hi\"\"\", U&\"\\006Frders\""));
        assertEquals("SELECT 'ab' AS s", render("SELECT 'a'\n'b' AS s"));
        assertEquals("SELECT 'a b'", render("SELECT E'a\\nb'"));
    }

    @Test
    void rewritesWhatJSqlParserRejectsButL2DoesNotNeed() {
        assertEquals("SELECT 1 FROM c WHERE c.relname ~ '^x$' AND true",
                render("SELECT 1 FROM c WHERE c.relname OPERATOR(pg_catalog.~) '^x$' COLLATE pg_catalog.default AND true"));
        assertEquals("WITH a AS (SELECT 1) SELECT 1", render("WITH a AS NOT MATERIALIZED (SELECT 1) SELECT 1"));
        assertEquals("SELECT x - 'a', - 25, 1 - pg_sleep(1)", render("SELECT x ~~* 'a', |/ 25, 1 // pg_sleep(1)"));
        assertEquals("SELECT a* -1", render("SELECT a*-1"));
    }
}
