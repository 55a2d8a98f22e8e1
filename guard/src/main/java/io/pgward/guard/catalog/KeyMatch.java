package io.pgward.guard.catalog;

import java.util.List;

/**
 * Where a to_reg* call whose argument is not proven (a parameter, {@code to_regtype($1)} in psycopg 3's TypeInfo)
 * may still run: as one operand of {@code oid = oid} that is a conjunct of its Query's WHERE, whose other operand
 * is a column that names, in every row, a visible object of the kind the call resolves. The comparison then keeps
 * only rows of visible objects: a hidden object's OID matches none of them, exactly as the NULL of an absent name
 * does, and in a WHERE conjunct false and NULL both drop the row. Anywhere else (the select list, under NOT, OR,
 * CASE, IS DISTINCT FROM, an ON clause of an outer join, another operator) false and NULL can be told apart, and the
 * call stays refused.
 */
final class KeyMatch {

    /** pg_operator's {@code =(oid, oid)}, pinned by pg_operator.dat. */
    private static final long OID_EQ = 607;

    private KeyMatch() {
    }

    /** The other operand of the WHERE conjunct {@code oid = oid} that has {@code call} as an operand, or null. */
    static TreeValue otherOperand(TreeValue.Node call, QueryScope scope) {
        if (scope == null || !(scope.query().field("jointree").orElse(null) instanceof TreeValue.Node from)) {
            return null;
        }
        TreeValue quals = from.field("quals").orElse(null);
        List<TreeValue> conjuncts = quals instanceof TreeValue.Node and && and.tag().equals("BOOLEXPR")
                && "and".equals(and.scalar("boolop")) ? items(and, "args") : quals == null ? List.of()
                : List.of(quals);
        for (TreeValue conjunct : conjuncts) {
            if (!(conjunct instanceof TreeValue.Node op) || !op.tag().equals("OPEXPR")
                    || op.number("opno") != OID_EQ) {
                continue;
            }
            List<TreeValue> args = items(op, "args");
            if (args.size() != 2) {
                continue;
            }
            for (int i = 0; i < 2; i++) {
                if (unwrapped(args.get(i)) == call) {
                    return args.get(1 - i);
                }
            }
        }
        return null;
    }

    /** The value under RelabelTypes (regtype to oid is one), which never change a value's bits. */
    static TreeValue unwrapped(TreeValue value) {
        TreeValue at = value;
        while (at instanceof TreeValue.Node n && n.tag().equals("RELABELTYPE")) {
            at = n.field("arg").orElse(null);
        }
        return at;
    }

    private static List<TreeValue> items(TreeValue.Node node, String field) {
        return node.field(field).orElse(null) instanceof TreeValue.NodeList list ? list.items() : List.of();
    }
}
