package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NodeTreeParserTest {

    @Test
    void aTreeNestedDeeperThanTheLimitIsTooComplexAndOneAtTheLimitIsReadAndWalked() throws Exception {
        // {OPEXPR :args ({OPEXPR :args (... {CONST ...} ...)}) }: two levels per operator, as PostgreSQL writes 1+1+...
        java.util.function.IntFunction<String> chain = levels -> "{OPEXPR :opno 551 :args (".repeat(levels / 2)
                + "{CONST :consttype 23 :constvalue <>}" + ")}".repeat(levels / 2);
        NodeTreeException e = assertThrows(NodeTreeException.TooComplex.class,
                () -> NodeTreeParser.parse(chain.apply(NodeTreeParser.MAX_DEPTH + 2)));
        assertEquals("PostgreSQL's parse tree of it is nested more than 1000 levels deep", e.getMessage());
        // At the limit, on a virtual thread as the catalog check runs it: read and walked without running out of stack.
        Thread check = Thread.ofVirtual().unstarted(() -> QueryTreeWalker.walk(
                NodeTreeParser.parse(chain.apply(NodeTreeParser.MAX_DEPTH - 1)), java.util.Set.of()));
        java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        check.setUncaughtExceptionHandler((t, x) -> failure.set(x));
        check.start();
        check.join();
        assertEquals(null, failure.get());
    }

    @Test
    void readsNodesFieldsAndScalars() {
        TreeValue.Node node = assertInstanceOf(TreeValue.Node.class,
                NodeTreeParser.parse("{VAR :varno 1 :vartype 23 :varnullingrels (b) :location -1 :flag true}"));
        assertEquals("VAR", node.tag());
        assertEquals(23, node.number("vartype"));
        assertEquals(-1, node.number("location"));
        assertEquals("true", node.scalar("flag"));
        assertEquals(new TreeValue.NumberList('b', List.of()), node.fields().get("varnullingrels"));
    }

    @Test
    void readsTypedNumberLists() {
        TreeValue.NodeList list = assertInstanceOf(TreeValue.NodeList.class,
                NodeTreeParser.parse("((i 1 2) (o 16384 23) (b 8 9) (x 700))"));
        assertEquals(List.of(new TreeValue.NumberList('i', List.of(1L, 2L)),
                new TreeValue.NumberList('o', List.of(16384L, 23L)), new TreeValue.NumberList('b', List.of(8L, 9L)),
                new TreeValue.NumberList('x', List.of(700L))), list.items());
    }

    @Test
    void readsNumbersToTheEndsOfALong() {
        TreeValue.NumberList list = assertInstanceOf(TreeValue.NumberList.class,
                NodeTreeParser.parse("(i -9223372036854775808 9223372036854775807 +7 -0)"));
        assertEquals(List.of(Long.MIN_VALUE, Long.MAX_VALUE, 7L, 0L), list.values());
    }

    @Test
    void fieldLabelsAndTagsAreTheNamesTheCodeLooksUpByIdentity() {
        TreeValue.Node node = (TreeValue.Node) NodeTreeParser.parse(
                "{" + new String("TARGETENTRY") + " :" + new String("resname") + " x}");
        assertTrue(node.tag() == "TARGETENTRY");
        assertTrue(node.fields().keySet().iterator().next() == "resname");
        assertEquals("x", node.scalar("resname"));
    }

    @Test
    void readsNullsAndNestedLists() {
        TreeValue.NodeList list = assertInstanceOf(TreeValue.NodeList.class,
                NodeTreeParser.parse("(<> ({CONST :consttype 25 :constvalue <>}) ())"));
        assertEquals(TreeValue.Null.INSTANCE, list.items().get(0));
        TreeValue.NodeList inner = assertInstanceOf(TreeValue.NodeList.class, list.items().get(1));
        TreeValue.Node c = assertInstanceOf(TreeValue.Node.class, inner.items().get(0));
        assertEquals(TreeValue.Null.INSTANCE, c.fields().get("constvalue"));
        assertEquals(new TreeValue.NodeList(List.of()), list.items().get(2));
    }

    @Test
    void readsDatumBytesSigned() {
        TreeValue.Node c = (TreeValue.Node) NodeTreeParser.parse(
                "{CONST :consttype 25 :constlen -1 :constvalue 6 [ 24 0 0 0 -61 -87 ] :location 7}");
        TreeValue.Datum d = assertInstanceOf(TreeValue.Datum.class, c.fields().get("constvalue"));
        assertEquals(6, d.length());
        assertArrayEquals(new byte[] {24, 0, 0, 0, -61, -87}, d.bytes());
        assertEquals(7, c.number("location"));
    }

    @Test
    void readsQuotedStringsAndBackslashEscapes() {
        TreeValue.Node alias = (TreeValue.Node) NodeTreeParser.parse(
                "{ALIAS :aliasname we\\(ird\\ name :colnames (\"a\\ b\" \"c\\}d\" \"\" \"\\\"q\")}");
        assertEquals("we(ird name", alias.scalar("aliasname"));
        assertEquals(new TreeValue.NodeList(List.of(new TreeValue.Text("a b"), new TreeValue.Text("c}d"),
                new TreeValue.Text(""), new TreeValue.Text("\"q"))), alias.fields().get("colnames"));
    }

    @Test
    void escapedLeadingCharactersAreNotSpecial() {
        TreeValue.Node n = (TreeValue.Node) NodeTreeParser.parse("{TARGETENTRY :resname \\<> :other \\12ab}");
        assertEquals("<>", n.scalar("resname"));
        assertEquals("12ab", n.scalar("other"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "{VAR :vartype 23", "{VAR :vartype}", "{VAR vartype 23}", "{var :a 1}",
            "{VAR :a 1 :a 2}", "(i 1 x)", "(1 2", "{VAR :a 1} {VAR :a 2}", ")", "{VAR :a 4 [ 1 2 }",
            "{VAR :a 4 [ 1 2 ]}", "{VAR :a 1 [ 300 ]}", "{VAR :a 1 [ -129 ]}", "{VAR :a 1 [ 1x ]}",
            "{VAR :a \"unterminated}", "{VAR :a x\\", "(i 9223372036854775808)", "(i -9223372036854775809)",
            "(i -)", "(i +)", "(o 1\u0661)", "(b 1 2.5)", "{VAR :a 1 [ \u0661 ]}", "{VAR\u00c9 :a 1}"})
    void refusesMalformedText(String text) {
        assertThrows(NodeTreeException.class, () -> NodeTreeParser.parse(text));
    }
}
