package io.pgward.guard.catalog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
 *
 * <p>Every new statement shape has its tree read on the way to its verdict, so the reading works on the token's
 * place in the text and makes a string only of what it keeps; node tags and field labels, a small vocabulary, come
 * from {@link TreeNames}.
 */
final class NodeTreeParser {

    /** Nesting of nodes and lists read; see the class comment. */
    static final int MAX_DEPTH = 1_000;

    private final char[] text;
    private int pos;
    private int depth;
    /** The current token: text[start, end). */
    private int start;
    private int end;

    private NodeTreeParser(String text) {
        this.text = text.toCharArray();
    }

    static TreeValue parse(String text) {
        NodeTreeParser p = new NodeTreeParser(text);
        if (!p.advance()) {
            throw new NodeTreeException("empty node tree");
        }
        TreeValue value = p.value();
        if (p.advance()) {
            throw new NodeTreeException("text after the end of the node tree at offset " + p.pos);
        }
        return value;
    }

    /** The value that starts at the current token. */
    private TreeValue value() {
        if (end - start == 1) {
            switch (text[start]) {
                case '{' -> {
                    return nested(true);
                }
                case '(' -> {
                    return nested(false);
                }
                case ')', '}', '[', ']' -> throw new NodeTreeException("unexpected " + token() + " at offset "
                        + pos);
                default -> {
                }
            }
        } else if (end - start == 2 && text[start] == '<' && text[start + 1] == '>') {
            return TreeValue.Null.INSTANCE;
        }
        return scalar();
    }

    private TreeValue scalar() {
        char first = text[start];
        if (first == ':') {
            throw new NodeTreeException("a field label where a value belongs: " + token());
        }
        if (first == '"') {
            if (end - start < 2 || text[end - 1] != '"') {
                throw new NodeTreeException("unterminated string value: " + token());
            }
            return new TreeValue.Text(unescape(start + 1, end - 1));
        }
        String value = unescape(start, end);
        if (nextIsOpeningBracket()) {
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
        advance();   // [
        byte[] bytes = new byte[Math.min(Math.max(length, 0), 64)];
        int count = 0;
        while (true) {
            if (!advance()) {
                throw new NodeTreeException("unterminated datum");
            }
            if (isChar(']')) {
                break;
            }
            long b;
            try {
                b = number();
            } catch (NumberFormatException e) {
                throw new NodeTreeException("datum byte is not a number: " + token());
            }
            if (b < -128 || b > 255) {
                throw new NodeTreeException("datum byte out of range: " + token());
            }
            if (count == bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(8, count * 2));
            }
            bytes[count++] = (byte) b;
        }
        if (count < length) {
            throw new NodeTreeException("datum shorter than its length " + length);
        }
        return new TreeValue.Datum(length, count == bytes.length ? bytes : Arrays.copyOf(bytes, count));
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
        if (!advance() || !isTag()) {
            throw new NodeTreeException("a node without a tag: " + (start < end ? token() : null));
        }
        String tag = TreeNames.of(text, start, end);
        TreeValue.Fields fields = new TreeValue.Fields();
        while (true) {
            if (!advance()) {
                throw new NodeTreeException("node " + tag + " is not closed");
            }
            if (isChar('}')) {
                break;
            }
            if (text[start] != ':' || end - start < 2) {
                throw new NodeTreeException("node " + tag + ": expected a field label, found " + token());
            }
            String label = TreeNames.of(text, start + 1, end);
            if (!advance() || text[start] == ':' || isChar('}')) {
                throw new NodeTreeException("node " + tag + ": field :" + label + " has no value");
            }
            if (fields.put(label, value()) != null) {
                throw new NodeTreeException("node " + tag + ": field :" + label + " appears twice");
            }
        }
        return new TreeValue.Node(tag, fields);
    }

    /** Whether the current token is a node tag as outfuncs.c writes them: capitals, digits and underscores. */
    private boolean isTag() {
        for (int i = start; i < end; i++) {
            char c = text[i];
            if (!(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    private TreeValue list() {
        if (!advance()) {
            throw new NodeTreeException("list is not closed");
        }
        if (end - start == 1 && "ioxb".indexOf(text[start]) >= 0) {
            char kind = text[start];
            List<Long> values = new ArrayList<>();
            while (true) {
                if (!advance()) {
                    throw new NodeTreeException("list is not closed");
                }
                if (isChar(')')) {
                    break;
                }
                try {
                    values.add(number());
                } catch (NumberFormatException e) {
                    throw new NodeTreeException("(" + kind + " list holds a non-number: " + token());
                }
            }
            return new TreeValue.NumberList(kind, values);
        }
        List<TreeValue> items = new ArrayList<>();
        while (!isChar(')')) {
            items.add(value());
            if (!advance()) {
                throw new NodeTreeException("list is not closed");
            }
        }
        return new TreeValue.NodeList(items);
    }

    /** Whether the current token is the one character {@code c}. */
    private boolean isChar(char c) {
        return end - start == 1 && text[start] == c;
    }

    private String token() {
        return new String(text, start, end - start);
    }

    /**
     * The current token as a decimal long, as {@link Long#parseLong(String)} reads it but with ASCII digits only,
     * the only ones PostgreSQL writes.
     */
    private long number() {
        int i = start;
        boolean negative = text[i] == '-';
        if (negative || text[i] == '+') {
            i++;
        }
        if (i == end) {
            throw new NumberFormatException("no digits");
        }
        // Accumulated below zero, as Long.parseLong does, so that Long.MIN_VALUE has room.
        long limit = negative ? Long.MIN_VALUE : -Long.MAX_VALUE;
        long value = 0;
        for (; i < end; i++) {
            int digit = text[i] - '0';
            if (digit < 0 || digit > 9 || value < limit / 10) {
                throw new NumberFormatException("not a decimal long");
            }
            value *= 10;
            if (value < limit + digit) {
                throw new NumberFormatException("not a decimal long");
            }
            value -= digit;
        }
        return negative ? value : -value;
    }

    /** pg_strtok: moves to the next token; false at the end of the text. */
    private boolean advance() {
        int length = text.length;
        while (pos < length && isBlank(text[pos])) {
            pos++;
        }
        start = pos;
        if (pos >= length) {
            end = pos;
            return false;
        }
        char c = text[pos];
        if (isDelimiter(c)) {
            end = ++pos;
            return true;
        }
        while (pos < length) {
            c = text[pos];
            if (isBlank(c) || isDelimiter(c)) {
                break;
            }
            if (c == '\\') {
                if (pos + 1 >= length) {
                    throw new NodeTreeException("backslash at the end of the node tree");
                }
                pos += 2;
            } else {
                pos++;
            }
        }
        end = pos;
        return true;
    }

    /** Whether the next token is {@code [}, without moving to it. */
    private boolean nextIsOpeningBracket() {
        int p = pos;
        int length = text.length;
        while (p < length && isBlank(text[p])) {
            p++;
        }
        return p < length && text[p] == '['
                && (p + 1 == length || isBlank(text[p + 1]) || isDelimiter(text[p + 1]));
    }

    private static boolean isDelimiter(char c) {
        return c == '(' || c == ')' || c == '{' || c == '}';
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\n' || c == '\t' || c == '\r';
    }

    /** text[from, to) with each backslash escape replaced by the character it escapes. */
    private String unescape(int from, int to) {
        int backslash = from;
        while (backslash < to && text[backslash] != '\\') {
            backslash++;
        }
        if (backslash == to) {
            return new String(text, from, to - from);
        }
        StringBuilder b = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            char c = text[i];
            if (c == '\\' && i + 1 < to) {
                c = text[++i];
            }
            b.append(c);
        }
        return b.toString();
    }
}
