package io.pgward.guard.catalog;

import java.util.ArrayList;
import java.util.List;

/**
 * The schema a name written in a string is qualified with, as PostgreSQL's lookups read it
 * (stringToQualifiedNameList, parseTypeString, parseNameAndArgTypes): {@code schema.name}, each part bare or in
 * double quotes, with a function's or operator's argument list or a type's array brackets after it. The schema part
 * is returned as written, quotes included, so that {@code to_regnamespace} reads it as the lookup does.
 */
final class QualifiedName {

    private QualifiedName() {
    }

    /**
     * The schema part of {@code name}, a name of {@code kind}, as written; null when the name is not qualified, has
     * more than two parts, or is not read here (an operator's name, a type with a modifier, anything unusual).
     */
    static String schema(ObjectKind kind, String name) {
        String body = name.strip();
        if (kind == ObjectKind.OPERATOR_NAME || kind == ObjectKind.OPERATOR || kind == ObjectKind.ROLE
                || kind == ObjectKind.NAMESPACE) {
            return null;
        }
        if (kind == ObjectKind.FUNCTION) {
            int open = outsideQuotes(body, '(');
            if (open < 0) {
                return null;
            }
            body = body.substring(0, open).strip();
        } else if (kind == ObjectKind.TYPE) {
            while (body.endsWith("[]")) {
                body = body.substring(0, body.length() - 2).strip();
            }
        }
        List<String> parts = parts(body);
        return parts != null && parts.size() == 2 ? parts.get(0) : null;
    }

    /** The index of {@code c} in {@code s} outside double quotes, or -1. */
    private static int outsideQuotes(String s, char c) {
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char at = s.charAt(i);
            if (at == '"') {
                quoted = !quoted;
            } else if (at == c && !quoted) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The dot-separated parts of an identifier chain, each as written; null when {@code s} is not one (an empty
     * part, an unterminated quote, a character an unquoted identifier cannot hold).
     */
    private static List<String> parts(String s) {
        List<String> parts = new ArrayList<>();
        int i = 0;
        while (true) {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            int start = i;
            if (i < s.length() && s.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= s.length()) {
                        return null;
                    }
                    if (s.charAt(i) == '"') {
                        if (i + 1 < s.length() && s.charAt(i + 1) == '"') {
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    i++;
                }
                if (i - start <= 2) {
                    return null;
                }
            } else {
                while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_'
                        || s.charAt(i) == '$')) {
                    i++;
                }
                if (i == start) {
                    return null;
                }
            }
            parts.add(s.substring(start, i));
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i == s.length()) {
                return parts;
            }
            if (s.charAt(i) != '.') {
                return null;
            }
            i++;
        }
    }
}
