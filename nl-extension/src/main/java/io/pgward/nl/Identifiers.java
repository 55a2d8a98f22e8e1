package io.pgward.nl;

import java.util.regex.Pattern;

/** PostgreSQL identifier quoting, as quote_ident does it for the names pgward writes into prompts and SQL. */
final class Identifiers {

    private static final Pattern PLAIN = Pattern.compile("[a-z_][a-z0-9_$]*");

    private Identifiers() {
    }

    /** An unquoted identifier as PostgreSQL folds it: only A-Z become lower case. */
    static String fold(String unquoted) {
        StringBuilder folded = new StringBuilder(unquoted.length());
        for (int i = 0; i < unquoted.length(); i++) {
            char c = unquoted.charAt(i);
            folded.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
        }
        return folded.toString();
    }

    /**
     * The name as it must be written to mean exactly this identifier. Reserved words are not looked up, so a
     * column named {@code select} comes back unquoted; the model and EXPLAIN still see the catalog's spelling.
     */
    static String quote(String identifier) {
        if (PLAIN.matcher(identifier).matches()) {
            return identifier;
        }
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
