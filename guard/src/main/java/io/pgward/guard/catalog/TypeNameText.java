package io.pgward.guard.catalog;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A value bound to a regtype parameter, read as PostgreSQL's regtypein reads it: {@code -} or an OID in digits (no
 * lookup at all), or a type name ({@code parseTypeString}), of which pgward reads only the plain forms: one or two
 * identifiers, quoted or not, joined by a dot, then optional integer type modifiers and {@code []} or {@code [n]}
 * bounds. Everything else (comments, three-part names, keywords' own productions such as {@code double precision},
 * {@code ARRAY}, expressions in the modifiers, names PostgreSQL would truncate with a NOTICE) is {@link Unreadable}:
 * pgward decides such a value without looking anything up, so whether a hidden type has that name cannot matter.
 */
sealed interface TypeNameText {

    /** NAMEDATALEN - 1: a longer identifier is truncated by PostgreSQL's scanner, with a NOTICE. */
    int MAX_IDENTIFIER_BYTES = 63;

    /** {@code -} or an OID: regtypein returns it as it is, looking nothing up. */
    record NoLookup() implements TypeNameText {
    }

    /** A form pgward does not read. */
    record Unreadable() implements TypeNameText {
    }

    /**
     * A name PostgreSQL looks up.
     *
     * @param parts the identifiers as the scanner makes them (unquoted ones folded to lower case)
     * @param firstQuoted the first identifier was written in double quotes (it can then not be a keyword)
     * @param array the name has array bounds: the array type of the named type is meant
     */
    record Name(List<String> parts, boolean firstQuoted, boolean array) implements TypeNameText {

        /** PostgreSQL's TypeNameToString: the parts joined with dots, and {@code []} for any array bounds. */
        String display() {
            return String.join(".", parts) + (array ? "[]" : "");
        }

        String schema() {
            return parts.size() == 2 ? parts.get(0) : null;
        }

        String type() {
            return parts.get(parts.size() - 1);
        }
    }

    static TypeNameText read(String value) {
        if (value.equals("-") || !value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return new NoLookup();
        }
        return new Reader(value).name();
    }

    /** A small scanner over one value; any surprise makes the value unreadable. */
    final class Reader {
        private final String text;
        private int at;

        private Reader(String text) {
            this.text = text;
        }

        private TypeNameText name() {
            List<String> parts = new ArrayList<>();
            space();
            boolean firstQuoted = at < text.length() && text.charAt(at) == '"';
            while (true) {
                String part = identifier();
                if (part == null || part.getBytes(StandardCharsets.UTF_8).length > MAX_IDENTIFIER_BYTES) {
                    return new Unreadable();
                }
                parts.add(part);
                space();
                if (at < text.length() && text.charAt(at) == '.') {
                    at++;
                    space();
                    continue;
                }
                break;
            }
            if (parts.size() > 2 || !modifiers()) {
                return new Unreadable();
            }
            boolean array = false;
            while (at < text.length() && text.charAt(at) == '[') {
                at++;
                space();
                if (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9' && !digits()) {
                    return new Unreadable();
                }
                space();
                if (!take(']')) {
                    return new Unreadable();
                }
                space();
                array = true;
            }
            return at == text.length() ? new Name(List.copyOf(parts), firstQuoted, array) : new Unreadable();
        }

        /** Optional {@code (n[, n]...)}: integer constants only, which the grammar always accepts. */
        private boolean modifiers() {
            if (!take('(')) {
                return true;
            }
            do {
                space();
                if (!digits()) {
                    return false;
                }
                space();
            } while (take(','));
            if (!take(')')) {
                return false;
            }
            space();
            return true;
        }

        private String identifier() {
            if (at >= text.length()) {
                return null;
            }
            char c = text.charAt(at);
            if (c == '"') {
                StringBuilder part = new StringBuilder();
                at++;
                while (at < text.length()) {
                    char q = text.charAt(at++);
                    if (q == '"') {
                        if (at < text.length() && text.charAt(at) == '"') {
                            part.append('"');
                            at++;
                            continue;
                        }
                        return part.isEmpty() ? null : part.toString();
                    }
                    part.append(q);
                }
                return null;
            }
            if (!identifierStart(c)) {
                return null;
            }
            int start = at;
            while (at < text.length() && (identifierStart(text.charAt(at)) || text.charAt(at) == '$'
                    || text.charAt(at) >= '0' && text.charAt(at) <= '9')) {
                at++;
            }
            // downcase_identifier folds ASCII letters only in a multibyte server encoding.
            return asciiLower(text.substring(start, at));
        }

        private static String asciiLower(String s) {
            StringBuilder out = new StringBuilder(s.length());
            for (char ch : s.toCharArray()) {
                out.append(ch >= 'A' && ch <= 'Z' ? (char) (ch + 32) : ch);
            }
            return out.toString();
        }

        private static boolean identifierStart(char c) {
            return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80;
        }

        private boolean digits() {
            int start = at;
            while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
                at++;
            }
            return at > start && at - start <= 9;
        }

        private boolean take(char c) {
            if (at < text.length() && text.charAt(at) == c) {
                at++;
                return true;
            }
            return false;
        }

        /** The scanner's whitespace, except vertical tab (whitespace only since PostgreSQL 16). */
        private void space() {
            while (at < text.length() && " \t\n\r\f".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
        }
    }
}
