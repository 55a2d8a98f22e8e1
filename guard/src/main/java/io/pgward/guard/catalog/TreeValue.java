package io.pgward.guard.catalog;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One value of PostgreSQL's pg_node_tree text format, as {@link NodeTreeParser} reads it. The format is what the
 * server's outfuncs.c writes and readfuncs.c / read.c read back: nodes {@code {TAG :field value ...}}, lists
 * {@code ( ... )}, integer / OID / XID lists and bitmapsets {@code (i 1 2)}, {@code (o 16384)}, {@code (x ...)},
 * {@code (b 1 2)}, the null pointer {@code <>}, and datums {@code 4 [ 42 0 0 0 ]}.
 */
sealed interface TreeValue {

    /** {@code <>}: a null pointer (also an empty string or a zero char, which the server writes the same way). */
    record Null() implements TreeValue {
        static final Null INSTANCE = new Null();
    }

    /** A bare token with its backslash escapes removed: a number, a boolean, a name, a char. */
    record Scalar(String text) implements TreeValue {
        long asLong() {
            return Long.parseLong(text);
        }

        boolean isNumber() {
            return !text.isEmpty() && text.chars().allMatch(c -> c >= '0' && c <= '9' || c == '-');
        }
    }

    /** A String value node, written {@code "text"}. */
    record Text(String text) implements TreeValue {
    }

    /** A datum (Const's value): its length and bytes. */
    record Datum(int length, byte[] bytes) implements TreeValue {
    }

    /** {@code (i ...)}, {@code (o ...)}, {@code (x ...)} or {@code (b ...)}: numbers with the list's kind letter. */
    record NumberList(char kind, List<Long> values) implements TreeValue {
        public NumberList {
            values = List.copyOf(values);
        }
    }

    /** A list of nodes, values, nulls or nested lists. */
    record NodeList(List<TreeValue> items) implements TreeValue {
        public NodeList {
            items = List.copyOf(items);
        }
    }

    /**
     * The fields of one node as {@link NodeTreeParser} reads them, handed to its {@link Node} and not touched
     * again: the node keeps them without a copy.
     */
    final class Fields extends java.util.LinkedHashMap<String, TreeValue> {
        Fields() {
            super(32);
        }
    }

    /** A node: its tag as written ({@code QUERY}, {@code RTE}, {@code RANGETBLENTRY}, ...) and its fields in order. */
    record Node(String tag, Map<String, TreeValue> fields) implements TreeValue {
        public Node {
            fields = java.util.Collections.unmodifiableMap(fields instanceof Fields parsed ? parsed
                    : new java.util.LinkedHashMap<>(fields));
        }

        Optional<TreeValue> field(String name) {
            return Optional.ofNullable(fields.get(name));
        }

        /** The numeric value of a field, or 0 when it is absent or null. */
        long number(String name) {
            TreeValue v = fields.get(name);
            if (v instanceof Scalar s && s.isNumber()) {
                return s.asLong();
            }
            if (v == null || v instanceof Null) {
                return 0;
            }
            throw new NodeTreeException("field :" + name + " of " + tag + " is not a number: " + v);
        }

        /** The token of a scalar field, or null when it is absent or null. */
        String scalar(String name) {
            TreeValue v = fields.get(name);
            return v instanceof Scalar s ? s.text() : null;
        }
    }
}
