package io.pgward.guard.catalog;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Catalog rows of the objects initdb created (OIDs below {@link #FIRST_NORMAL_OID}: the built-in functions,
 * operators, types and catalog relations), shared by every check until the next schema change. Nearly every
 * statement uses some of them, and reading them again for each new statement was most of a check's round trips.
 *
 * <p>These rows change only when a superuser alters a built-in object, which also changes the
 * {@link SchemaFingerprint}; the cache is dropped together with the verdicts ({@link CatalogCheck#invalidate()}
 * and the poll), so a check relies on a row no longer than a cached verdict relies on the same row. Objects
 * created later, including everything of a check's own transaction, are always read from the catalog.
 *
 * <p>A check takes one {@link Generation} when it starts and reads and fills only that one; a schema change
 * starts a new generation, so a row read before the change never reaches a check that starts after it.
 */
final class BuiltInRows {

    /** PostgreSQL's FirstNormalObjectId: OIDs below it were assigned by initdb. */
    static final long FIRST_NORMAL_OID = 16384;

    static boolean builtIn(long oid) {
        return oid > 0 && oid < FIRST_NORMAL_OID;
    }

    /** The rows cached between two schema changes. Thread-safe. */
    static final class Generation {
        final Map<Long, CatalogReader.Relation> relations = new ConcurrentHashMap<>();
        final Map<Long, CatalogReader.Function> functions = new ConcurrentHashMap<>();
        final Map<Long, CatalogReader.Operator> operators = new ConcurrentHashMap<>();
        final Map<Long, CatalogReader.Type> types = new ConcurrentHashMap<>();
        /**
         * The digest of the domain CHECK expressions last read, when every one was judged harmless from built-in
         * rows alone (so that judging them again would read only rows of this generation); null otherwise.
         */
        volatile String harmlessDomainChecks;

        int size() {
            return relations.size() + functions.size() + operators.size() + types.size();
        }
    }

    private volatile Generation current = new Generation();

    Generation current() {
        return current;
    }

    void clear() {
        current = new Generation();
    }
}
