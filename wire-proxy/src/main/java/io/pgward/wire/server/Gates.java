package io.pgward.wire.server;

import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.classify.ReadOnlyPolicy;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.session.StatementGate;

/**
 * Which gate a login's statements pass. Read-write logins (trusted applications) are not checked. Each session
 * of a read-only login gets its own {@link GuardGate} over the one shared {@link ReadOnlyGuard}; its backend
 * session also runs with {@code default_transaction_read_only=on} and the login's statement timeout, so that
 * even a guard bug cannot write.
 */
public final class Gates {

    private static final ReadOnlyGuard GUARD = new ReadOnlyGuard();

    private Gates() {
    }

    public static StatementGate forLogin(PgwardConfig.Login login) {
        return switch (login.mode()) {
            case READ_WRITE -> StatementGate.ALLOW_ALL;
            case READ_ONLY -> new GuardGate(GUARD, new ReadOnlyPolicy(login.name(), login.policy().statementTimeout()));
        };
    }
}
