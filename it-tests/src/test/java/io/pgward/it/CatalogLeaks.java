package io.pgward.it;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The words of the demo's hidden objects that an analyst must never see, and the check that finds them in what
 * a client printed through pgward: rows, listings and error texts alike.
 *
 * <p>A hidden relation's word is a leak when pgward's output shows it more often than both the oracle's output
 * of the same item and, when pgward's output is only an error, the item's own input (the command or
 * statement the client sent, where the test knows it): the oracle database holds no hidden object, so whatever it prints with such a word can only be the
 * client's own text echoed back ({@code \d hr.salaries} answers "Did not find any relation named
 * "hr.salaries""), and an error may repeat what the client wrote where PostgreSQL's own error does not.
 * Hidden roles are cluster-wide, so the oracle sees them too; their names are leaks wherever they appear.
 */
final class CatalogLeaks {

    /** Hidden relations, their distinctive columns, the token values' prefix and the hidden comments' marker. */
    private static final List<String> SUBSTRINGS = List.of("salaries", "payment_tokens", "employee_id", "full_name",
            "hired_on", "card_brand", "last4", "expires_on", "tok_", "SENSITIVE");

    /** Short or common words: only as a whole identifier, so that "three" is not "hr" and "tokenize" not "token". */
    private static final List<String> IDENTIFIERS = List.of("hr", "salary", "bonus", "department", "token");

    /** hr.salaries's departments that no visible relation holds, as whole words in their own case. */
    private static final List<String> VALUES = List.of("Engineering", "Marketing", "Finance", "Operations",
            "Support", "Sales");

    /** The demo's roles that own nothing visible and are not the analyst's. */
    private static final List<String> ROLES = List.of(OracleDatabase.APP_ROLE);

    private static final List<Pattern> EXCUSABLE = new ArrayList<>();
    private static final List<Pattern> STRICT = new ArrayList<>();

    static {
        SUBSTRINGS.forEach(w -> EXCUSABLE.add(Pattern.compile(Pattern.quote(w), Pattern.CASE_INSENSITIVE)));
        IDENTIFIERS.forEach(w -> EXCUSABLE.add(Pattern.compile("(?<![A-Za-z0-9_])" + Pattern.quote(w)
                + "(?![A-Za-z0-9_])", Pattern.CASE_INSENSITIVE)));
        VALUES.forEach(w -> EXCUSABLE.add(Pattern.compile("(?<![A-Za-z0-9_])" + Pattern.quote(w)
                + "(?![A-Za-z0-9_])")));
        ROLES.forEach(w -> STRICT.add(Pattern.compile(Pattern.quote(w), Pattern.CASE_INSENSITIVE)));
    }

    private CatalogLeaks() {
    }

    /** As below, for an item whose input the test does not know. */
    static List<String> leaks(String throughPgward, String onOracle) {
        return leaks(throughPgward, onOracle, "");
    }

    /** The forbidden words pgward's output shows beyond the oracle's and the input's, e.g. {@code salaries ×2}. */
    static List<String> leaks(String throughPgward, String onOracle, String input) {
        List<String> found = new ArrayList<>();
        for (Pattern word : EXCUSABLE) {
            int extra = count(word, throughPgward) - Math.max(count(word, onOracle), count(word, input));
            if (extra > 0) {
                found.add(name(word) + " ×" + extra);
            }
        }
        for (Pattern word : STRICT) {
            int shown = count(word, throughPgward);
            if (shown > 0) {
                found.add(name(word) + " ×" + shown);
            }
        }
        return found;
    }

    private static String name(Pattern word) {
        return word.pattern().replaceAll("\\(\\?<?!\\[A-Za-z0-9_]\\)", "").replace("\\Q", "").replace("\\E", "");
    }

    private static int count(Pattern word, String text) {
        if (text == null) {
            return 0;
        }
        Matcher m = word.matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
