package io.pgward.nl;

import io.pgward.guard.lexer.Token;

/** How the readers of {@code pgward.*} calls ({@link PgwardCallParser}, {@link PgwardCallSites}) see a token. */
final class CallTokens {

    private CallTokens() {
    }

    /** {@code B'...'} or {@code X'...'}: a bit string, never a text argument. */
    static boolean isBitOrHexString(Token token) {
        char first = Character.toLowerCase(token.text().charAt(0));
        return (first == 'b' || first == 'x') && token.text().length() > 1 && token.text().charAt(1) == '\'';
    }

    /** A word or quoted identifier whose value, as PostgreSQL folds it, is {@code name}. */
    static boolean isName(Token token, String name) {
        return isIdentifier(token) && token.value().equals(name);
    }

    static boolean isIdentifier(Token token) {
        return token.kind() == Token.Kind.WORD || token.kind() == Token.Kind.QUOTED_IDENTIFIER;
    }

    static boolean isPunctuation(Token token, String text) {
        return token.kind() == Token.Kind.PUNCTUATION && token.text().equals(text);
    }
}
