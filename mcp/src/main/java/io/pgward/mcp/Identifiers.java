package io.pgward.mcp;

import java.util.ArrayList;
import java.util.List;

/** Reading the identifiers pgward writes quoted where PostgreSQL needs it ({@code "Order Id"}, {@code total}). */
final class Identifiers {

    private Identifiers() {
    }

    /** The length of the identifier {@code text} starts with: a quoted one to its closing quote, else to a space. */
    static int leadingLength(String text, char stop) {
        if (text.startsWith("\"")) {
            int i = 1;
            while (i < text.length()) {
                if (text.charAt(i) == '"') {
                    if (i + 1 < text.length() && text.charAt(i + 1) == '"') {
                        i += 2;
                        continue;
                    }
                    return i + 1;
                }
                i++;
            }
            return text.length();
        }
        int end = text.indexOf(stop);
        return end < 0 ? text.length() : end;
    }

    /** {@code a, "b, c", d} as its names, quotes kept. */
    static List<String> commaList(String text) {
        List<String> names = new ArrayList<>();
        String rest = text.strip();
        while (!rest.isEmpty()) {
            int length = leadingLength(rest, ',');
            names.add(rest.substring(0, length).strip());
            rest = rest.substring(length).strip();
            if (rest.startsWith(",")) {
                rest = rest.substring(1).strip();
            }
        }
        return names;
    }

    static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
