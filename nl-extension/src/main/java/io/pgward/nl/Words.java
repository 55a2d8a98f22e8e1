package io.pgward.nl;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Words of a question or of a schema name for lexical matching: identifiers are split where a name changes case
 * or has a separator ({@code AvgScrRead}, {@code CDSCode}, {@code order_items}), everything is lower-cased, common
 * English function words are dropped and plural endings are folded, so "orders" in a question meets
 * {@code order_id} and "schools" meets {@code school}.
 */
final class Words {

    private static final Set<String> STOP = Set.of("a", "an", "the", "of", "in", "on", "at", "to", "for", "from",
            "by", "with", "and", "or", "is", "are", "was", "were", "be", "been", "do", "does", "did", "what", "which",
            "who", "whom", "whose", "how", "many", "much", "list", "give", "show", "find", "name", "names", "all",
            "each", "per", "that", "this", "these", "those", "their", "its", "it", "as", "than", "there", "has", "have",
            "had", "not", "no", "please", "among", "between", "into", "his", "her", "they", "them", "any", "most",
            "more", "less", "least", "top", "number", "total", "average", "count", "value", "values", "where", "when",
            "if", "s", "i", "me", "we", "our", "you", "your", "one");

    private Words() {
    }

    /** The words of {@code text}, in order, with repeats. */
    static List<String> of(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!Character.isLetterOrDigit(c)) {
                flush(word, words);
                continue;
            }
            if (!word.isEmpty() && startsNewWord(text, i)) {
                flush(word, words);
            }
            word.append(c);
        }
        flush(word, words);
        return words;
    }

    /** camelCase, an acronym before a capitalised word (CDSCode), letters after digits and digits after letters. */
    private static boolean startsNewWord(String text, int i) {
        char previous = text.charAt(i - 1);
        char c = text.charAt(i);
        if (Character.isDigit(c) != Character.isDigit(previous)) {
            return true;
        }
        if (Character.isUpperCase(c) && Character.isLowerCase(previous)) {
            return true;
        }
        return Character.isUpperCase(c) && Character.isUpperCase(previous) && i + 1 < text.length()
                && Character.isLowerCase(text.charAt(i + 1));
    }

    private static void flush(StringBuilder word, List<String> words) {
        if (word.isEmpty()) {
            return;
        }
        String w = stem(word.toString().toLowerCase(Locale.ROOT));
        word.setLength(0);
        if (!STOP.contains(w)) {
            words.add(w);
        }
    }

    /** Folds the plural endings only: stronger stemming merges unrelated column names. */
    static String stem(String word) {
        if (word.length() > 4 && word.endsWith("ies")) {
            return word.substring(0, word.length() - 3) + "y";
        }
        if (word.length() > 4 && (word.endsWith("ches") || word.endsWith("shes") || word.endsWith("sses")
                || word.endsWith("xes"))) {
            return word.substring(0, word.length() - 2);
        }
        if (word.length() > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")
                && !word.endsWith("is")) {
            return word.substring(0, word.length() - 1);
        }
        return word;
    }
}
