package io.pgward.guard.catalog;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The spellings of a schema-qualified relation name that tools build in SQL from a (schema, name) pair, each part
 * quoted as an identifier: Metabase's {@code '"' || replace(s, '"', '""') || '"' || '.' || '"' || replace(n, '"',
 * '""') || '"'}, {@code quote_ident(s) || '.' || quote_ident(n)} and {@code format('%I.%I', s, n)}, and their mixes.
 * A function that reads a relation name from text (has_table_privilege, to_regclass, regclass) splits such a text at
 * the one dot outside quotes and takes each part as it was before quoting: quote_ident leaves a part unquoted only
 * when it is lower-case letters, digits and underscores, which reading does not fold; every other part is in double
 * quotes with its quotes doubled, which reading undoes. So the text names exactly the relation (s, n), dots, quotes,
 * upper case and spaces in either part included.
 *
 * <p>Only these shapes are read: the constants must be exactly the quotes and the dot (adjacent ones are joined, as
 * {@code ||} joins them), replace must double quotes and nothing else, format's pattern must be {@code %I.%I}. Where
 * the two parts come from is {@link ArgumentOrigin}'s business (one row of one filtered view).
 */
final class QualifiedNames {

    /** textcat and its operator {@code ||} for text (pg_proc.dat, pg_operator.dat). */
    private static final long TEXTCAT = 1258;
    private static final long TEXTCAT_OPERATOR = 654;
    private static final long REPLACE = 2087;
    private static final long QUOTE_IDENT = 1282;
    /** format(text, VARIADIC "any"). */
    private static final long FORMAT = 3539;
    private static final long TEXT = 25;
    /**
     * The collations under which replace is plain byte matching: the database's default (which cannot be
     * nondeterministic) and "C".
     */
    private static final List<Long> DETERMINISTIC = List.of(100L, 950L);

    /** The expressions of the schema and of the name. */
    record Parts(TreeValue schema, TreeValue name) {
    }

    /** A quoted identifier part: {@code replace(x, '"', '""')} between quotes, or {@code quote_ident(x)}. */
    private record Part(TreeValue input, boolean quotedByCaller) {
    }

    private QualifiedNames() {
    }

    /** The parts of {@code expression} when it is one of the shapes, else null. */
    static Parts parts(TreeValue.Node expression) {
        try {
            if (expression.tag().equals("FUNCEXPR") && expression.number("funcid") == FORMAT) {
                return formatted(expression);
            }
            List<Object> pieces = new ArrayList<>();
            if (!concatenation(expression, pieces, 0)) {
                return null;
            }
            return match(joined(pieces));
        } catch (NodeTreeException | NumberFormatException | ClassCastException e) {
            return null;
        }
    }

    /** {@code format('%I.%I', s, n)}. */
    private static Parts formatted(TreeValue.Node call) {
        List<TreeValue> args = args(call);
        if (args.size() != 3 || "true".equals(call.scalar("funcvariadic")) || !"%I.%I".equals(text(args.get(0)))) {
            return null;
        }
        return new Parts(args.get(1), args.get(2));
    }

    /** Flattens {@code a || b} (the text operator or textcat) into its pieces: Strings and Parts. */
    private static boolean concatenation(TreeValue value, List<Object> into, int depth) {
        if (depth > 64 || !(value instanceof TreeValue.Node node)) {
            return false;
        }
        boolean operator = node.tag().equals("OPEXPR") && node.number("opno") == TEXTCAT_OPERATOR
                && node.number("opfuncid") == TEXTCAT;
        boolean call = node.tag().equals("FUNCEXPR") && node.number("funcid") == TEXTCAT;
        if (operator || call) {
            List<TreeValue> args = args(node);
            return args.size() == 2 && concatenation(args.get(0), into, depth + 1)
                    && concatenation(args.get(1), into, depth + 1);
        }
        String constant = text(node);
        if (constant != null) {
            into.add(constant);
            return true;
        }
        Part part = part(node);
        if (part != null) {
            into.add(part);
            return true;
        }
        return false;
    }

    private static Part part(TreeValue.Node node) {
        if (!node.tag().equals("FUNCEXPR") || "true".equals(node.scalar("funcretset"))) {
            return null;
        }
        List<TreeValue> args = args(node);
        long id = node.number("funcid");
        if (id == QUOTE_IDENT && args.size() == 1) {
            return new Part(args.get(0), false);
        }
        if (id == REPLACE && args.size() == 3 && "\"".equals(text(args.get(1)))
                && "\"\"".equals(text(args.get(2))) && DETERMINISTIC.contains(node.number("inputcollid"))) {
            return new Part(args.get(0), true);
        }
        return null;
    }

    /** Adjacent strings joined into one. */
    private static List<Object> joined(List<Object> pieces) {
        List<Object> out = new ArrayList<>();
        for (Object piece : pieces) {
            if (piece instanceof String s && !out.isEmpty() && out.getLast() instanceof String last) {
                out.set(out.size() - 1, last + s);
            } else if (!(piece instanceof String s && s.isEmpty())) {
                out.add(piece);
            }
        }
        return out;
    }

    /**
     * Exactly {@code <part> . <part>}, where a replace part stands between two quotes and a quote_ident part between
     * none.
     */
    private static Parts match(List<Object> pieces) {
        List<TreeValue> parts = new ArrayList<>();
        StringBuilder skeleton = new StringBuilder();
        for (Object piece : pieces) {
            if (piece instanceof Part p) {
                parts.add(p.input());
                skeleton.append(p.quotedByCaller() ? "\u0000" : "\u0001");
            } else {
                String s = (String) piece;
                if (s.indexOf('\u0000') >= 0 || s.indexOf('\u0001') >= 0) {
                    return null;
                }
                skeleton.append(s);
            }
        }
        // A replace part is \0, to be read between two quotes; a quote_ident part is \1, read alone. The constants
        // hold neither character.
        String shape = skeleton.toString().replace("\"\u0000\"", "\u0001");
        return parts.size() == 2 && shape.equals("\u0001.\u0001") ? new Parts(parts.get(0), parts.get(1)) : null;
    }

    /** The value of a non-NULL text constant, or null. */
    private static String text(TreeValue value) {
        if (!(value instanceof TreeValue.Node c) || !c.tag().equals("CONST") || c.number("consttype") != TEXT
                || "true".equals(c.scalar("constisnull"))) {
            return null;
        }
        ArgumentOrigin.Proof proof = ArgumentOrigin.textConstant(c);
        return proof instanceof ArgumentOrigin.Name n ? new String(n.bytes(), StandardCharsets.UTF_8) : null;
    }

    private static List<TreeValue> args(TreeValue.Node node) {
        return node.field("args").orElse(null) instanceof TreeValue.NodeList list ? list.items() : List.of();
    }
}
