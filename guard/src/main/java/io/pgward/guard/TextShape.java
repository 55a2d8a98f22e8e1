package io.pgward.guard;

import io.pgward.guard.classify.ReadOnlyClassifier;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import io.pgward.guard.lexer.Token.Kind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * The shape of a text for L1 and L2: its tokens with the values of some constants left out, so that a text that
 * differs from one L1 and L2 already allowed only in those values gets that allow without JSqlParser (which costs
 * 0.1 to 1 ms per text; see docs/verdicts-by-shape.md, "L1 and L2"). Null, no shape, for a text that must take the
 * full path.
 *
 * <p><b>Why it is sound.</b> For a statement that starts a query (SELECT, VALUES, TABLE, WITH, or one in
 * parentheses) L2's verdict is a function of its tokens and nothing else: the token checks ({@code QueryCheck}) read
 * the kind of every token and the text of words, identifiers and symbols, never the value of a string or a number;
 * the complexity envelope counts tokens and brackets; JSqlParser reads the text {@code ParserText} rebuilds from the
 * tokens (each token's text or decoded value, and whether the source had a gap before it); the tree scan looks at
 * node kinds and function names. So two texts whose tokens are equal in kind, text and gaps, except for constants
 * that JSqlParser tokenizes and parses the same whatever their value, get the same verdict. The key keeps every
 * token as its kind, its exact text and whether a gap precedes it, and replaces a constant by its class only where
 * that holds, and only where no layer or server reads the value as a name, a type, a position or query text:
 * <ul>
 *   <li>A plain {@code '...'} string: one literal (not continued across a newline), no backslash (which
 *       standard_conforming_strings off would read as an escape), and a value of letters, digits, blanks and
 *       {@code - _ . : , / @ + % # & ( ) ' = < > !} only, so that JSqlParser's tokenizer reads every such value as
 *       one string. E'', U&amp;'', dollar-quoted, B'', X'' and N'' strings are kept as written.</li>
 *   <li>A number: {@code int4}, {@code int8} (up to 18 digits) or {@code numeric} ({@code digits.digits}, up to
 *       15 on each side), the classes PostgreSQL and the catalog check give them. Other forms (exponents,
 *       {@code 0x1F}, {@code 1_000}, {@code .5}, longer numbers) are kept as written. A number, a string and a
 *       typed literal never have the same class.</li>
 * </ul>
 * A constant is kept as written, whatever its form, where its value may be read as more than a value:
 * <ul>
 *   <li>inside the parentheses or brackets of anything written like a call or a type ({@code f(...)},
 *       {@code numeric(10, 2)}, {@code name[1]}), at any depth: function arguments (set_config, nextval,
 *       query_to_xml, format, to_regclass, dblink ... read names or query text from them) and type modifiers;</li>
 *   <li>after ORDER BY, GROUP BY, DISTINCT ON, LIMIT, OFFSET or FETCH, to the end of the query level (its
 *       closing parenthesis, or a HAVING or set operation that follows a GROUP BY), nested levels included:
 *       positions ({@code ORDER BY 1}) and row counts;</li>
 *   <li>next to {@code ::}, before COLLATE or AS ({@code CAST('x' AS t)}), and after any word but the few after
 *       which a value stands ({@code SELECT}, {@code WHERE}, {@code AND}, {@code THEN}, {@code LIKE}, ...): a typed
 *       literal ({@code regclass 'x'}, {@code date '...'}, {@code interval '1' day}), a cast
 *       ({@code 'x'::regclass}), an escape, a time zone;</li>
 *   <li>next to another string (PostgreSQL's grammar reads {@code 'a' 'b'} otherwise than {@code 'a'}).</li>
 * </ul>
 * Defence in depth, a text has no shape at all when it has a statement that does not start a query (SET, SHOW,
 * EXPLAIN, COPY, DECLARE, ... read their constants), a parameter {@code $n}, a word of an object-identifier type
 * ({@code regclass}, {@code regproc}, ..., {@code aclitem}), a U&amp; literal or UESCAPE, or a call of a function
 * that reads names, settings or query text from its arguments ({@link #READS_NAMES}).
 *
 * <p>Only allows are shared, never refusals (a refusal carries a position in its own text), and L3 still gets the
 * new text's own statements: it keeps its own shape rules ({@code ConstantShape}, {@code ShapeSharing}).
 */
final class TextShape {

    /** A plain integer's class is kept for up to 18 digits ({@code [0-9]{1,18}}), as {@code ConstantShape}'s. */
    private static final int MAX_INTEGER_DIGITS = 18;
    /** A plain decimal's class is kept for up to 15 digits on each side of its point. */
    private static final int MAX_DECIMAL_DIGITS = 15;
    private static final long INT4_MAX = Integer.MAX_VALUE;

    /** Characters besides letters and digits a replaced string's value may hold. */
    private static final String SAFE_STRING_CHARS = " -_.:,/@+%#&()'=<>!";

    /**
     * Words before {@code (} that open a parenthesized expression, a list or a subquery, never a call or a type
     * modifier (as in {@code ConstantShape}): reserved keywords and VALUES, EXISTS, BETWEEN.
     */
    private static final Set<String> NOT_A_CALL = Set.of("all", "and", "any", "array", "as", "asymmetric", "both",
            "case", "cast", "distinct", "else", "except", "fetch", "from", "group", "having", "in", "intersect",
            "lateral", "leading", "limit", "not", "offset", "on", "only", "or", "order", "returning", "select",
            "some", "symmetric", "then", "trailing", "union", "using", "when", "where", "window", "with",
            "values", "exists", "between");

    /** Words after which a constant is a value: it cannot be a typed literal's, an escape's or a zone's. */
    private static final Set<String> VALUE_AFTER = Set.of("select", "distinct", "all", "where", "having", "on",
            "and", "or", "not", "when", "then", "else", "case", "like", "ilike", "between", "symmetric",
            "asymmetric");

    /** Words that may follow a value constant without reading it as anything else. */
    private static final Set<String> VALUE_BEFORE = Set.of("and", "or", "then", "else", "end", "when", "from",
            "where", "group", "order", "limit", "offset", "fetch", "union", "intersect", "except", "is", "not", "in",
            "like", "ilike", "between", "having", "window", "for", "join", "inner", "left", "right", "full", "cross",
            "natural");

    /** Words after which every constant to the end of the query level is kept as written. */
    private static final Set<String> CLAUSES_KEPT = Set.of("limit", "offset", "fetch");

    /**
     * Reserved words that end a GROUP BY list at its own level and start a clause of values: HAVING, or a set
     * operation's next query. (Neither can follow ORDER BY, LIMIT, OFFSET or FETCH of the same level.)
     */
    private static final Set<String> CLAUSES_END = Set.of("having", "union", "intersect", "except");

    /** Object-identifier types (and aclitem): their input looks names up while the statement is analysed. */
    private static final Set<String> NAME_TYPES = Set.of("regclass", "regtype", "regproc", "regprocedure",
            "regoper", "regoperator", "regnamespace", "regrole", "regcollation", "regconfig", "regdictionary",
            "aclitem", "_regclass", "_regtype", "_regproc", "_regprocedure", "_regoper", "_regoperator",
            "_regnamespace", "_regrole", "_regcollation", "_regconfig", "_regdictionary", "_aclitem");

    /** Functions that read names, settings or query text from their arguments, by name and by name prefix. */
    static final Set<String> READS_NAMES = Set.of("set_config", "current_setting", "nextval", "currval", "setval",
            "lastval", "format", "xpath", "xpath_exists", "obj_description", "col_description",
            "shobj_description", "row_security_active", "version", "current_schemas");
    private static final List<String> READS_NAMES_PREFIXES = List.of("to_reg", "pg_", "has_", "dblink",
            "query_to_", "cursor_to_", "table_to_", "schema_to_", "database_to_", "lo_", "ts_", "to_ts");

    private TextShape() {
    }

    /** The shape of a text L1 split into {@code statements}, or null when it must take the full path. */
    static String key(List<StatementText> statements) {
        try {
            return key(statements, null);
        } catch (RuntimeException e) {
            return null;   // a fault here costs only the sharing: the full path judges the text
        }
    }

    /** The constants the shape of {@code statements} leaves out; empty when the text has no shape. */
    static List<Token> constants(List<StatementText> statements) {
        List<Token> constants = new ArrayList<>();
        return key(statements, constants) == null ? List.of() : constants;
    }

    private static String key(List<StatementText> statements, List<Token> constants) {
        if (statements.isEmpty()) {
            return null;
        }
        StringBuilder key = new StringBuilder(64 * statements.size());
        for (StatementText statement : statements) {
            if (!statement(statement.tokens(), key, constants)) {
                return null;
            }
            key.append(";|");
        }
        return key.toString();
    }

    /** One level of parentheses or brackets. */
    private static final class Frame {
        /** Inside something written like a call or a type, or in a kept clause of an enclosing level. */
        final boolean inherited;
        /** A clause whose constants are kept (ORDER BY, GROUP BY, LIMIT, ...) is open at this level. */
        boolean clause;

        Frame(boolean inherited) {
            this.inherited = inherited;
        }

        boolean kept() {
            return inherited || clause;
        }
    }

    private static boolean statement(List<Token> tokens, StringBuilder key, List<Token> constants) {
        if (!ReadOnlyClassifier.startsQuery(tokens.get(0))) {
            return false;
        }
        Deque<Frame> frames = new ArrayDeque<>();
        frames.push(new Frame(false));
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            Token before = i > 0 ? tokens.get(i - 1) : null;
            Token after = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
            if (excludesText(t, after)) {
                return false;
            }
            Frame frame = frames.peek();
            String literal = null;
            switch (t.kind()) {
                case PUNCTUATION -> {
                    String s = t.text();
                    if (s.equals("(") || s.equals("[")) {
                        boolean call = before != null && callName(before);
                        boolean distinctOn = before != null && before.isWord("on") && i > 1
                                && tokens.get(i - 2).isWord("distinct");
                        frames.push(new Frame(frame.kept() || call || distinctOn));
                    } else if ((s.equals(")") || s.equals("]")) && frames.size() > 1) {
                        frames.pop();
                    }
                }
                case WORD -> {
                    String w = t.value();
                    boolean listBy = w.equals("by") && before != null
                            && (before.isWord("order") || before.isWord("group"));
                    if (CLAUSES_KEPT.contains(w) || listBy) {
                        frame.clause = true;
                    } else if (CLAUSES_END.contains(w)) {
                        frame.clause = false;
                    }
                }
                case STRING -> literal = stringClass(t);
                case NUMBER -> literal = numberClass(t.text());
                default -> { }
            }
            if (before != null && before.end() != t.start()) {
                key.append(' ');
            }
            if (literal != null && !frame.kept() && valueAfter(before) && valueBefore(after)) {
                key.append('#').append(literal).append('\u0001');
                if (constants != null) {
                    constants.add(t);
                }
            } else {
                key.append(t.kind().ordinal()).append(t.text().length()).append(':').append(t.text());
            }
        }
        return true;
    }

    /** Whether this token takes the whole text out of sharing. */
    private static boolean excludesText(Token t, Token after) {
        return switch (t.kind()) {
            case PARAMETER -> true;
            case WORD -> t.value().equals("uescape") || NAME_TYPES.contains(t.value())
                    || (after != null && isSymbol(after, "(") && readsNames(t.value()));
            case QUOTED_IDENTIFIER -> startsWithUnicodePrefix(t.text()) || NAME_TYPES.contains(t.value())
                    || (after != null && isSymbol(after, "(") && readsNames(t.value()));
            case STRING -> startsWithUnicodePrefix(t.text());
            default -> false;
        };
    }

    private static boolean readsNames(String name) {
        if (READS_NAMES.contains(name)) {
            return true;
        }
        for (String prefix : READS_NAMES_PREFIXES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static boolean startsWithUnicodePrefix(String text) {
        return text.length() >= 2 && (text.charAt(0) == 'u' || text.charAt(0) == 'U') && text.charAt(1) == '&';
    }

    private static boolean valueAfter(Token before) {
        if (before == null) {
            return false;
        }
        return switch (before.kind()) {
            case OPERATOR -> !before.text().equals("::");
            case PUNCTUATION -> before.text().equals("(") || before.text().equals(",") || before.text().equals("[");
            case WORD -> VALUE_AFTER.contains(before.value());
            default -> false;
        };
    }

    private static boolean valueBefore(Token after) {
        if (after == null) {
            return true;
        }
        return switch (after.kind()) {
            case OPERATOR -> !after.text().equals("::");
            case PUNCTUATION -> after.text().equals(")") || after.text().equals(",") || after.text().equals("]");
            case WORD -> VALUE_BEFORE.contains(after.value());
            default -> false;
        };
    }

    private static boolean callName(Token t) {
        return t.kind() == Kind.QUOTED_IDENTIFIER || t.kind() == Kind.WORD && !NOT_A_CALL.contains(t.value());
    }

    private static boolean isSymbol(Token t, String symbol) {
        return (t.kind() == Kind.PUNCTUATION || t.kind() == Kind.OPERATOR) && t.text().equals(symbol);
    }

    /** "string" for a plain one-piece '...' literal of safe characters, else null (kept as written). */
    static String stringClass(Token t) {
        String text = t.text();
        if (text.length() < 2 || text.charAt(0) != '\'' || text.charAt(text.length() - 1) != '\''
                || text.indexOf('\\') >= 0) {
            return null;
        }
        String inner = text.substring(1, text.length() - 1);
        if (!inner.replace("''", "'").equals(t.value())) {
            return null;   // continued across a newline, or decoded otherwise than as written
        }
        for (int k = 0; k < inner.length(); ) {
            int c = inner.codePointAt(k);
            if (!safeInString(c)) {
                return null;
            }
            k += Character.charCount(c);
        }
        return "string";
    }

    /** Whether a replaced string's value may hold this character (a quote only doubled, as in the literal). */
    static boolean safeInString(int c) {
        return Character.isLetterOrDigit(c) || SAFE_STRING_CHARS.indexOf(c) >= 0;
    }

    /** The class of a number in one of the plain forms, else null (kept as written). */
    static String numberClass(String text) {
        int length = text.length();
        int point = text.indexOf('.');
        if (point < 0) {
            if (length > MAX_INTEGER_DIGITS || !digits(text, 0, length)) {
                return null;
            }
            long value = Long.parseLong(text);
            if (value == INT4_MAX + 1) {
                return null;   // -2147483648 is an int4: the class would hang on a minus the key cannot place
            }
            return value <= INT4_MAX ? "int4" : "int8";
        }
        boolean plainDecimal = point <= MAX_DECIMAL_DIGITS && length - point - 1 <= MAX_DECIMAL_DIGITS
                && digits(text, 0, point) && digits(text, point + 1, length);
        return plainDecimal ? "numeric" : null;
    }

    /** Whether {@code text} holds at least one character from {@code from} to {@code to}, each an ASCII digit. */
    private static boolean digits(String text, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
