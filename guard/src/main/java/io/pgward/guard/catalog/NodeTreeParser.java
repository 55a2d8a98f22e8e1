package io.pgward.guard.catalog;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads PostgreSQL's pg_node_tree text ({@code pg_rewrite.ev_action}, {@code pg_policy.polqual},
 * {@code pg_constraint.conbin}, {@code pg_proc.prosqlbody}) into {@link TreeValue}s.
 *
 * <p>Tokens follow read.c's pg_strtok: whitespace separates them; {@code ( ) { }} are tokens of their own; a
 * backslash makes the next character part of the token; {@code <>} is the null token. A token starting with
 * {@code "} is a String value node (outfuncs.c quotes those). Strict: anything the server would not write (an
 * unclosed node, a field without a value, text after the tree) throws {@link NodeTreeException}.
 *
 * <p>Bounded: the reading recurses once per nested node or list, so a tree nested deeper than {@link #MAX_DEPTH}
 * is not read (it throws {@link NodeTreeException.TooComplex}, and the statement is refused as too complex) rather
 * than risking the thread's stack; {@link QueryTreeWalker} recurses over the same nesting. PostgreSQL nests two
 * levels per operator of a chain such as {@code 1+1+...} (the OpExpr and its argument list), so this admits a
 * chain of about 500 operators in one expression; parentheses make no nodes of their own. The rest is linear in
 * the text, which the catalog check bounds before reading it ({@code CheckTransaction.MAX_TREE_CHARS}).
 */
final class NodeTreeParser {

    /** Nesting of nodes and lists read; see the class comment. */
    static final int MAX_DEPTH = 1_000;

    private final String text;
    private int pos;
    private int depth;
    /** The next token, already read, or null. */
    private String pending;

    private NodeTreeParser(String text) {
        this.text = text;
    }

    static TreeValue parse(String text) {
        NodeTreeParser p = new NodeTreeParser(text);
        String first = p.next();
        if (first == null) {
            throw new NodeTreeException("empty node tree");
        }
        TreeValue value = p.value(first);
        if (p.next() != null) {
            throw new NodeTreeException("text after the end of the node tree at offset " + p.pos);
        }
        return value;
    }

    private TreeValue value(String token) {
        return switch (token) {
            case "{" -> nested(true);
            case "(" -> nested(false);
            case "<>" -> TreeValue.Null.INSTANCE;
            case ")", "}", "[", "]" -> throw new NodeTreeException("unexpected " + token + " at offset " + pos);
            default -> scalar(token);
        };
    }

    private TreeValue scalar(String token) {
        if (token.startsWith(":")) {
            throw new NodeTreeException("a field label where a value belongs: " + token);
        }
        if (token.startsWith("\"")) {
            if (token.length() < 2 || !token.endsWith("\"")) {
                throw new NodeTreeException("unterminated string value: " + token);
            }
            return new TreeValue.Text(unescape(token.substring(1, token.length() - 1)));
        }
        String value = unescape(token);
        if ("[".equals(peek())) {
            return datum(value);
        }
        return new TreeValue.Scalar(value);
    }

    /** outDatum: {@code <length> [ b0 b1 ... ]}, each byte as a signed decimal. */
    private TreeValue datum(String lengthToken) {
        int length;
        try {
            length = Integer.parseInt(lengthToken);
        } catch (NumberFormatException e) {
            throw new NodeTreeException("datum length is not a number: " + lengthToken);
        }
        next();   // [
        List<Byte> bytes = new ArrayList<>();
        for (String t = next(); !"]".equals(t); t = next()) {
            if (t == null) {
                throw new NodeTreeException("unterminated datum");
            }
            try {
                int b = Integer.parseInt(t);
                if (b < -128 || b > 255) {
                    throw new NodeTreeException("datum byte out of range: " + t);
                }
                bytes.add((byte) b);
            } catch (NumberFormatException e) {
                throw new NodeTreeException("datum byte is not a number: " + t);
            }
        }
        byte[] out = new byte[bytes.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = bytes.get(i);
        }
        if (out.length < length) {
            throw new NodeTreeException("datum shorter than its length " + length);
        }
        return new TreeValue.Datum(length, out);
    }

    private TreeValue nested(boolean node) {
        if (++depth > MAX_DEPTH) {
            throw new NodeTreeException.TooComplex("PostgreSQL's parse tree of it is nested more than " + MAX_DEPTH
                    + " levels deep");
        }
        TreeValue value = node ? node() : list();
        depth--;
        return value;
    }

    private TreeValue.Node node() {
        String tag = next();
        if (tag == null || tag.isEmpty() || !tag.chars().allMatch(c -> c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c == '_')) {
            throw new NodeTreeException("a node without a tag: " + tag);
        }
        Map<String, TreeValue> fields = new LinkedHashMap<>();
        for (String t = next(); !"}".equals(t); t = next()) {
            if (t == null) {
                throw new NodeTreeException("node " + tag + " is not closed");
            }
            if (!t.startsWith(":") || t.length() < 2) {
                throw new NodeTreeException("node " + tag + ": expected a field label, found " + t);
            }
            String v = next();
            if (v == null || v.startsWith(":") || v.equals("}")) {
                throw new NodeTreeException("node " + tag + ": field " + t + " has no value");
            }
            if (fields.put(t.substring(1), value(v)) != null) {
                throw new NodeTreeException("node " + tag + ": field " + t + " appears twice");
            }
        }
        return new TreeValue.Node(tag, fields);
    }

    private TreeValue list() {
        String first = next();
        if (first == null) {
            throw new NodeTreeException("list is not closed");
        }
        if (first.length() == 1 && "ioxb".indexOf(first.charAt(0)) >= 0) {
            List<Long> values = new ArrayList<>();
            for (String t = next(); !")".equals(t); t = next()) {
                if (t == null) {
                    throw new NodeTreeException("list is not closed");
                }
                try {
                    values.add(Long.parseLong(t));
                } catch (NumberFormatException e) {
                    throw new NodeTreeException("(" + first + " list holds a non-number: " + t);
                }
            }
            return new TreeValue.NumberList(first.charAt(0), values);
        }
        List<TreeValue> items = new ArrayList<>();
        for (String t = first; !")".equals(t); t = next()) {
            if (t == null) {
                throw new NodeTreeException("list is not closed");
            }
            items.add(value(t));
        }
        return new TreeValue.NodeList(items);
    }

    private String peek() {
        if (pending == null) {
            pending = read();
        }
        return pending;
    }

    private String next() {
        String t = peek();
        pending = null;
        return t;
    }

    /** pg_strtok. Returns null at the end of the text. */
    private String read() {
        while (pos < text.length() && isBlank(text.charAt(pos))) {
            pos++;
        }
        if (pos >= text.length()) {
            return null;
        }
        int start = pos;
        char c = text.charAt(pos);
        if (c == '(' || c == ')' || c == '{' || c == '}') {
            pos++;
            return String.valueOf(c);
        }
        while (pos < text.length()) {
            c = text.charAt(pos);
            if (isBlank(c) || c == '(' || c == ')' || c == '{' || c == '}') {
                break;
            }
            if (c == '\\') {
                if (pos + 1 >= text.length()) {
                    throw new NodeTreeException("backslash at the end of the node tree");
                }
                pos += 2;
            } else {
                pos++;
            }
        }
        return text.substring(start, pos);
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\n' || c == '\t' || c == '\r';
    }

    private static String unescape(String token) {
        if (token.indexOf('\\') < 0) {
            return token;
        }
        StringBuilder b = new StringBuilder(token.length());
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c == '\\' && i + 1 < token.length()) {
                c = token.charAt(++i);
            }
            b.append(c);
        }
        return b.toString();
    }
}
