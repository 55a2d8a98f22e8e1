package io.pgward.guard.lexer;

import java.util.List;

/** Small questions about lexed tokens that several readers of statements ask. */
public final class Tokens {

    private Tokens() {
    }

    /** A punctuation or operator token spelled {@code symbol}. */
    public static boolean isSymbol(Token t, String symbol) {
        return (t.kind() == Token.Kind.PUNCTUATION || t.kind() == Token.Kind.OPERATOR) && t.text().equals(symbol);
    }

    /**
     * Index of the parenthesis that closes the one at {@code open}, counting brackets too, or -1 if it is not
     * closed (or a bracket closes it).
     */
    public static int closingParen(List<Token> tokens, int open) {
        int depth = 0;
        for (int i = open; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.kind() != Token.Kind.PUNCTUATION) {
                continue;
            }
            if (t.text().equals("(") || t.text().equals("[")) {
                depth++;
            } else if (t.text().equals(")") || t.text().equals("]")) {
                depth--;
                if (depth == 0) {
                    return t.text().equals(")") ? i : -1;
                }
            }
        }
        return -1;
    }
}
