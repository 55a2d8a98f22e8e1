package io.pgward.wire.relay;

import java.util.Set;

/**
 * Which CommandComplete tags mean the schema changed: what a cached catalog verdict may depend on (relations,
 * functions, types, domains, operators, policies, privileges, comments). {@code CREATE TABLE AS} and
 * {@code SELECT INTO} report {@code SELECT n} and are not seen here; the catalog check's own schema poll covers
 * them within its interval.
 */
final class SchemaTags {

    private static final Set<String> FIRST_WORDS = Set.of("CREATE", "ALTER", "DROP", "COMMENT", "GRANT", "REVOKE",
            "SECURITY", "IMPORT");

    private SchemaTags() {
    }

    static boolean changesSchema(String tag) {
        int space = tag.indexOf(' ');
        return FIRST_WORDS.contains(space < 0 ? tag : tag.substring(0, space));
    }
}
