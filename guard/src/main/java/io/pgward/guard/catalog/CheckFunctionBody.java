package io.pgward.guard.catalog;

import java.util.Map;
import java.util.Set;

/**
 * The stored body of the check function, {@code RETURN EXISTS (SELECT 1 FROM (client query) AS pgward_query)}:
 * PostgreSQL keeps it as a query whose one output is the EXISTS sublink. The check judges the sublink's query, which
 * is what a view of {@code SELECT 1 FROM (client query) AS pgward_query} would store.
 *
 * <p>The client's text sits inside parentheses that it could close early, so the body is held to exactly the shape
 * the check wrote: one output, the sublink, and nothing else in the outer query (no relations, conditions, grouping,
 * ordering or limits), whatever else a text that closes the parentheses wrote there. Anything else is not judged at
 * all: the statement cannot be checked.
 */
final class CheckFunctionBody {

    /** PostgreSQL's EXISTS_SUBLINK. */
    private static final long EXISTS = 0;
    /** PostgreSQL's CMD_SELECT. */
    private static final long SELECT = 1;
    /** The outer query's fields checked on their own; every other one must be empty, zero or false. */
    private static final Set<String> CHECKED = Set.of("commandType", "targetList", "jointree");
    /** The flags PostgreSQL sets for the body as written. */
    private static final Set<String> TRUE_FLAGS = Set.of("canSetTag", "hasSubLinks", "isReturn");
    /** Numbers that may be other than 0: where the text was, and kinds that mean nothing without their clause. */
    private static final Set<String> ANY_NUMBER = Set.of("stmt_location", "stmt_len", "limitOption", "override");

    private CheckFunctionBody() {
    }

    /** The query of the body's EXISTS sublink, or a {@link NodeTreeException} when the body has another shape. */
    static TreeValue.Node query(TreeValue body) {
        if (!(body instanceof TreeValue.Node outer) || !outer.tag().equals("QUERY")
                || outer.number("commandType") != SELECT) {
            throw notTheBody("its body is not one SELECT");
        }
        for (Map.Entry<String, TreeValue> field : outer.fields().entrySet()) {
            if (!CHECKED.contains(field.getKey()) && !empty(field.getKey(), field.getValue())) {
                throw notTheBody("its body's query has " + field.getKey());
            }
        }
        if (!(outer.field("jointree").orElse(null) instanceof TreeValue.Node from)
                || !empty("fromlist", from.field("fromlist").orElse(TreeValue.Null.INSTANCE))
                || !empty("quals", from.field("quals").orElse(TreeValue.Null.INSTANCE))) {
            throw notTheBody("its body's query reads relations");
        }
        if (!(outer.field("targetList").orElse(null) instanceof TreeValue.NodeList targets)
                || targets.items().size() != 1
                || !(targets.items().get(0) instanceof TreeValue.Node entry)
                || !(entry.field("expr").orElse(null) instanceof TreeValue.Node sublink)
                || !sublink.tag().equals("SUBLINK") || sublink.number("subLinkType") != EXISTS
                || !(sublink.field("testexpr").orElse(TreeValue.Null.INSTANCE) instanceof TreeValue.Null)
                || !(sublink.field("subselect").orElse(null) instanceof TreeValue.Node query)
                || !query.tag().equals("QUERY")) {
            throw notTheBody("its body is not the one EXISTS it was written as");
        }
        return query;
    }

    /** A null pointer, an empty list, false, 0, or a number that says nothing of its own ({@link #ANY_NUMBER}). */
    private static boolean empty(String name, TreeValue value) {
        if (value instanceof TreeValue.Null) {
            return true;
        }
        if (value instanceof TreeValue.NodeList list) {
            return list.items().isEmpty();
        }
        if (value instanceof TreeValue.NumberList numbers) {
            return numbers.values().isEmpty();
        }
        if (value instanceof TreeValue.Scalar scalar) {
            return scalar.text().equals("false") || scalar.text().equals("0")
                    || scalar.isNumber() && ANY_NUMBER.contains(name)
                    || scalar.text().equals("true") && TRUE_FLAGS.contains(name);
        }
        return false;
    }

    private static NodeTreeException notTheBody(String what) {
        return new NodeTreeException("the check function is not as written: " + what);
    }
}
