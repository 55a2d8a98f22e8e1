package io.pgward.wire.server;

import io.netty.handler.ssl.SslContext;
import io.pgward.wire.audit.AuditLog;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.pool.BackendPool;
import io.pgward.wire.session.Session;
import io.pgward.wire.session.StatementGate;
import java.util.function.Function;

/** What every connection of one running pgward shares. */
record ServerContext(PgwardConfig config, SslContext sslContext, LoginDirectory logins, BackendPool pool,
                     CancelRegistry cancelKeys, Function<PgwardConfig.Login, StatementGate> gates,
                     byte[] mockSecret, AuditLog audit) {

    StatementGate gateFor(PgwardConfig.Login login) {
        return gates.apply(login);
    }

    /** Relays a CancelRequest to the backend of the session holding these (pgward-made) keys. */
    void cancel(int processId, int secretKey) {
        Session session = cancelKeys.find(processId, secretKey);
        if (session != null) {
            pool.connector().cancel(session.backend().channel().eventLoop(), session.backend());
        }
    }
}
