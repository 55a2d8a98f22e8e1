package io.pgward.guard.classify;

import io.pgward.guard.lexer.Token;
import io.pgward.guard.lexer.Tokens;
import io.pgward.guard.lexer.Token.Kind;
import java.util.List;
import java.util.Locale;

/**
 * A forward cursor over one statement's tokens, for the small hand-written grammars of the utility commands
 * (SET, BEGIN, EXPLAIN, COPY, ...). Keywords are compared on {@link Token#value()}, which the lexer folds to lower
 * case for unquoted words only, so {@code "read"} (quoted) never matches the keyword READ, as in PostgreSQL.
 */
final class TokenReader {

    private final List<Token> tokens;
    private int index;

    TokenReader(List<Token> tokens) {
        this(tokens, 0);
    }

    TokenReader(List<Token> tokens, int index) {
        this.tokens = tokens;
        this.index = index;
    }

    int index() {
        return index;
    }

    boolean atEnd() {
        return index >= tokens.size();
    }

    /** The next token, or null at the end. */
    Token peek() {
        return peek(0);
    }

    Token peek(int ahead) {
        int i = index + ahead;
        return i < tokens.size() ? tokens.get(i) : null;
    }

    /** The last token consumed, or null before the first. */
    Token previous() {
        return index > 0 ? tokens.get(index - 1) : null;
    }

    Token next() {
        return atEnd() ? null : tokens.get(index++);
    }

    boolean peekWord(String word) {
        Token t = peek();
        return t != null && t.isWord(word);
    }

    /** Consumes the next token if it is the keyword {@code word}. */
    boolean acceptWord(String word) {
        if (peekWord(word)) {
            index++;
            return true;
        }
        return false;
    }

    /** Consumes the keywords {@code words} if they all come next, in order; otherwise consumes nothing. */
    boolean acceptWords(String... words) {
        for (int i = 0; i < words.length; i++) {
            Token t = peek(i);
            if (t == null || !t.isWord(words[i])) {
                return false;
            }
        }
        index += words.length;
        return true;
    }

    /** Consumes the next token if it is the punctuation or operator {@code symbol}. */
    boolean acceptSymbol(String symbol) {
        Token t = peek();
        if (t != null && isSymbol(t, symbol)) {
            index++;
            return true;
        }
        return false;
    }

    static boolean isSymbol(Token t, String symbol) {
        return Tokens.isSymbol(t, symbol);
    }

    /** An identifier as PostgreSQL reads it: an unquoted word folded to lower case, or a quoted name as written. */
    static String identifier(Token t) {
        return t != null && (t.kind() == Kind.WORD || t.kind() == Kind.QUOTED_IDENTIFIER) ? t.value() : null;
    }

    /**
     * A setting (GUC) name: PostgreSQL looks them up case-insensitively, so even a quoted name is lower-cased.
     * A qualified name ({@code myext.flag}) is read whole.
     */
    String settingName() {
        Token first = peek();
        if (identifier(first) == null) {
            return null;
        }
        index++;
        StringBuilder name = new StringBuilder(first.value().toLowerCase(Locale.ROOT));
        while (peek() != null && isSymbol(peek(), ".") && identifier(peek(1)) != null) {
            name.append('.').append(peek(1).value().toLowerCase(Locale.ROOT));
            index += 2;
        }
        return name.toString();
    }

    /** Index of the parenthesis that closes the one at {@code open}, or -1 if it is not closed. */
    static int closingParen(List<Token> tokens, int open) {
        return Tokens.closingParen(tokens, open);
    }
}
