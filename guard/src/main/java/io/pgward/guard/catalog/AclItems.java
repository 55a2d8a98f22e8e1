package io.pgward.guard.catalog;

import java.util.ArrayList;
import java.util.List;

/**
 * The role names an aclitem's text holds ({@code grantee=privileges/grantor}, acl.c's aclparse: an empty grantee is
 * PUBLIC, a name may be double-quoted with {@code ""} for a quote), in the order PostgreSQL looks them up: the
 * grantee, then the grantor.
 */
final class AclItems {

    /** PostgreSQL's aclitem and aclitem[] type OIDs (pg_type.dat). */
    private static final long ACLITEM = 1033;
    private static final long ACLITEM_ARRAY = 1034;

    private AclItems() {
    }

    static boolean isAclitem(long type) {
        return type == ACLITEM || type == ACLITEM_ARRAY;
    }

    /** The names in one aclitem's text, grantee first; empty when it names none or does not read as one. */
    static List<String> roleNames(String item) {
        List<String> names = new ArrayList<>();
        StringBuilder name = new StringBuilder();
        int at = name(item, 0, name);
        if (at < 0 || at >= item.length() || item.charAt(at) != '=') {
            return List.of();
        }
        if (!name.isEmpty()) {
            names.add(name.toString());
        }
        int slash = item.indexOf('/', at);
        if (slash >= 0) {
            name.setLength(0);
            if (name(item, slash + 1, name) >= 0 && !name.isEmpty()) {
                names.add(name.toString());
            }
        }
        return names;
    }

    /** Reads a name from {@code at} (after blanks) into {@code out}: the index after it, or -1 for an open quote. */
    private static int name(String text, int at, StringBuilder out) {
        int i = at;
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        boolean quoted = false;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '"') {
                if (quoted && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    out.append('"');
                    i += 2;
                    continue;
                }
                quoted = !quoted;
                i++;
                continue;
            }
            if (!quoted && (c == '=' || c == '/' || Character.isWhitespace(c))) {
                break;
            }
            out.append(c);
            i++;
        }
        if (quoted) {
            return -1;
        }
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }
}
