package io.pgward.arango;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The AQL keywords that start a data modification. Two readings of the same token stream:
 * <ul>
 *   <li>{@link #firstMatch}: the coarse backstop. Any bare word that is a write keyword, including attribute
 *       names such as {@code doc.update}; strings, comments, quoted names and bind parameters never match. A
 *       match is not a refusal: the caller defers to the EXPLAIN plan, which knows what the statement does.</li>
 *   <li>{@link #operation}: the keyword in operation position (not after a {@code .}, not before a {@code :}),
 *       used only to choose the command tag of a write.</li>
 * </ul>
 */
final class WriteKeywords {

    static final Set<String> KEYWORDS = Set.of("INSERT", "UPDATE", "REPLACE", "REMOVE", "UPSERT");

    private WriteKeywords() {
    }

    static Optional<String> firstMatch(String aql) {
        for (AqlLexer.Token token : AqlLexer.tokenize(aql)) {
            if (isKeyword(token)) {
                return Optional.of(token.text().toUpperCase(Locale.ROOT));
            }
        }
        return Optional.empty();
    }

    static Optional<String> operation(String aql) {
        List<AqlLexer.Token> tokens = AqlLexer.tokenize(aql);
        for (int i = 0; i < tokens.size(); i++) {
            if (isKeyword(tokens.get(i)) && !isPunctuation(tokens, i - 1, '.') && !isPunctuation(tokens, i + 1, ':')) {
                return Optional.of(tokens.get(i).text().toUpperCase(Locale.ROOT));
            }
        }
        return Optional.empty();
    }

    private static boolean isKeyword(AqlLexer.Token token) {
        return token.kind() == AqlLexer.Kind.WORD && KEYWORDS.contains(token.text().toUpperCase(Locale.ROOT));
    }

    private static boolean isPunctuation(List<AqlLexer.Token> tokens, int i, char c) {
        return i >= 0 && i < tokens.size() && tokens.get(i).isPunctuation(c);
    }
}
