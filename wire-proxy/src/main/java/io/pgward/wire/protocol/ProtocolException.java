package io.pgward.wire.protocol;

/**
 * A peer broke the wire protocol. The connection gets a FATAL ErrorResponse with this SQLSTATE and message
 * and is closed; other sessions are unaffected.
 */
public final class ProtocolException extends RuntimeException {

    private final String sqlState;

    public ProtocolException(String message) {
        this(SqlState.PROTOCOL_VIOLATION, message);
    }

    public ProtocolException(String sqlState, String message) {
        super(message, null, false, false);
        this.sqlState = sqlState;
    }

    public String sqlState() {
        return sqlState;
    }
}
