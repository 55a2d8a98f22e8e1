package io.pgward.guard.catalog;

import java.util.Set;

/**
 * What each domain CHECK expression uses, by its stored text. Every catalog check judges every domain's CHECK
 * (information_schema alone has some) before PostgreSQL sees the statement, and parsing and walking the same texts
 * again for each check took a tenth of its time in Java. The walk depends on the text alone: the text names objects
 * by OID, and what those objects are now is judged again on every check ({@link CodeRules#riskInDomainCheck}).
 * Shared by all checks of the process; the References it returns must not be changed.
 */
final class DomainCheckUses {

    static final DomainCheckUses SHARED = new DomainCheckUses();

    private static final int CAPACITY = 4096;
    /** Characters of the texts kept: a domain's CHECK is an expression, rarely more than a few hundred. */
    private static final long BUDGET = 4L << 20;

    private final BoundedLru<String, References> walked = new BoundedLru<>(CAPACITY, BUDGET,
            (text, uses) -> text.length());

    References of(String check) {
        synchronized (walked) {
            References known = walked.get(check);
            if (known != null) {
                return known;
            }
        }
        References uses = QueryTreeWalker.walk(NodeTreeParser.parse(check), Set.of());
        synchronized (walked) {
            walked.put(check, uses);
        }
        return uses;
    }
}
