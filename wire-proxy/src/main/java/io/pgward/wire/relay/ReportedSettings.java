package io.pgward.wire.relay;

import io.netty.buffer.ByteBuf;
import io.pgward.wire.audit.ConnectionLog;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.pool.PinnedSettings;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.protocol.Wire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settings the server reports in ParameterStatus ({@code 'S' | int32 len | str name | str value}), noted where
 * the session reads them (the backend's parameters, the {@link SearchPath}) and held to the read-only login's
 * {@link PinnedSettings}. A pinned setting reported at another value means the server would now read statements
 * differently from how pgward judges them: fail closed, the session ends.
 */
final class ReportedSettings {

    /** Lines about a session are logged as the session's. */
    private static final Logger log = LoggerFactory.getLogger(Session.class);

    private final Session.Identity who;
    private final BackendConnection backend;
    private final SearchPath searchPath;

    ReportedSettings(Session.Identity who, BackendConnection backend, SearchPath searchPath) {
        this.who = who;
        this.backend = backend;
        this.searchPath = searchPath;
    }

    /**
     * Takes note of a ParameterStatus (the frame stays the caller's); null, or, when it reports a pinned setting
     * at another value, nothing noted and the FATAL that must end the session.
     */
    PgError note(BackendMessage.Frame frame) {
        ByteBuf body = frame.body();
        String name = Wire.readCString(body);
        String value = Wire.readCString(body);
        PinnedSettings pins = backend.target().pins();
        String violation = pins == null ? null : pins.violation(name, value);
        if (violation != null) {
            ConnectionLog.warn(log, who.connection(), "ending the session of read-only login {}: the database "
                    + "server reports {}", who.login(), violation);
            return PgError.fatal(SqlState.INSUFFICIENT_PRIVILEGE, "pgward ended the session of the read-only "
                    + "login \"" + who.login() + "\": the database server reports " + violation);
        }
        backend.parameters().put(name, value);
        searchPath.reported(name, value);
        return null;
    }
}
