package io.pgward.guard.catalog;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads a string-body SQL or PL/pgSQL function as text, the way the user-function rule needs: does it write, run
 * EXECUTE or read a relation, and which names does it call? Conservative by design: a keyword that can start a
 * write, dynamic SQL or a relation read anywhere in the body fails it, even inside a branch that never runs.
 * {@code FROM} is a relation read except in {@code IS DISTINCT FROM} and inside the built-in forms that take it as
 * a keyword ({@code extract}, {@code substring}, {@code trim}, {@code overlay}, {@code position}).
 */
final class StringBody {

    private static final Set<String> FORBIDDEN = Set.of("insert", "update", "delete", "merge", "truncate", "copy",
            "create", "alter", "drop", "grant", "revoke", "execute", "call", "do", "lock", "vacuum", "analyze",
            "analyse", "cluster", "reindex", "refresh", "comment", "listen", "notify", "unlisten", "prepare",
            "discard", "load", "import", "security", "table", "join", "set", "reset", "checkpoint", "reassign",
            "cursor", "open", "fetch", "move");
    private static final Set<String> FROM_TAKING_FUNCTIONS = Set.of("extract", "substring", "trim", "overlay",
            "position");

    /** Why the body fails, or null when it passes; {@link #calledNames()} then lists what it calls. */
    private final String failure;
    private final Set<String> calledNames;
    /** The called names of which some call's first argument is more than one string literal. */
    private final Set<String> calledWithComputedName;
    private final Set<String> operators;
    private final Set<String> words;

    private StringBody(String failure, Set<String> calledNames, Set<String> calledWithComputedName,
                       Set<String> operators, Set<String> words) {
        this.failure = failure;
        this.calledNames = calledNames;
        this.calledWithComputedName = calledWithComputedName;
        this.operators = operators;
        this.words = words;
    }

    private static StringBody fails(String why) {
        return new StringBody(why, Set.of(), Set.of(), Set.of(), Set.of());
    }

    static StringBody read(String source, String language) {
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenize(source == null ? "" : source, true);
        } catch (LexerException e) {
            return fails("its body cannot be read: " + e.getMessage());
        }
        boolean sql = language.equals("sql");
        Set<String> called = new LinkedHashSet<>();
        Set<String> computed = new LinkedHashSet<>();
        Set<String> words = new LinkedHashSet<>();
        Set<String> operators = new LinkedHashSet<>();
        Deque<String> parens = new ArrayDeque<>();
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
            boolean callsNext = next != null && next.kind() == Token.Kind.PUNCTUATION && next.text().equals("(");
            if (t.kind() == Token.Kind.PUNCTUATION && t.text().equals("(")) {
                Token before = i > 0 ? tokens.get(i - 1) : null;
                parens.push(before != null && before.kind() == Token.Kind.WORD ? before.value() : "");
                continue;
            }
            if (t.kind() == Token.Kind.PUNCTUATION && t.text().equals(")")) {
                parens.poll();
                continue;
            }
            if (t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER) {
                words.add(t.value());
            }
            if (t.kind() == Token.Kind.WORD) {
                String w = t.value();
                if (FORBIDDEN.contains(w) || sql && w.equals("into")) {
                    return fails("its body contains " + w.toUpperCase(java.util.Locale.ROOT));
                }
                if (w.equals("from") && !(i > 0 && tokens.get(i - 1).isWord("distinct"))
                        && !FROM_TAKING_FUNCTIONS.contains(parens.isEmpty() ? "" : parens.peek())) {
                    return fails("its body reads a relation (FROM)");
                }
            }
            if (t.kind() == Token.Kind.OPERATOR) {
                operators.add(t.text());
            }
            if (callsNext && (t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER)) {
                called.add(t.value());
                if (!literalFirstArgument(tokens, i + 2)) {
                    computed.add(t.value());
                }
            } else if (t.isWord("current_schema") && !(i > 0 && tokens.get(i - 1).kind() == Token.Kind.PUNCTUATION
                    && tokens.get(i - 1).text().equals("."))) {
                // The keyword without parentheses calls current_schema() too.
                called.add(t.value());
            }
        }
        return new StringBody(null, called, computed, operators, words);
    }

    boolean passes() {
        return failure == null;
    }

    String failure() {
        return failure;
    }

    Set<String> calledNames() {
        return calledNames;
    }

    /**
     * Whether some call of {@code name} takes its first argument from anything but one string literal: a parameter,
     * a variable or an expression, which the function's caller may choose.
     */
    boolean callsWithComputedFirstArgument(String name) {
        return calledWithComputedName.contains(name);
    }

    /** Whether the argument starting at {@code at} is one string literal that ends the argument list or argument. */
    private static boolean literalFirstArgument(List<Token> tokens, int at) {
        if (at + 1 >= tokens.size() || tokens.get(at).kind() != Token.Kind.STRING) {
            return false;
        }
        Token after = tokens.get(at + 1);
        return after.kind() == Token.Kind.PUNCTUATION && (after.text().equals(")") || after.text().equals(","));
    }

    /** Every identifier the body writes, keywords included, as the server folds them: the names it may use. */
    Set<String> words() {
        return words;
    }

    /** The operator symbols the body uses. */
    Set<String> operators() {
        return operators;
    }
}
