package io.pgward.arango;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class AqlTextTest {

    @Test
    void replacesPostgresParametersWithBindParameters() {
        AqlText.Prepared prepared = AqlText.prepare("FOR u IN users FILTER u.age >= $2 AND u.name == $1 "
                + "OR u.nick == $1 RETURN u");
        assertEquals("FOR u IN users FILTER u.age >= @p2 AND u.name == @p1 OR u.nick == @p1 RETURN u",
                prepared.aql());
        assertEquals(List.of(1, 2), prepared.parameters());
    }

    @Test
    void leavesDollarSignsInStringsCommentsNamesAndVariablesAlone() {
        String aql = "FOR u IN `c$1` FILTER u.price == '$1' OR u.x == \"\\\"$2\" // $3\n"
                + "/* $4 */ LET $var1 = 1 LET x$5 = 2 RETURN ´$6´";
        AqlText.Prepared prepared = AqlText.prepare(aql);
        assertEquals(aql, prepared.aql());
        assertEquals(List.of(), prepared.parameters());
    }

    @Test
    void dropsTheSemicolonsPsqlSendsAtTheEnd() {
        assertEquals("RETURN 1", AqlText.prepare("RETURN 1;").aql());
        assertEquals("RETURN ';'", AqlText.prepare("RETURN ';' ; ;\n").aql().strip());
        assertEquals("RETURN 1 // done", AqlText.prepare("RETURN 1; // done").aql());
    }

    @Test
    void emptyMeansOnlyWhitespaceCommentsAndSemicolons() {
        assertTrue(AqlText.isEmpty(""));
        assertTrue(AqlText.isEmpty("  \n\t"));
        assertTrue(AqlText.isEmpty("// nothing\n/* at all */ ;"));
        assertFalse(AqlText.isEmpty("RETURN 1"));
        assertFalse(AqlText.isEmpty("-- a SQL comment is AQL text"));
        assertFalse(AqlText.isEmpty("''"));
    }

    @Test
    void longDigitRunsAreNotParameters() {
        AqlText.Prepared prepared = AqlText.prepare("RETURN $123456");
        assertEquals("RETURN $123456", prepared.aql());
        assertEquals(List.of(), prepared.parameters());
    }
}
