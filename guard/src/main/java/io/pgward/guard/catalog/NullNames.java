package io.pgward.guard.catalog;

import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.Token;
import java.util.List;

/**
 * The serving rewrite of a to_reg* call whose name the login does not see, hidden or absent alike
 * ({@link CatalogRefusals#nullName}): PostgreSQL answers NULL for a name nothing has, so the call's argument becomes
 * {@code NULL::pg_catalog.text} and the call answers NULL without looking anything up. The argument, not the call,
 * is replaced, so the call keeps its output column name and its type. Every call of that function whose argument is
 * exactly a string literal of that name (optionally cast) is replaced: the same name resolves the same way everywhere
 * in one statement.
 *
 * <p>This is not the defence: the rewritten statement is checked again, and a NULL proves nothing where it may stand
 * for a parameter ({@link GatedUses}). A name the call reads from elsewhere (a subquery's column) is not found here,
 * and its call stays refused with the absent object's error.
 */
final class NullNames {

    private static final String NULL_NAME = "NULL::pg_catalog.text";

    private NullNames() {
    }

    /**
     * {@code sql} with the argument of every call of the built-in {@code function} (bare or after
     * {@code pg_catalog.}) that is the string literal {@code name} replaced by a NULL, or null when there is none.
     */
    static String replace(String sql, boolean standardConformingStrings, String function, String name) {
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenize(sql, standardConformingStrings);
        } catch (LexerException e) {
            return null;
        }
        StringBuilder out = new StringBuilder(sql);
        boolean replaced = false;
        // From the end, so that earlier offsets stay valid.
        for (int i = tokens.size() - 1; i >= 0; i--) {
            int close = literalArgumentEnd(tokens, i, function, name);
            if (close > 0) {
                out.replace(tokens.get(i + 2).start(), tokens.get(close - 1).end(), NULL_NAME);
                replaced = true;
            }
        }
        return replaced ? out.toString() : null;
    }

    /**
     * The index of the closing parenthesis of a call of {@code function} named at {@code at} whose one argument is
     * the literal {@code name}, bare or cast to a type ({@code 'x'::text}); -1 for anything else.
     */
    private static int literalArgumentEnd(List<Token> tokens, int at, String function, String name) {
        Token t = tokens.get(at);
        if (!identifier(t) || !t.value().equals(function) || at + 3 >= tokens.size()
                || !punctuation(tokens.get(at + 1), "(")) {
            return -1;
        }
        if (at > 0 && punctuation(tokens.get(at - 1), ".") && (at < 2 || !identifier(tokens.get(at - 2))
                || !tokens.get(at - 2).value().equals("pg_catalog")
                || at > 2 && punctuation(tokens.get(at - 3), "."))) {
            return -1;
        }
        Token literal = tokens.get(at + 2);
        if (literal.kind() != Token.Kind.STRING || !literal.value().equals(name)) {
            return -1;
        }
        int i = at + 3;
        if (i < tokens.size() && tokens.get(i).kind() == Token.Kind.OPERATOR && tokens.get(i).text().equals("::")) {
            i++;
            // A type name: identifiers joined by dots.
            while (i < tokens.size() && (identifier(tokens.get(i)) || punctuation(tokens.get(i), "."))) {
                i++;
            }
        }
        return i < tokens.size() && punctuation(tokens.get(i), ")") ? i : -1;
    }

    private static boolean identifier(Token t) {
        return t.kind() == Token.Kind.WORD || t.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    private static boolean punctuation(Token t, String text) {
        return t.kind() == Token.Kind.PUNCTUATION && t.text().equals(text);
    }
}
