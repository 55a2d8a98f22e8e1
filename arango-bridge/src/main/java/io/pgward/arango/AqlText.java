package io.pgward.arango;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * What pgward needs to know about AQL text a client sends: whether it is empty, and where PostgreSQL parameters
 * ({@code $1}) stand so they can become AQL bind parameters ({@code @p1}). Read with {@link AqlLexer}, so a
 * {@code $1} inside a string, comment or quoted name stays as written.
 */
public final class AqlText {

    /**
     * The statement as ArangoDB receives it.
     *
     * @param aql        {@code $n} replaced by {@code @pn}, trailing semicolons (psql sends them) removed
     * @param parameters the parameter numbers used, ascending
     */
    public record Prepared(String aql, List<Integer> parameters) {
    }

    private AqlText() {
    }

    /** True when the text has nothing but whitespace, comments and semicolons, as PostgreSQL's empty query. */
    public static boolean isEmpty(String text) {
        return AqlLexer.tokenize(text).stream().allMatch(token -> token.isPunctuation(';'));
    }

    public static String bindName(int parameter) {
        return "p" + parameter;
    }

    public static Prepared prepare(String text) {
        StringBuilder out = new StringBuilder(text.length());
        TreeSet<Integer> parameters = new TreeSet<>();
        int copied = 0;
        int codeEnd = -1; // in out: the end of the last token that is not a semicolon
        for (AqlLexer.Located located : AqlLexer.locate(text)) {
            out.append(text, copied, located.start());
            copied = located.end();
            AqlLexer.Token token = located.token();
            if (token.kind() == AqlLexer.Kind.PARAMETER) {
                int number = Integer.parseInt(token.text().substring(1));
                parameters.add(number);
                out.append('@').append(bindName(number));
            } else {
                out.append(text, located.start(), located.end());
            }
            if (!token.isPunctuation(';')) {
                codeEnd = out.length();
            }
        }
        out.append(text, copied, text.length());
        // Only semicolons go after the last code; whitespace and comments there stay harmless.
        String aql = codeEnd < 0 ? "" : out.substring(0, codeEnd) + out.substring(codeEnd).replace(";", "");
        return new Prepared(aql, new ArrayList<>(parameters));
    }
}
