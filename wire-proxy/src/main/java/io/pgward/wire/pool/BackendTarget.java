package io.pgward.wire.pool;

import io.pgward.wire.config.Secret;
import java.util.Map;

/**
 * Which backend session a client session needs: the PostgreSQL role and database, and the startup parameters
 * it must start with. Connections are only reused for an identical target, because PostgreSQL's
 * {@code DISCARD ALL} resets settings to the values of the connection's own startup packet.
 *
 * @param parameters startup parameters other than user and database (application_name, options, ...)
 */
public record BackendTarget(String user, Secret password, String database, Map<String, String> parameters) {

    public BackendTarget {
        parameters = Map.copyOf(parameters);
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
