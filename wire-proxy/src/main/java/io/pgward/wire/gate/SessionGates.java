package io.pgward.wire.gate;

import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.metrics.PgwardMetrics;
import java.util.concurrent.Executor;
import java.util.function.Function;

/** Which {@link StatementGate} each session's statements pass; closed with the server that made it. */
public interface SessionGates extends AutoCloseable {

    /** The gate of one session of {@code login}, whose state {@code loop} (the session's event loop) owns. */
    StatementGate forSession(PgwardConfig.Login login, Executor loop);

    /**
     * Refuses a login these gates cannot enforce, before a reload puts it in force.
     *
     * @throws IllegalArgumentException naming the login's key
     */
    default void check(PgwardConfig.Login login) {
    }

    /**
     * A reload put {@code configured} in force: what was made for logins' earlier configurations may be dropped.
     * Sessions that still run with one keep working.
     */
    default void retain(java.util.Collection<PgwardConfig.Login> configured) {
    }

    /** Registers what these gates count (the catalog check's connections, questions) with {@code metrics}. */
    default void countIn(PgwardMetrics metrics) {
    }

    @Override
    default void close() {
    }

    /** The same gate for every session of a login, whatever its event loop: for tests and simple gates. */
    static SessionGates byLogin(Function<PgwardConfig.Login, StatementGate> gates) {
        return (login, loop) -> gates.apply(login);
    }
}
