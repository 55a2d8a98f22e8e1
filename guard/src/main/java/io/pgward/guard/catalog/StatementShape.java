package io.pgward.guard.catalog;

import static io.pgward.guard.lexer.Tokens.closingParen;
import static io.pgward.guard.lexer.Tokens.isSymbol;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.guard.lexer.Token;
import java.util.List;
import java.util.Set;

/**
 * Where the query to analyse sits in one statement: the whole statement for SELECT / WITH / VALUES / TABLE, the
 * query an {@code EXPLAIN}, {@code DECLARE ... CURSOR FOR} or {@code COPY (query) TO} holds, or a query written for
 * {@code COPY relation [(columns)] TO} ({@code SELECT columns FROM relation}, which reads what the COPY reads).
 * Session and transaction commands need no analysis.
 *
 * @param kind what to do with the statement
 * @param tokens the statement's tokens
 * @param from first token of the query (QUERY and COPY_RELATION)
 * @param to one past its last token
 */
record StatementShape(Kind kind, List<Token> tokens, int from, int to) {

    enum Kind {
        /** Analyse the tokens from..to as a query. */
        QUERY,
        /** COPY relation [(columns)] TO: tokens from..to are the relation name and the column list. */
        COPY_RELATION,
        /** A session or transaction command: nothing to analyse. */
        NO_QUERY,
        /** Not a statement the catalog check knows how to analyse: refused. */
        UNKNOWN
    }

    private static final Set<String> QUERY_WORDS = Set.of("select", "with", "values", "table");
    private static final Set<String> NO_QUERY_WORDS = Set.of("set", "show", "reset", "begin", "start", "commit",
            "end", "rollback", "abort", "savepoint", "release", "discard", "deallocate", "fetch", "move", "close");

    static StatementShape of(String sql, boolean standardConformingStrings) throws LexerException {
        return of(SqlLexer.tokenize(sql, standardConformingStrings));
    }

    /**
     * The shape of a statement L1 has already split: its tokens, counted from the statement's own start as if
     * its text had been lexed alone (PostgreSQL's lexer reads a statement the same inside a text and alone).
     */
    static StatementShape of(StatementText statement) {
        List<Token> tokens = statement.tokens();
        int offset = statement.start();
        return of(offset == 0 ? tokens : tokens.stream().map(t -> new Token(t.kind(), t.text(), t.value(),
                t.start() - offset, t.end() - offset)).toList());
    }

    private static StatementShape of(List<Token> tokens) {
        if (tokens.isEmpty() || tokens.stream().anyMatch(t -> t.kind() == Token.Kind.PUNCTUATION
                && t.text().equals(";"))) {
            return new StatementShape(Kind.UNKNOWN, tokens, 0, 0);
        }
        Token first = tokens.get(0);
        if (startsQuery(first)) {
            return query(tokens, 0, tokens.size());
        }
        String word = first.kind() == Token.Kind.WORD ? first.value() : "";
        if (NO_QUERY_WORDS.contains(word)) {
            return new StatementShape(Kind.NO_QUERY, tokens, 0, 0);
        }
        return switch (word) {
            case "explain" -> explain(tokens);
            case "declare" -> declare(tokens);
            case "copy" -> copy(tokens);
            default -> new StatementShape(Kind.UNKNOWN, tokens, 0, 0);
        };
    }

    /** Whether the statement is an EXPLAIN of its query: the client gets the query's plan, not its rows. */
    boolean explains() {
        return kind == Kind.QUERY && from > 0 && tokens.get(0).isWord("explain");
    }

    private static boolean startsQuery(Token t) {
        return t.kind() == Token.Kind.WORD && QUERY_WORDS.contains(t.value())
                || t.kind() == Token.Kind.PUNCTUATION && t.text().equals("(");
    }

    /**
     * The query's parentheses must balance: the check stores it inside {@code (...)}, and only a balanced text
     * means the same there as on its own.
     */
    private static StatementShape query(List<Token> tokens, int from, int to) {
        if (from >= to || !startsQuery(tokens.get(from)) || !balanced(tokens, from, to)) {
            return new StatementShape(Kind.UNKNOWN, tokens, 0, 0);
        }
        return new StatementShape(Kind.QUERY, tokens, from, to);
    }

    /** {@code EXPLAIN (options) query} or {@code EXPLAIN [ANALYZE] [VERBOSE] query}; L2 has refused ANALYZE. */
    private static StatementShape explain(List<Token> tokens) {
        int i = 1;
        if (i < tokens.size() && isSymbol(tokens.get(i), "(")) {
            i = closingParen(tokens, i) + 1;
            if (i == 0) {
                return new StatementShape(Kind.UNKNOWN, tokens, 0, 0);
            }
        } else {
            while (i < tokens.size() && (tokens.get(i).isWord("verbose") || tokens.get(i).isWord("analyze")
                    || tokens.get(i).isWord("analyse"))) {
                i++;
            }
        }
        return query(tokens, i, tokens.size());
    }

    /** {@code DECLARE name [options] CURSOR [WITH[OUT] HOLD] FOR query}. */
    private static StatementShape declare(List<Token> tokens) {
        for (int i = 2; i < tokens.size(); i++) {
            if (tokens.get(i).isWord("cursor")) {
                int j = i + 1;
                if (j + 1 < tokens.size() && (tokens.get(j).isWord("with") || tokens.get(j).isWord("without"))
                        && tokens.get(j + 1).isWord("hold")) {
                    j += 2;
                }
                if (j < tokens.size() && tokens.get(j).isWord("for")) {
                    return query(tokens, j + 1, tokens.size());
                }
                break;
            }
        }
        return new StatementShape(Kind.UNKNOWN, tokens, 0, 0);
    }

    /** {@code COPY [BINARY] (query) TO ...} or {@code COPY [BINARY] relation [(columns)] TO ...}. */
    private static StatementShape copy(List<Token> tokens) {
        int i = 1;
        if (i < tokens.size() && tokens.get(i).isWord("binary")) {
            i++;
        }
        if (i >= tokens.size()) {
            return new StatementShape(Kind.UNKNOWN, tokens, 0, 0);
        }
        if (isSymbol(tokens.get(i), "(")) {
            int close = closingParen(tokens, i);
            return close < 0 ? new StatementShape(Kind.UNKNOWN, tokens, 0, 0) : query(tokens, i + 1, close);
        }
        int start = i;
        while (i < tokens.size() && !tokens.get(i).isWord("to") && !tokens.get(i).isWord("from")) {
            Token t = tokens.get(i);
            boolean namePart = t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER
                    || isSymbol(t, ".");
            if (isSymbol(t, "(")) {
                int close = closingParen(tokens, i);
                if (close < 0) {
                    return new StatementShape(Kind.UNKNOWN, tokens, 0, 0);
                }
                i = close + 1;
                break;
            }
            if (!namePart) {
                return new StatementShape(Kind.UNKNOWN, tokens, 0, 0);
            }
            i++;
        }
        if (i >= tokens.size() || !tokens.get(i).isWord("to") || i == start) {
            return new StatementShape(Kind.UNKNOWN, tokens, 0, 0);
        }
        return new StatementShape(Kind.COPY_RELATION, tokens, start, i);
    }

    private static boolean balanced(List<Token> tokens, int from, int to) {
        int depth = 0;
        for (int i = from; i < to; i++) {
            Token t = tokens.get(i);
            if (t.kind() == Token.Kind.PUNCTUATION && t.text().equals("(")) {
                depth++;
            } else if (t.kind() == Token.Kind.PUNCTUATION && t.text().equals(")") && --depth < 0) {
                return false;
            }
        }
        return depth == 0;
    }
}
