package io.pgward.guard.lexer;

/**
 * One lexical token of PostgreSQL SQL, as PostgreSQL's scanner (scan.l) would produce it.
 *
 * @param kind what the token is
 * @param text the exact source text of the token
 * @param value the token's meaning: an unquoted identifier or keyword folded to lower case, a quoted or U&amp;
 *              identifier with its quotes and escapes resolved, a string literal's decoded content (E'', U&amp;'',
 *              dollar quotes, standard_conforming_strings applied), a parameter's number ({@code $1} → "1"),
 *              otherwise the text itself
 * @param start offset of the first character in the whole input
 * @param end offset just past the last character
 */
public record Token(Kind kind, String text, String value, int start, int end) {

    public enum Kind {
        /** Unquoted identifier or keyword; {@code value} is lower-cased as PostgreSQL folds it. */
        WORD,
        /** "quoted" or U&amp;"quoted" identifier. */
        QUOTED_IDENTIFIER,
        /** '...', E'...', U&amp;'...', B'...', X'...', N'...', $tag$...$tag$. */
        STRING,
        NUMBER,
        /** $1, $2, ... */
        PARAMETER,
        /** Operators, including multi-character ones ({@code ::}, {@code <=}, {@code ->>}, ...). */
        OPERATOR,
        /**
         * ( ) [ ] , ; . : and any other single character PostgreSQL's scanner hands to the grammar as itself
         * ($ not starting a parameter or dollar quote, \, {, }, control characters).
         */
        PUNCTUATION
    }

    public boolean isWord(String lowerCase) {
        return kind == Kind.WORD && value.equals(lowerCase);
    }
}
