package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatementShapeTest {

    @Test
    void aStatementSplitByTheLexerHasTheShapeOfItsTextLexedAlone() throws LexerException {
        String sql = "SET search_path = public; /* c */ EXPLAIN (COSTS off) SELECT U&'d\\0061t' FROM t;"
                + " COPY t (a, b) TO STDOUT; DECLARE c CURSOR FOR WITH x AS (SELECT 1) TABLE x";
        List<StatementText> statements = SqlLexer.split(sql, true);
        assertEquals(4, statements.size());
        for (StatementText statement : statements) {
            assertEquals(StatementShape.of(statement.text(), true), StatementShape.of(statement));
        }
    }
}
