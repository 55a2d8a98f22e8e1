package io.pgward.guard.classify;

import io.pgward.guard.lexer.Token;
import io.pgward.guard.lexer.Token.Kind;
import java.util.List;
import java.util.Set;

/**
 * The bounds on the guard's work per statement text, measured from L1's tokens before anything costlier runs.
 *
 * <p>Why: JSqlParser cannot be interrupted. Its parse timeout only sets a flag that its syntactic lookahead never
 * reads, and that lookahead is exponential in the nesting of brackets that could open several things (a
 * subquery, a parenthesised expression, a row, an array) and in CASE nested in a WHEN: measured with JSqlParser
 * 5.3 on one core, 6 levels of {@code select (select ...)} take 25 ms, 8 take 50 ms, 10 take 110 ms, 14 take 1 s,
 * 16 take 4 s, 30 never end; {@code array[} nested 6 deep takes 13 ms, 12 deep 160 ms, 16 deep 1.6 s; CASE in
 * WHEN 6 deep 40 ms, 8 deep 190 ms; alternating CASE and subquery 8 deep 55 ms, 10 deep 190 ms; bare parentheses
 * 100 deep 150 ms, 400 deep 3.7 s.
 * Its cost per token is also high on long flat texts, highest on IN lists (warm: 1,000 values, 2,000 tokens, about
 * 90 ms; 3,000 values 180 ms; 10,000 values 650 ms; 50,000 values 3.4 s), lower on select lists (1,600 columns,
 * 4,800 tokens, about 50 ms), sums and CASE (2,000 WHENs, 12,000 tokens, about 190 ms). Brackets that open a
 * call's arguments ({@code abs(abs(...))}) are cheap: 200 deep, 45 ms. So a query is given to JSqlParser only inside
 * an envelope where its worst case was measured (see bench/guard-work.sh); outside it the token checks still run and
 * the query is left to the catalog check (L3), where PostgreSQL's own parser proves it, with the same fail-closed
 * rules as any query JSqlParser cannot read. Where no catalog check follows, such a query is refused as too
 * complex (SQLSTATE 54001).
 *
 * <p>The whole text is bounded too, before it is lexed: L1 and the token checks read about 10 characters per
 * microsecond, and a text that reaches the catalog check is lexed there twice more (and split by pgjdbc), so a
 * text of {@link #MAX_TEXT_CHARS} costs pgward about 100 ms of CPU in all (measured: nested WITH queries of 960 KB
 * cost 90 ms in L2 and nearly 400 ms with L3). A longer text (PostgreSQL accepts messages up to 1 GB) is refused at
 * once as too complex. The limit costs no query the catalog check could prove anyway: an IN list of 256 KiB holds
 * some 37,000 values, whose parse tree is beyond the catalog check's 4 MB.
 *
 * <p>L1 bounds what a text costs PostgreSQL's own scanner, which reads runs of operator characters again for each token
 * or comment start in them and cannot be interrupted: past 262,144 such reads the lexer refuses the text as too complex
 * (54001) before any of it is sent anywhere ({@code io.pgward.guard.lexer.OperatorRunReads}).
 *
 * <p>The limits are chosen so that no text inside them costs JSqlParser much more than about 100 ms. A typical
 * query (a dashboard query of a few hundred tokens, a few subqueries deep) is well inside and gets JSqlParser's
 * tree scan on top of the token checks; a large BI query (hundreds of columns, thousands of IN values) is beyond
 * the token limit, costs L2 only the linear token checks, and is proven by the catalog check alone, as any query
 * JSqlParser cannot read:
 * <ul>
 *   <li>{@link #PARSER_MAX_TOKENS}: JSqlParser's cost per token on flat lists (IN lists, select lists, long sums)
 *       stays around 100 ms or less up to here (an IN list of 1,500 values is the worst flat case);</li>
 *   <li>{@link #PARSER_MAX_OPEN_DEPTH}: nesting of brackets that do not open a call's argument list (the
 *       exponential case), and of CASE;</li>
 *   <li>{@link #PARSER_MAX_DEPTH}: nesting of all brackets, calls included (JSqlParser recurses per level).</li>
 * </ul>
 */
public final class ComplexityEnvelope {

    /** Characters of a whole statement text the guard reads at all; a longer text is refused before lexing. */
    public static final int MAX_TEXT_CHARS = 256 * 1024;
    /** Tokens of a query given to JSqlParser. */
    static final int PARSER_MAX_TOKENS = 3_000;
    /** Nesting of brackets that do not open a call's arguments, in a query given to JSqlParser. */
    static final int PARSER_MAX_OPEN_DEPTH = 6;
    /** Nesting of all brackets in a query given to JSqlParser. */
    static final int PARSER_MAX_DEPTH = 64;

    /**
     * Words after which an opening bracket does not open a call's arguments but a nested query, expression, row or
     * list: PostgreSQL's reserved key words (which cannot name a function) and the non-reserved ones that take a
     * parenthesised query or expression. {@code cast(} is left out: its argument is not ambiguous.
     */
    private static final Set<String> OPENING_WORDS = Set.of("all", "analyse", "analyze", "and", "any", "array", "as",
            "asc", "asymmetric", "between", "both", "by", "case", "check", "collate", "column", "constraint", "create",
            "cross", "default", "desc", "distinct", "do", "else", "end", "escape", "except", "exists", "false",
            "fetch", "filter", "for", "from", "full", "group", "having", "ilike", "in", "inner", "intersect", "into",
            "is", "join", "lateral", "leading", "left", "like", "limit", "not", "null", "offset", "on", "only", "or",
            "order", "over", "partition", "returning", "right", "select", "similar", "some", "symmetric", "table",
            "then", "to", "trailing", "true", "union", "unique", "using", "values", "variadic", "when", "where",
            "window", "with", "within");

    private ComplexityEnvelope() {
    }

    /**
     * What was measured of one statement's tokens, in one pass.
     *
     * @param tokens how many tokens
     * @param depth the deepest nesting of ( and [
     * @param openDepth the deepest nesting of ( and [ that do not open a call's arguments
     */
    record Measure(int tokens, int depth, int openDepth) {

        /** Why a query is not given to JSqlParser, or null when it is inside the envelope. */
        String beyondParser() {
            if (tokens > PARSER_MAX_TOKENS) {
                return tokens + " tokens, more than the " + PARSER_MAX_TOKENS + " the syntax check reads";
            }
            if (openDepth > PARSER_MAX_OPEN_DEPTH) {
                return "subqueries, parentheses, arrays or CASE nested " + openDepth + " deep, more than the "
                        + PARSER_MAX_OPEN_DEPTH + " the syntax check reads";
            }
            if (depth > PARSER_MAX_DEPTH) {
                return "brackets or CASE nested " + depth + " deep, more than the " + PARSER_MAX_DEPTH
                        + " the syntax check reads";
            }
            return null;
        }
    }

    /** Measures a statement's tokens. Linear, no recursion; an unbalanced closing bracket is simply not counted. */
    static Measure measure(List<Token> tokens) {
        int depth = 0;
        int maxDepth = 0;
        int open = 0;
        int maxOpen = 0;
        // Per nesting level, what opened it; a growable array, so that no depth is out of reach.
        byte[] levels = new byte[16];
        Token previous = null;
        for (Token t : tokens) {
            byte level = opens(previous, t);
            if (level != NONE) {
                if (depth == levels.length) {
                    levels = java.util.Arrays.copyOf(levels, depth * 2);
                }
                levels[depth++] = level;
                maxDepth = Math.max(maxDepth, depth);
                if (level != CALL) {
                    maxOpen = Math.max(maxOpen, ++open);
                }
            } else if (depth > 0 && closes(t, levels[depth - 1])) {
                if (levels[--depth] != CALL) {
                    open--;
                }
            }
            previous = t;
        }
        return new Measure(tokens.size(), maxDepth, maxOpen);
    }

    private static final byte NONE = 0;
    /** A bracket that opens a call's arguments. */
    private static final byte CALL = 1;
    /** A bracket that opens a nested query, expression, row or array. */
    private static final byte BRACKET = 2;
    /**
     * CASE ... END: JSqlParser's lookahead is exponential in CASE nested in a WHEN as well (measured: 6 levels
     * 40 ms, 8 levels 190 ms, 12 levels 1.6 s, 16 levels more than 8 s), and CASE needs no bracket; END is a
     * reserved word, so inside a query it only ever ends a CASE.
     */
    private static final byte CASE = 3;

    private static byte opens(Token previous, Token t) {
        if (t.kind() == Kind.PUNCTUATION && (t.text().equals("(") || t.text().equals("["))) {
            return call(previous) ? CALL : BRACKET;
        }
        return t.isWord("case") ? CASE : NONE;
    }

    private static boolean closes(Token t, byte level) {
        if (level == CASE) {
            return t.isWord("end");
        }
        return t.kind() == Kind.PUNCTUATION && (t.text().equals(")") || t.text().equals("]"));
    }

    /** A bracket that opens a call's arguments, a type modifier, a column list or a subscript of a name. */
    private static boolean call(Token previous) {
        if (previous == null) {
            return false;
        }
        return switch (previous.kind()) {
            case QUOTED_IDENTIFIER -> true;
            case WORD -> !OPENING_WORDS.contains(previous.value());
            default -> false;
        };
    }
}
