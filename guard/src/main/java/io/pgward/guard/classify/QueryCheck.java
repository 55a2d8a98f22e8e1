package io.pgward.guard.classify;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import io.pgward.guard.lexer.Token.Kind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.statement.Statement;

/**
 * The check of a query (SELECT, VALUES, TABLE, WITH, or one of them in parentheses): the tokens first, then
 * JSqlParser's tree.
 *
 * <p>The token pass needs no parser and so also covers what JSqlParser cannot parse or might misread: the main
 * statement of a WITH and the first keyword of every parenthesised part (a data-modifying CTE), any {@code INTO}
 * keyword (a read-only query has none once DML is ruled out), {@code FOR UPDATE / NO KEY UPDATE / SHARE / KEY
 * SHARE}, every {@code name(} of a denied function, and every call that reads a setting by name
 * ({@link ReadableSettings}). Then, inside the {@link ComplexityEnvelope} (a query beyond
 * it is {@link Refusals#TOO_COMPLEX_TO_PARSE}), the query must parse (fail closed: text JSqlParser
 * cannot parse is refused), and {@link AstScan} looks at every node of the tree for the same things.
 *
 * <p>Known over-strictness of the token pass, accepted because it fails closed: a column named {@code update} or
 * {@code share} used as {@code FOR update} (only possible in {@code substring(... FOR update)}), and a table alias
 * without AS whose name is a denied function followed by a column list ({@code FROM t lo_x(a)}).
 */
final class QueryCheck {

    private static final Set<String> MAIN_KEYWORDS = Set.of("select", "values", "table", "with", "insert", "update",
            "delete", "merge");
    private static final Set<String> DML = Set.of("insert", "update", "delete", "merge");

    private final DeniedFunctions denied;
    private final QueryParser parser;
    private final AstScan ast;

    QueryCheck(DeniedFunctions denied, QueryParser parser) {
        this.denied = denied;
        this.parser = parser;
        this.ast = new AstScan(denied);
    }

    /** Whether a statement starting with this token is a query this class checks. */
    static boolean startsQuery(Token first) {
        return first.isWord("select") || first.isWord("values") || first.isWord("table") || first.isWord("with")
                || TokenReader.isSymbol(first, "(");
    }

    Verdict check(StatementText query, ReadOnlyPolicy policy) {
        List<Token> tokens = query.tokens();
        Verdict byTokens = checkTokens(tokens, policy);
        if (byTokens != null) {
            return byTokens;
        }
        String beyond = ComplexityEnvelope.measure(tokens).beyondParser();
        if (beyond != null) {
            return Refusals.tooComplexToParse(beyond, tokens.get(0));
        }
        ParserText text = ParserText.render(query);
        Statement tree;
        try {
            tree = parser.parse(text.sql());
        } catch (JSQLParserException e) {
            return unparseable(e, text, tokens);
        }
        AstScan.Finding finding = ast.scan(tree, policy.catalogFunctions());
        if (finding == null) {
            return Verdict.ALLOW;
        }
        Token at = tokens.get(0);
        if (finding.functionName() != null) {
            Token call = findCall(tokens, finding.functionName());
            at = call != null ? call : at;
        }
        return Refusals.notAllowed(finding.rule(), finding.what(), policy, at);
    }

    private Verdict checkTokens(List<Token> tokens, ReadOnlyPolicy policy) {
        Set<Integer> cteNames = new HashSet<>();
        int[] closing = closingParens(tokens);
        for (int i = 0; i < tokens.size(); i++) {
            if (!tokens.get(i).isWord("with")) {
                continue;
            }
            int main = withList(tokens, i, cteNames, closing);
            if (main >= 0 && main < tokens.size() && DML.contains(keyword(tokens.get(main)))) {
                Token dml = tokens.get(main);
                String kind = dml.value().toUpperCase(Locale.ROOT);
                return i == 0 ? Refusals.notAllowed(Refusals.STATEMENT_KIND, kind, policy, dml)
                        : Refusals.notAllowed(Refusals.DML_IN_CTE, kind + " inside WITH", policy, dml);
            }
        }
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
            if (next != null && TokenReader.isSymbol(t, "(") && startsDml(tokens, i + 1)) {
                return Refusals.notAllowed(Refusals.DML_IN_CTE,
                        next.value().toUpperCase(Locale.ROOT) + " inside WITH", policy, next);
            }
            if (t.isWord("into")) {
                return Refusals.notAllowed(Refusals.SELECT_INTO, "SELECT ... INTO", policy, t);
            }
            if (t.isWord("for") && next != null) {
                String mode = lockingMode(tokens, i + 1);
                if (mode != null) {
                    return Refusals.notAllowed(Refusals.LOCKING, "FOR " + mode, policy, t);
                }
            }
            if (next != null && TokenReader.isSymbol(next, "(") && TokenReader.identifier(t) != null
                    && !cteNames.contains(i) && !(i > 0 && tokens.get(i - 1).isWord("as"))
                    && denied.denies(t.value(), policy.catalogFunctions())) {
                return Refusals.notAllowed(Refusals.DENIED_FUNCTION, "the function " + t.value() + "()",
                        policy, t);
            }
            if (next != null && TokenReader.isSymbol(next, "(") && TokenReader.identifier(t) != null
                    && !cteNames.contains(i) && !(i > 0 && tokens.get(i - 1).isWord("as"))
                    && ReadableSettings.FUNCTIONS.contains(t.value())) {
                Verdict.Refuse unreadable = ReadableSettings.check(tokens, i, policy);
                if (unreadable != null) {
                    return unreadable;
                }
            }
        }
        return null;
    }

    /**
     * Reads the CTE list of the WITH at {@code with} and returns the index of the statement the list belongs to, or
     * -1 when the tokens do not read as a CTE list. Only a list that reads whole adds its CTE names' positions to
     * {@code cteNames} (a CTE with a column list looks like a call: {@code WITH has_rows(n) AS (...)}).
     */
    static int withList(List<Token> tokens, int with, Set<Integer> cteNames, int[] closing) {
        List<Integer> names = new ArrayList<>();
        int j = with + 1;
        if (j < tokens.size() && tokens.get(j).isWord("recursive")) {
            j++;
        }
        while (j < tokens.size()) {
            if (TokenReader.identifier(tokens.get(j)) == null) {
                return -1;
            }
            names.add(j++);
            if (j < tokens.size() && TokenReader.isSymbol(tokens.get(j), "(")) {
                j = closing[j];
                if (j < 0) {
                    return -1;
                }
                j++;
            }
            if (j >= tokens.size() || !tokens.get(j).isWord("as")) {
                return -1;
            }
            j++;
            if (j < tokens.size() && tokens.get(j).isWord("not")) {
                j++;
            }
            if (j < tokens.size() && tokens.get(j).isWord("materialized")) {
                j++;
            }
            if (j >= tokens.size() || !TokenReader.isSymbol(tokens.get(j), "(")) {
                return -1;
            }
            j = closing[j];
            if (j < 0) {
                return -1;
            }
            j++;
            // SEARCH ... SET col and CYCLE ... SET col [TO v DEFAULT v] USING col hold no parentheses.
            if (j < tokens.size() && (tokens.get(j).isWord("search") || tokens.get(j).isWord("cycle"))) {
                while (j < tokens.size() && !TokenReader.isSymbol(tokens.get(j), ",")
                        && !TokenReader.isSymbol(tokens.get(j), "(")
                        && !MAIN_KEYWORDS.contains(keyword(tokens.get(j)))) {
                    j++;
                }
            }
            if (j < tokens.size() && TokenReader.isSymbol(tokens.get(j), ",")) {
                j++;
                continue;
            }
            if (j < tokens.size()) {
                cteNames.addAll(names);
                return j;
            }
            return -1;
        }
        return -1;
    }

    /**
     * For each opening parenthesis, the index of the parenthesis that closes it, as {@link TokenReader#closingParen}
     * finds it (brackets count, a bracket that closes it gives -1), and -1 for every other token. One pass: reading
     * each WITH's list from its own parenthesis would be quadratic in the nesting of WITH queries.
     */
    static int[] closingParens(List<Token> tokens) {
        int[] closing = new int[tokens.size()];
        java.util.Arrays.fill(closing, -1);
        int[] open = new int[16];
        int depth = 0;
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.kind() != Kind.PUNCTUATION) {
                continue;
            }
            if (t.text().equals("(") || t.text().equals("[")) {
                if (depth == open.length) {
                    open = java.util.Arrays.copyOf(open, depth * 2);
                }
                open[depth++] = i;
            } else if ((t.text().equals(")") || t.text().equals("]")) && depth > 0) {
                int opener = open[--depth];
                if (t.text().equals(")") && tokens.get(opener).text().equals("(")) {
                    closing[opener] = i;
                }
            }
        }
        return closing;
    }

    /** INSERT INTO, DELETE FROM, MERGE INTO, or UPDATE [ONLY] name [[AS] alias] SET at {@code i}. */
    static boolean startsDml(List<Token> tokens, int i) {
        Token t = tokens.get(i);
        Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
        if (next == null) {
            return false;
        }
        if ((t.isWord("insert") || t.isWord("merge")) && next.isWord("into")) {
            return true;
        }
        if (t.isWord("delete") && next.isWord("from")) {
            return true;
        }
        if (!t.isWord("update")) {
            return false;
        }
        for (int j = i + 1; j < tokens.size() && j <= i + 8; j++) {
            Token u = tokens.get(j);
            if (u.isWord("set")) {
                return j > i + 1;
            }
            if (TokenReader.identifier(u) == null && !TokenReader.isSymbol(u, ".") && !TokenReader.isSymbol(u, "*")) {
                return false;
            }
        }
        return false;
    }

    /** UPDATE, NO KEY UPDATE, SHARE or KEY SHARE at {@code i} (after FOR), or null. */
    private static String lockingMode(List<Token> tokens, int i) {
        TokenReader r = new TokenReader(tokens, i);
        if (r.acceptWord("update")) {
            return "UPDATE";
        }
        if (r.acceptWord("share")) {
            return "SHARE";
        }
        if (r.acceptWords("no", "key", "update")) {
            return "NO KEY UPDATE";
        }
        if (r.acceptWords("key", "share")) {
            return "KEY SHARE";
        }
        return null;
    }

    private static String keyword(Token t) {
        return t.kind() == Kind.WORD ? t.value() : "";
    }

    /** The first {@code name(} of a function called {@code name} (as folded), for the refusal's position. */
    private static Token findCall(List<Token> tokens, String name) {
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (name.equals(TokenReader.identifier(tokens.get(i))) && TokenReader.isSymbol(tokens.get(i + 1), "(")) {
                return tokens.get(i);
            }
        }
        return null;
    }

    private static Verdict unparseable(JSQLParserException e, ParserText text, List<Token> tokens) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        String detail = message.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse(message);
        detail = detail.replaceFirst("^net\\.sf\\.jsqlparser\\.[\\w.]+: ", "");
        Token at = tokens.get(0);
        if (cause instanceof ParseException p && p.currentToken != null && p.currentToken.next != null) {
            Token mapped = text.tokenAt(p.currentToken.next.beginColumn - 1);
            at = mapped != null ? mapped : at;
        }
        return Refusals.unparsedQuery(detail, at);
    }
}
