package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Node-for-node equality of stored trees, without a server: what it leaves out and what it does not. */
class SameTreeTest {

    private static final String CONST = "{CONST :consttype 1028 :constlen -1 :constbyval false :constisnull false "
            + ":location %d :constvalue 28 [ 112 0 0 0 1 0 0 0 0 0 0 0 26 0 0 0 2 0 0 0 1 0 0 0 %d 64 0 0 ]}";

    private static TreeValue tree(String text) {
        return NodeTreeParser.parse(text);
    }

    @Test
    void textPositionsAndPermissionColumnsAreLeftOut() {
        assertTrue(SameTree.equal(tree(CONST.formatted(10, 0)), tree(CONST.formatted(99, 0))));
        assertTrue(SameTree.equal(tree("{RTEPERMISSIONINFO :relid 1259 :selectedCols (b 8 9) :checkAsUser 0}"),
                tree("{RTEPERMISSIONINFO :relid 1259 :selectedCols (b 8) :checkAsUser 10}")));
    }

    @Test
    void constantsAreComparedByteForByte() {
        assertFalse(SameTree.equal(tree(CONST.formatted(10, 0)), tree(CONST.formatted(10, 1))));
    }

    @Test
    void tagsFieldsAndListsMustMatch() {
        assertFalse(SameTree.equal(tree("{VAR :varno 1 :varattno 2}"), tree("{VAR :varno 1 :varattno 3}")));
        assertFalse(SameTree.equal(tree("{VAR :varno 1}"), tree("{VAR :varno 1 :varattno 3}")));
        assertFalse(SameTree.equal(tree("{VAR :varno 1 :varattno 3}"), tree("{VAR :varno 1}")));
        assertFalse(SameTree.equal(tree("{VAR :varno 1}"), tree("{PARAM :varno 1}")));
        assertFalse(SameTree.equal(tree("({VAR :varno 1})"), tree("({VAR :varno 1} {VAR :varno 1})")));
        assertFalse(SameTree.equal(tree("{RELABELTYPE :arg <>}"), tree("{RELABELTYPE :arg {VAR :varno 1}}")));
    }

    @Test
    void skippedFieldsAreLeftOutOfTheTopNodeOnly() {
        TreeValue a = tree("{QUERY :limitOffset <> :jointree {FROMEXPR :limitOffset 1}}");
        TreeValue b = tree("{QUERY :limitOffset {CONST :consttype 20} :jointree {FROMEXPR :limitOffset 2}}");
        assertFalse(SameTree.equal(a, b, Set.of("limitOffset")));
        assertTrue(SameTree.equal(tree("{QUERY :limitOffset <> :x 1}"),
                tree("{QUERY :limitOffset {CONST :consttype 20} :x 1}"), Set.of("limitOffset")));
    }
}
