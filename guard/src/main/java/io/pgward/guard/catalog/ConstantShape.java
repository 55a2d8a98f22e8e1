package io.pgward.guard.catalog;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A statement's tokens with the values of its constants left out: two statements with the same key differ only in
 * the values of literal constants that PostgreSQL turns into {@code Const} nodes of the same type. (Not to be
 * confused with {@link StatementShape}, which says where the query sits in a statement; the key is computed from
 * one.) The catalog check shares a verdict between statements with the same key only when the verdict's parse tree
 * shows that no constant could change what it resolved ({@link ShapeSharing}); see docs/verdicts-by-shape.md.
 *
 * <p>Every token goes into the key as its kind and its exact text, except a literal constant inside the analysed
 * query, which goes in as its class: the type PostgreSQL gives it before any coercion.
 * <ul>
 *   <li>An integer ({@code [0-9]+}) by the type its value gets (scan.l's process_integer_literal, then
 *       make_const): {@code int4} if it fits, else {@code int8} if it fits, else {@code numeric}. The two values on
 *       the edges, 2147483648 and 9223372036854775808, are kept as written: preceded by a unary minus the grammar
 *       folds them into -2^31 (int4) and -2^63 (int8), so their type depends on a token the key cannot read as
 *       unary or binary.</li>
 *   <li>A decimal or exponent number: {@code numeric}.</li>
 *   <li>'...', E'...', U&amp;'...' (with its UESCAPE), $$...$$: an unknown-typed string (they all become the
 *       grammar's string constant). B'...' and X'...': a bit string. N'...': {@code nchar} (scan.l hands the
 *       grammar NCHAR and a string).</li>
 *   <li>Everything else is kept as written: keywords (NULL, TRUE, FALSE, the type names of a typed literal
 *       {@code date '...'}), identifiers, operators, {@code $n}; numbers in any other form (0x.., 0o.., 0b..,
 *       with underscores: before PostgreSQL 16 these are a number followed by a name).</li>
 * </ul>
 *
 * <p>Where PostgreSQL reads a literal's value as syntax rather than as a value, the literal is kept as written:
 * <ul>
 *   <li>In an ORDER BY, GROUP BY or DISTINCT ON list an integer constant is a position in the select list
 *       ({@code findTargetlistEntrySQL92}): {@code ORDER BY 2} sorts by another column, with another operator.
 *       Every number from such a {@code BY} to the end of its clause, and in the parentheses of DISTINCT ON, is
 *       kept.</li>
 *   <li>In a type modifier the value is not a constant: {@code float(24)} is real and {@code float(25)} double
 *       precision, and a type's typmodin reads the others while the statement is analysed. Type modifiers are
 *       parenthesized lists right after a name, the same tokens as a call, so every literal inside the
 *       parentheses of anything written like a call ({@code name(...)}, {@code "name"(...)}) is kept, unless a
 *       subquery's own parentheses come between (a type modifier holds constants only). The words that open a
 *       parenthesized expression, not a call, are reserved keywords, which name neither a type nor a function.
 *       Brackets right after a name ({@code int[3]}, array bounds of a type name, or a subscript) likewise.</li>
 *   <li>Literals outside the analysed query (EXPLAIN and COPY options, a cursor's name) are kept.</li>
 * </ul>
 * Whitespace and comments are not tokens, so texts that differ only in them have the same key.
 */
public final class ConstantShape {

    private static final Pattern DECIMAL = Pattern.compile(
            "([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+");
    private static final String INT4_MAX = String.valueOf(Integer.MAX_VALUE);
    private static final String INT8_MAX = String.valueOf(Long.MAX_VALUE);
    private static final String INT4_EDGE = "2147483648";
    private static final String INT8_EDGE = "9223372036854775808";

    /**
     * Words before {@code (} that open a parenthesized expression, a list or a subquery, never a call or a type
     * modifier: reserved keywords (kwlist.h, RESERVED_KEYWORD in PostgreSQL 14 to 18) and the column-name keywords
     * VALUES, EXISTS and BETWEEN, none of which can name a function or a type unquoted.
     */
    private static final Set<String> NOT_A_CALL = Set.of("all", "and", "any", "array", "as", "asymmetric", "both",
            "case", "cast", "distinct", "else", "except", "fetch", "from", "group", "having", "in", "intersect",
            "lateral", "leading", "limit", "not", "offset", "on", "only", "or", "order", "returning", "select",
            "some", "symmetric", "then", "trailing", "union", "using", "when", "where", "window", "with",
            "values", "exists", "between");
    private static final Set<String> SUBQUERY_START = Set.of("select", "with", "values", "table");
    /**
     * Reserved words that end an ORDER BY / GROUP BY list at its own depth: none can stand inside one of its
     * expressions outside parentheses. (FROM can: {@code a IS DISTINCT FROM b}.) A DISTINCT ON list is its
     * parentheses.
     */
    private static final Set<String> LIST_END = Set.of("limit", "offset", "fetch", "for", "having", "window",
            "union", "intersect", "except");

    private ConstantShape() {
    }

    /**
     * The tokens of one statement (as L1 split it) whose values the key leaves out: the constants another value of
     * which gets the same shared verdict. Empty for a statement the catalog check does not analyse.
     */
    public static List<Token> constants(StatementText statement) {
        List<Token> constants = new ArrayList<>();
        key(StatementShape.of(statement), constants);
        return constants;
    }

    /** As {@link #constants(StatementText)}, for one statement's text. */
    public static List<Token> constants(String sql, boolean standardConformingStrings) throws LexerException {
        List<Token> constants = new ArrayList<>();
        key(StatementShape.of(sql, standardConformingStrings), constants);
        return constants;
    }

    /** The key of a statement the catalog check analyses ({@code QUERY} or {@code COPY_RELATION}), else null. */
    static String key(StatementShape shape) {
        return key(shape, null);
    }

    private static String key(StatementShape shape, List<Token> constants) {
        if (shape.kind() != StatementShape.Kind.QUERY && shape.kind() != StatementShape.Kind.COPY_RELATION) {
            return null;
        }
        List<Token> tokens = shape.tokens();
        StringBuilder key = new StringBuilder(tokens.size() * 8);
        key.append(shape.kind()).append(' ').append(shape.from()).append(' ').append(shape.to()).append('|');
        Deque<Frame> frames = new ArrayDeque<>();
        frames.push(new Frame(false, false, false));
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            Frame frame = frames.peek();
            String literal = null;
            switch (t.kind()) {
                case PUNCTUATION -> {
                    String s = t.text();
                    if (s.equals("(") || s.equals("[")) {
                        boolean subquery = s.equals("(") && i + 1 < tokens.size()
                                && tokens.get(i + 1).kind() == Token.Kind.WORD
                                && SUBQUERY_START.contains(tokens.get(i + 1).value());
                        boolean call = i > 0 && callName(tokens.get(i - 1));
                        boolean distinctOn = i > 1 && tokens.get(i - 1).isWord("on")
                                && tokens.get(i - 2).isWord("distinct");
                        frames.push(new Frame(!subquery && (call || frame.verbatim),
                                !subquery && (frame.positions || frame.positionsInside), distinctOn));
                    } else if ((s.equals(")") || s.equals("]")) && frames.size() > 1) {
                        frames.pop();
                    }
                }
                case WORD -> {
                    String w = t.value();
                    Token before = i > 0 ? tokens.get(i - 1) : null;
                    if (w.equals("by") && before != null && (before.isWord("order") || before.isWord("group"))) {
                        frame.positions = true;
                    } else if (LIST_END.contains(w)) {
                        frame.positions = false;
                    }
                }
                case STRING -> literal = stringClass(t.text());
                case NUMBER -> literal = frame.positions || frame.positionsInside ? null : numberClass(t.text());
                default -> { }
            }
            boolean inQuery = i >= shape.from() && i < shape.to();
            if (literal != null && inQuery && !frame.verbatim) {
                key.append(t.kind().ordinal()).append('#').append(literal).append(' ');
                if (constants != null) {
                    constants.add(t);
                }
            } else {
                key.append(t.kind().ordinal()).append(t.text().length()).append(':').append(t.text()).append(' ');
            }
        }
        return key.toString();
    }

    /** One level of parentheses or brackets. */
    private static final class Frame {
        /** Literals here are kept: inside something written like a call (a type modifier may be). */
        final boolean verbatim;
        /** Inside an ORDER BY / GROUP BY / DISTINCT ON list of an enclosing level of the same query. */
        final boolean positionsInside;
        /** An ORDER BY / GROUP BY / DISTINCT ON list is open at this level. */
        boolean positions;

        Frame(boolean verbatim, boolean positionsInside, boolean positions) {
            this.verbatim = verbatim;
            this.positionsInside = positionsInside;
            this.positions = positions;
        }
    }

    private static boolean callName(Token t) {
        return t.kind() == Token.Kind.QUOTED_IDENTIFIER
                || t.kind() == Token.Kind.WORD && !NOT_A_CALL.contains(t.value());
    }

    /** The class of a string constant, by its prefix, or null to keep it as written. */
    public static String stringClass(String text) {
        if (text.isEmpty()) {
            return null;
        }
        return switch (text.charAt(0)) {
            case '\'', '$', 'e', 'E', 'u', 'U' -> "unknown";
            case 'b', 'B', 'x', 'X' -> "bit";
            case 'n', 'N' -> "nchar";
            default -> null;
        };
    }

    /** The type PostgreSQL gives a number constant, or null to keep it as written. */
    public static String numberClass(String text) {
        if (allDigits(text)) {
            return integerClass(text);
        }
        return DECIMAL.matcher(text).matches() ? "numeric" : null;
    }

    /** The type of an integer of ASCII digits, compared as digit strings (every number here is read for it). */
    private static String integerClass(String digits) {
        int from = 0;
        while (from < digits.length() - 1 && digits.charAt(from) == '0') {
            from++;
        }
        String value = digits.substring(from);
        if (compareValues(value, INT4_MAX) <= 0) {
            return "int4";
        }
        if (value.equals(INT4_EDGE) || value.equals(INT8_EDGE)) {
            return null;
        }
        return compareValues(value, INT8_MAX) <= 0 ? "int8" : "numeric";
    }

    private static boolean allDigits(String text) {
        if (text.isEmpty()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** Compares two integers written without leading zeros. */
    private static int compareValues(String a, String b) {
        return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
    }
}
