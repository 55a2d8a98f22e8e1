package io.pgward.wire.clients;

import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.protocol.PgError;
import java.net.SocketAddress;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * One client session past its login, as the admin console lists it and as a reload or {@code KILL} ends it.
 *
 * @param id the number of its connection ({@code c12} in log lines is 12), which {@code KILL} takes
 * @param login the login as it was configured when the session started: the policy the session runs with
 * @param startedUnder the configuration the session logged in with, an {@code ActiveConfig}
 * @param backend its connection to PostgreSQL, null for a database pgward answers itself
 */
public record ConnectedClient(long id, String connection, PgwardConfig.Login login, String database,
                              SocketAddress remote, SocketAddress local, Instant connected, boolean tls,
                              String applicationName, Object startedUnder, BackendConnection backend,
                              Control control) {

    /** What the session lets others do to it; every method returns at once and acts on its event loop. */
    public interface Control {

        /**
         * Ends the session with {@code why} once the statements it runs are over (nothing it sends meanwhile is
         * run), as pgward's drain does.
         */
        void endWhenIdle(PgError why);

        /** Ends the session with {@code why} now, cancelling what it runs; whole messages only reach the client. */
        void endNow(PgError why);

        /**
         * {@code active} (a statement runs or is being judged), {@code idle}, {@code idle in transaction},
         * {@code idle in transaction (aborted)}, {@code paused} (held by PAUSE) or {@code closing}.
         */
        CompletionStage<String> state();

        /** Whether nothing runs for it on the server and nothing is being judged (PAUSE waits for this). */
        CompletionStage<Boolean> quiet();
    }

    /** The connection number of {@code c12}. */
    public static long number(String connection) {
        return Long.parseLong(connection.substring(1));
    }
}
