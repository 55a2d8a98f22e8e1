package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The walker on parse trees PostgreSQL wrote: {@code ev_action} of a temporary view over a query that uses
 * COALESCE, NULLIF, GREATEST, CASE, ROW, IS TRUE, to_tsvector with a regconfig constant, a scalar sublink with an
 * aggregate, an IN sublink over a view and UNION ALL, captured from PostgreSQL 17 (16+ node names) and 14 (short
 * names). The relation OIDs are the fixture's in the database the text was captured from.
 */
class QueryTreeWalkerTest {

    private static String resource(String name) throws IOException {
        try (InputStream in = QueryTreeWalkerTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void collectsEverythingFromAPostgres17Tree() throws IOException {
        References refs = QueryTreeWalker.walk(NodeTreeParser.parse(resource("ev_action_pg17.txt")), Set.of());
        assertEquals(List.of(16396L, 16420L, 16387L), List.copyOf(refs.relations), "orders, v_sales (WHERE), customers (select list)");
        assertTrue(refs.functions.containsAll(List.of(2116L, 3745L)), "max(int4), to_tsvector(regconfig, text)");
        assertTrue(refs.operators.containsAll(List.of(96L, 1756L)), "int4 =, numeric >");
        assertTrue(refs.types.containsAll(List.of(23L, 25L, 1700L, 16L, 2249L)), "int4, text, numeric, bool, record");
        assertEquals(List.of(new References.DirectConstArgument(3745, QueryTreeWalker.REGCONFIG, 13091)),
                refs.directConstArguments, "to_tsvector's configuration, by its OID");
        assertTrue(!refs.types.contains(QueryTreeWalker.REGCONFIG), "a direct regconfig argument is not a plain use");
        assertTrue(refs.nonReading.isEmpty());
    }

    @Test
    void collectsEverythingFromAPostgres14Tree() throws IOException {
        // 16516 is the captured temporary view itself: PostgreSQL 14 keeps its OLD and NEW entries in the range table.
        References refs = QueryTreeWalker.walk(NodeTreeParser.parse(resource("ev_action_pg14.txt")), Set.of(16516L));
        assertEquals(List.of(16396L, 16420L, 16387L), List.copyOf(refs.relations), "orders, v_sales (WHERE), customers (select list)");
        assertTrue(refs.functions.containsAll(List.of(2116L, 3745L)));
        assertTrue(refs.operators.containsAll(List.of(96L, 1756L)));
        assertEquals(List.of(new References.DirectConstArgument(3745, QueryTreeWalker.REGCONFIG, 13286)),
                refs.directConstArguments);
        References withView = QueryTreeWalker.walk(NodeTreeParser.parse(resource("ev_action_pg14.txt")), Set.of());
        assertTrue(withView.relations.contains(16516L));
    }

    @Test
    void ignoresTheViewsOwnEntries() {
        References refs = QueryTreeWalker.walk(NodeTreeParser.parse(
                "({QUERY :commandType 1 :utilityStmt <> :rtable ({RTE :alias <> :rtekind 0 :relid 99 :relkind v} "
                        + "{RTE :alias <> :rtekind 0 :relid 16396 :relkind r})})"), Set.of(99L));
        assertEquals(Set.of(16396L), refs.relations);
    }

    @Test
    void acceptsPostgres14NodeNames() {
        String tree = "({QUERY :commandType 1 :utilityStmt <> :targetList ({TARGETENTRY :expr {COALESCE "
                + ":coalescetype 23 :args ({CONST :consttype 23 :constvalue 4 [ 1 0 0 0 0 0 0 0 ]})} :resno 1} "
                + "{TARGETENTRY :expr {ROW :row_typeid 2249 :args <>}} {TARGETENTRY :expr {CASE :casetype 25 :args "
                + "({WHEN :expr <> :result <>})}} {TARGETENTRY :expr {MINMAX :minmaxtype 1700 :op 0}} "
                + "{TARGETENTRY :expr {ARRAY :array_typeid 1007 :element_typeid 23}} {TARGETENTRY :expr "
                + "{COLLATE :arg <> :collOid 100}} {TARGETENTRY :expr {ROWCOMPARE :opnos (o 97) :opfamilies (o 1976)}})"
                + " :setOperations {SETOPERATIONSTMT :colTypes (o 23)} :rtable ({RTE :rtekind 0 :relid 5})})";
        References refs = QueryTreeWalker.walk(NodeTreeParser.parse(tree), Set.of());
        assertEquals(Set.of(5L), refs.relations);
        assertTrue(refs.types.containsAll(List.of(23L, 2249L, 25L, 1700L, 1007L)));
        assertEquals(Set.of(97L), refs.operators);
    }

    @Test
    void refusesUnknownNodeTags() {
        NodeTreeException e = assertThrows(NodeTreeException.class, () -> QueryTreeWalker.walk(
                NodeTreeParser.parse("({QUERY :commandType 1 :targetList ({SOMENEWEXPR :x 1})})"), Set.of()));
        assertTrue(e.getMessage().contains("SOMENEWEXPR"));
    }

    @Test
    void collectsReferenceFieldsTheTableDoesNotList() {
        References refs = QueryTreeWalker.walk(NodeTreeParser.parse(
                "{FUNCEXPR :funcid 10 :newtypid 777 :otherfuncid 778 :someopno 779 :funcresulttype 25}"), Set.of());
        assertEquals(Set.of(10L, 778L), refs.functions);
        assertEquals(Set.of(777L, 25L), refs.types);
        assertEquals(Set.of(779L), refs.operators);
    }

    @Test
    void notesQueriesThatDoMoreThanRead() {
        References refs = QueryTreeWalker.walk(NodeTreeParser.parse("({QUERY :commandType 1 :utilityStmt <> "
                + ":cteList ({COMMONTABLEEXPR :ctequery {QUERY :commandType 3 :utilityStmt <>}}) "
                + ":hasModifyingCTE true :rowMarks ({ROWMARKCLAUSE :rti 1})})"), Set.of());
        assertTrue(refs.nonReading.contains("a statement that is not a SELECT"));
        assertTrue(refs.nonReading.contains("a data-modifying WITH query"));
    }

    @Test
    void aRegconfigConstantNestedDeeperIsAPlainUse() {
        References refs = QueryTreeWalker.walk(NodeTreeParser.parse("{FUNCEXPR :funcid 3745 :funcresulttype 3614 "
                + ":args ({COERCEVIAIO :arg {CONST :consttype 3734} :resulttype 3734} {CONST :consttype 25})}"),
                Set.of());
        assertTrue(refs.types.contains(QueryTreeWalker.REGCONFIG));
        assertTrue(refs.directConstArguments.isEmpty());
    }
}
