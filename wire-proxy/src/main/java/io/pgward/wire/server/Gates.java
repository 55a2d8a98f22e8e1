package io.pgward.wire.server;

import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.session.StatementGate;

/**
 * Which gate a login's statements pass. Read-write logins (trusted applications) are not checked. Read-only
 * logins run on backend sessions with {@code default_transaction_read_only=on}; the statement guard that
 * checks each of their statements plugs in here.
 */
public final class Gates {

    private Gates() {
    }

    public static StatementGate forLogin(PgwardConfig.Login login) {
        return switch (login.mode()) {
            case READ_WRITE -> StatementGate.ALLOW_ALL;
            case READ_ONLY -> StatementGate.ALLOW_ALL;
        };
    }
}
