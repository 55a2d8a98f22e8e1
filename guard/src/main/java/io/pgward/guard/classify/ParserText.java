package io.pgward.guard.classify;

import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import io.pgward.guard.lexer.Token.Kind;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The text JSqlParser is given for a query: rebuilt from the lexer's tokens, so that PostgreSQL's lexical rules, not
 * JSqlParser's, decide where every token starts and ends. The rebuilt text has the same tokens in the same order,
 * with only these changes, none of which can change what L2 looks for (statement kinds, INTO, locking clauses,
 * data-modifying CTEs and function names):
 * <ul>
 *   <li>comments are gone and every run of blanks is one space (so the text is one line and a parser column is an
 *       offset);</li>
 *   <li>every string literal (E'', U&amp;'', dollar-quoted, B'', X'', N'') is written as a standard {@code '...'}
 *       literal of its decoded value, control characters as spaces; every quoted or U&amp; identifier as
 *       {@code "..."} of its decoded name;</li>
 *   <li>string literals that PostgreSQL concatenates (separated only by blanks with a newline) are one literal;</li>
 *   <li>{@code OPERATOR(schema.op)} is written as the bare operator, and {@code COLLATE name} clauses and the
 *       {@code NOT MATERIALIZED} hint of a CTE are left out: JSqlParser 5.3 rejected all three (5.4 reads the last
 *       two), and none of them can name a function, a relation or a statement;</li>
 *   <li>an operator JSqlParser does not know ({@code ~~*}, {@code -|-}, {@code @?}, {@code #}, {@code |/},
 *       a user-defined one, ...) is written as {@code -}, which it reads both as a prefix and as an infix operator.
 *       L2 never looks at operators (the catalog check does), and this also keeps JSqlParser from reading an
 *       operator as something else: it takes {@code //} for the start of a comment and would drop the rest of the
 *       statement from its tree. Two operators in a row are always written apart.</li>
 * </ul>
 */
final class ParserText {

    /**
     * Operators JSqlParser parses as operators (found by trying each with 5.3; with 5.4, no operator here hides what
     * follows it: ReadOnlyClassifierTest); every other one is written as "-".
     */
    static final Set<String> KNOWN_OPERATORS = Set.of("::", "+", "-", "*", "/", "%", "^", "||", "=", "<", ">", "<=",
            ">=", "<>", "!=", "~", "~*", "!~", "!~*", "~~", "!~~", "@>", "<@", "&&", "->", "->>", "#>", "#>>", "?",
            "?|", "?&", "@@", "@@@", "<->", "&", "|", "<<", ">>", "&>", "<#>", "<=>");

    private final String sql;
    private final List<Token> tokens;
    /** Offset in {@link #sql} where each token's rendering starts; -1 for tokens left out. */
    private final int[] renderedAt;

    private ParserText(String sql, List<Token> tokens, int[] renderedAt) {
        this.sql = sql;
        this.tokens = tokens;
        this.renderedAt = renderedAt;
    }

    String sql() {
        return sql;
    }

    static ParserText render(StatementText statement) {
        List<Token> tokens = statement.tokens();
        int[] at = new int[tokens.size()];
        Arrays.fill(at, -1);
        StringBuilder out = new StringBuilder(statement.text().length() + 16);
        Token previous = null;
        int i = 0;
        while (i < tokens.size()) {
            Token t = tokens.get(i);
            if (t.isWord("operator") && i + 1 < tokens.size() && TokenReader.isSymbol(tokens.get(i + 1), "(")) {
                int close = TokenReader.closingParen(tokens, i + 1);
                if (close > i + 2 && tokens.get(close - 1).kind() == Kind.OPERATOR) {
                    Token op = tokens.get(close - 1);
                    separate(out, previous, t);
                    at[close - 1] = out.length();
                    out.append(operator(op.text()));
                    previous = tokens.get(close);
                    i = close + 1;
                    continue;
                }
            }
            if (t.isWord("collate")) {
                int j = i + 1;
                if (j < tokens.size() && TokenReader.identifier(tokens.get(j)) != null) {
                    j++;
                    while (j + 1 < tokens.size() && TokenReader.isSymbol(tokens.get(j), ".")
                            && TokenReader.identifier(tokens.get(j + 1)) != null) {
                        j += 2;
                    }
                    previous = tokens.get(j - 1);
                    if (out.length() > 0 && out.charAt(out.length() - 1) != ' ') {
                        out.append(' ');
                    }
                    i = j;
                    continue;
                }
            }
            if (t.isWord("not") && i > 0 && tokens.get(i - 1).isWord("as") && i + 1 < tokens.size()
                    && tokens.get(i + 1).isWord("materialized")) {
                previous = tokens.get(i + 1);
                i += 2;
                continue;
            }
            if (t.kind() == Kind.STRING) {
                StringBuilder value = new StringBuilder(t.value());
                int j = i + 1;
                while (j < tokens.size() && tokens.get(j).kind() == Kind.STRING) {
                    value.append(tokens.get(j++).value());
                }
                separate(out, previous, t);
                at[i] = out.length();
                out.append('\'').append(flat(value.toString()).replace("'", "''")).append('\'');
                previous = tokens.get(j - 1);
                i = j;
                continue;
            }
            if (TokenReader.isSymbol(t, ":") && i + 1 < tokens.size() && tokens.get(i + 1).start() == t.end()
                    && tokens.get(i + 1).text().equals("=")) {
                separate(out, previous, t);   // := of a named argument, if the lexer returns it in two pieces
                at[i] = out.length();
                out.append(" - ");
                previous = tokens.get(i + 1);
                i += 2;
                continue;
            }
            separate(out, previous, t);
            if (t.kind() == Kind.OPERATOR && previous != null && previous.kind() == Kind.OPERATOR
                    && out.length() > 0 && out.charAt(out.length() - 1) != ' ') {
                out.append(' ');
            }
            at[i] = out.length();
            out.append(switch (t.kind()) {
                case QUOTED_IDENTIFIER -> "\"" + flat(t.value()).replace("\"", "\"\"") + "\"";
                case OPERATOR -> operator(t.text());
                default -> t.text();
            });
            previous = t;
            i++;
        }
        return new ParserText(out.toString(), tokens, at);
    }

    /** One space where the source had anything (blanks or comments) between two tokens, nothing where it had not. */
    private static void separate(StringBuilder out, Token previous, Token next) {
        if (previous != null && previous.end() != next.start() && out.length() > 0
                && out.charAt(out.length() - 1) != ' ') {
            out.append(' ');
        }
    }

    private static String operator(String op) {
        return KNOWN_OPERATORS.contains(op) ? op : "-";
    }

    private static String flat(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            b.append(Character.isISOControl(c) ? ' ' : c);
        }
        return b.toString();
    }

    /** The source token rendered at or just before {@code offset} of {@link #sql}, or null. */
    Token tokenAt(int offset) {
        Token best = null;
        for (int i = 0; i < tokens.size(); i++) {
            if (renderedAt[i] >= 0 && renderedAt[i] <= offset) {
                best = tokens.get(i);
            }
        }
        return best;
    }
}
