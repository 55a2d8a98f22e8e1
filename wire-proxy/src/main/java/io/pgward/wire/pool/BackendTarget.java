package io.pgward.wire.pool;

import io.pgward.wire.config.Secret;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which backend session a client session needs: the PostgreSQL role and database, and the startup parameters
 * it must start with. Connections are only reused for an identical target, because PostgreSQL's
 * {@code DISCARD ALL} resets settings to the values of the connection's own startup packet.
 *
 * @param parameters startup parameters other than user and database (application_name, options, ...), sent in
 *                   this order: PostgreSQL applies them in packet order, so the order decides between two
 *                   spellings of one setting
 * @param pins for a read-only login, the settings its policy owns, checked when a connection opens and watched
 *             while it is used; null when nothing is pinned
 */
public record BackendTarget(String user, Secret password, String database, Map<String, String> parameters,
                            PinnedSettings pins) {

    public BackendTarget {
        parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    }

    /** A target with nothing pinned (read-write logins). */
    public BackendTarget(String user, Secret password, String database, Map<String, String> parameters) {
        this(user, password, database, parameters, null);
    }

    PoolKey key() {
        return new PoolKey(user, database);
    }

    /** Pool limits apply per PostgreSQL role and database. */
    record PoolKey(String user, String database) {
        @Override
        public String toString() {
            return user + "@" + database;
        }
    }
}
