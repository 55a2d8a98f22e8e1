package io.pgward.guard.catalog;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Node-for-node equality of two stored parse trees, as {@link FilterProof} needs it: the same tags, the same fields
 * with equal values, lists item by item, constants byte for byte. Only fields that cannot change what a Query
 * returns are left out: where in the text a node was written, and which columns a permission check covers.
 */
final class SameTree {

    /**
     * Text positions ({@code location}, {@code stmt_location}, {@code stmt_len}); the columns and user of a
     * permission check ({@code selectedCols}, {@code checkAsUser}): a filter subquery that carries fewer columns than
     * its reference selects fewer, and reads the same rows.
     */
    static final Set<String> IGNORED = Set.of("location", "stmt_location", "stmt_len", "selectedCols",
            "checkAsUser");

    private SameTree() {
    }

    static boolean equal(TreeValue a, TreeValue b) {
        return equal(a, b, Set.of());
    }

    /** Equality with the fields {@code skipped} of the two top nodes left out (compared apart by the caller). */
    static boolean equal(TreeValue a, TreeValue b, Set<String> skipped) {
        return switch (a) {
            case TreeValue.Node n -> b instanceof TreeValue.Node m && nodes(n, m, skipped);
            case TreeValue.NodeList l -> b instanceof TreeValue.NodeList k && lists(l.items(), k.items());
            case TreeValue.Datum d -> b instanceof TreeValue.Datum e && d.length() == e.length()
                    && Arrays.equals(d.bytes(), e.bytes());
            case TreeValue.Null n -> b instanceof TreeValue.Null;
            case TreeValue.Scalar s -> s.equals(b);
            case TreeValue.Text t -> t.equals(b);
            case TreeValue.NumberList l -> l.equals(b);
        };
    }

    private static boolean nodes(TreeValue.Node a, TreeValue.Node b, Set<String> skipped) {
        if (!a.tag().equals(b.tag())) {
            return false;
        }
        Map<String, TreeValue> af = a.fields();
        Map<String, TreeValue> bf = b.fields();
        for (String field : af.keySet()) {
            if (!compared(field, skipped)) {
                continue;
            }
            if (!bf.containsKey(field) || !equal(af.get(field), bf.get(field), Set.of())) {
                return false;
            }
        }
        return bf.keySet().stream().filter(field -> compared(field, skipped)).allMatch(af::containsKey);
    }

    private static boolean compared(String field, Set<String> skipped) {
        return !IGNORED.contains(field) && !skipped.contains(field);
    }

    private static boolean lists(List<TreeValue> a, List<TreeValue> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!equal(a.get(i), b.get(i), Set.of())) {
                return false;
            }
        }
        return true;
    }
}
