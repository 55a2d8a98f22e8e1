package io.pgward.wire.server;

import io.netty.handler.ssl.SslContext;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.pool.BackendPool;
import io.pgward.wire.session.LocalDatabase;
import io.pgward.wire.session.StatementGate;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Function;

/** What every connection of one running pgward shares. */
record ServerContext(PgwardConfig config, SslContext sslContext, LoginDirectory logins, BackendPool pool,
                     CancelRegistry cancelKeys, Function<PgwardConfig.Login, StatementGate> gates,
                     byte[] mockSecret, AuditLog audit, Map<String, LocalDatabase> localDatabases) {

    /** The gate of a session run by {@code loop}, its event loop. */
    StatementGate gateFor(PgwardConfig.Login login, Executor loop) {
        return gates instanceof Gates standard ? standard.forSession(login, loop) : gates.apply(login);
    }

    /** Cancels the running statement of the session holding these (pgward-made) keys. */
    void cancel(int processId, int secretKey) {
        Runnable cancel = cancelKeys.find(processId, secretKey);
        if (cancel != null) {
            cancel.run();
        }
    }
}
