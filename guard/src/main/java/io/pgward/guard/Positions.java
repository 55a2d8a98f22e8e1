package io.pgward.guard;

/**
 * Positions in a statement's text. PostgreSQL counts an error's position in characters (pg_mbstrlen_with_len, code
 * points in UTF-8); Java counts UTF-16 units, one more for each character outside the Basic Multilingual Plane. A
 * {@link Verdict.Refuse}'s position counts UTF-16 units of the text it judged, as pgward's lexer and every piece that
 * reads its tokens do: a position PostgreSQL reports becomes one with {@link #inUtf16} where pgward reads it, and
 * goes back to characters with {@link #inCharacters} where a refusal goes to the client.
 */
public final class Positions {

    private Positions() {
    }

    /**
     * The 1-based UTF-16 position in {@code text} of the 1-based character position {@code characters}; 0 (none)
     * stays 0, and a position past the end is the one just after it.
     */
    public static int inUtf16(String text, int characters) {
        if (characters <= 0) {
            return characters;
        }
        int index = 0;
        for (int n = 1; n < characters && index < text.length(); n++) {
            index += Character.charCount(text.codePointAt(index));
        }
        return Math.min(index, text.length()) + 1;
    }

    /** The 1-based character position in {@code text} of the 1-based UTF-16 position {@code utf16}; 0 stays 0. */
    public static int inCharacters(String text, int utf16) {
        if (utf16 <= 0) {
            return utf16;
        }
        return text.codePointCount(0, Math.min(utf16 - 1, text.length())) + 1;
    }
}
