package io.pgward.nl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.nl.PgwardCallSites.CallSite;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PgwardCallSitesTest {

    private static List<CallSite> find(String sql) throws NlException {
        return PgwardCallSites.find(sql, true);
    }

    private static CallSite only(String sql) throws NlException {
        List<CallSite> sites = find(sql);
        assertEquals(1, sites.size(), sql);
        return sites.getFirst();
    }

    @Test
    void findsACallInEveryFromPosition() throws NlException {
        for (String sql : List.of("select * from pgward.relations()", "select * from orders join pgward.relations() "
                + "r on true", "select * from orders o, pgward.relations()", "select * from orders o join x on a = b, "
                + "pgward.relations()", "select * from a join b using (id), pgward.relations()",
                "delete from t using pgward.relations() where t.name = relations.name",
                "select * from lateral pgward.relations()", "with r as (select * from "
                + "pgward.relations()) select 1", "select (select count(*) from pgward.relations())",
                "explain select * from pgward.relations()")) {
            CallSite site = only(sql);
            assertTrue(site.inFrom(), sql);
            assertEquals("pgward.relations()", sql.substring(site.start(), site.end()), sql);
        }
    }

    @Test
    void tellsAnExpressionFromAFromItem() throws NlException {
        for (String sql : List.of("select pgward.dialect()", "select 1 from orders where x = pgward.dialect()",
                "select substring(a from pgward.dialect()) from t", "select a, pgward.dialect() from t")) {
            assertFalse(only(sql).inFrom(), sql);
        }
    }

    @Test
    void quotedNamesCaseCommentsAndWhitespaceAreOneCall() throws NlException {
        CallSite site = only("SELECT * FROM \"pgward\"./* here */ \"describe\" ( 'x' )");
        assertEquals("describe", site.function());
        assertEquals(List.of(new PgwardCallSites.Constant("x", true)), site.arguments());
        assertEquals("describe", only("select * from PGWARD . Describe($1)").function());
        assertTrue(find("select * from \"PGWARD\".relations()").isEmpty(), "a quoted name keeps its case");
    }

    @Test
    void aCallInsideAStringOrACommentIsNotACall() throws NlException {
        assertTrue(find("select 'pgward.relations()', $$pgward.nosuch()$$ -- pgward.nosuch()\n"
                + "/* pgward.relations() */").isEmpty());
        assertTrue(find("select e'\\' pgward.nosuch()'").isEmpty());
        assertTrue(find("select x.pgward.relations()").isEmpty(), "a longer qualified name is not pgward's");
    }

    @Test
    void aliasesAndColumnDefinitionListsAreRead() throws NlException {
        assertTrue(only("select * from pgward.relations() r").aliased());
        assertTrue(only("select * from pgward.relations() as r(a, b, c)").aliased());
        assertFalse(only("select * from pgward.relations() where true").aliased());
        assertFalse(only("select * from pgward.relations() join t on true").aliased());
        String sql = "select * from pgward.ask($1) as t(name text, total numeric(10, 2)) where true";
        CallSite ask = only(sql);
        assertEquals(List.of(new PgwardCallSites.ColumnDefinition("name", "text"),
                new PgwardCallSites.ColumnDefinition("total", "numeric(10, 2)")), ask.definitions());
        assertEquals("t", ask.alias());
        assertEquals(" where true", sql.substring(ask.end()));
        assertTrue(only("select * from pgward.relations() as r(a, b, c)").definitions().isEmpty());
    }

    @Test
    void argumentsAreConstantsOrParameters() throws NlException {
        CallSite site = only("select * from pgward.ask($2, -5)");
        assertEquals(List.of(new PgwardCallSites.Parameter(2), new PgwardCallSites.Constant("-5", false)),
                site.arguments());
        assertTrue(site.bindsParameters());
        assertEquals(new PgwardCall.Ask("q", java.util.OptionalInt.of(-5)),
                PgwardCallSites.call(site, Map.of(2, "q")));
        NlException e = assertThrows(NlException.class, () -> find("select * from pgward.describe(lower('x'))"));
        assertEquals("22023", e.sqlState());
        NlException nul = assertThrows(NlException.class, () -> PgwardCallSites.call(only(
                "select * from pgward.describe($1)"), new java.util.HashMap<>(Map.of())));
        assertEquals("22023", nul.sqlState());
    }

    @Test
    void anUnknownFunctionListsThoseThatExist() {
        NlException e = assertThrows(NlException.class, () -> find("select 1 from pgward.nosuch()"));
        assertEquals("42883", e.sqlState());
        assertTrue(e.getMessage().contains("pgward.relations(), pgward.describe()"), e.getMessage());
    }

    @Test
    void manyCallsAreBounded() {
        String sql = "select * from " + String.join(", ", java.util.Collections.nCopies(
                PgwardCallSites.MAX_CALLS + 1, "pgward.dialect()"));
        assertThrows(NlException.class, () -> find(sql));
    }
}
