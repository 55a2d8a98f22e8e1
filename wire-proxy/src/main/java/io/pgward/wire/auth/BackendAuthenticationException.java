package io.pgward.wire.auth;

import io.pgward.wire.protocol.SqlState;

/**
 * pgward could not log in to its backend PostgreSQL: the backend wants a method pgward does not speak, no
 * password is configured, or the backend failed to prove that it knows the password. The message says which,
 * for the operator; it never contains a password.
 */
public final class BackendAuthenticationException extends RuntimeException {

    /** sqlclient_unable_to_establish_sqlconnection: pgward is the client that could not connect. */
    public static final String SQLSTATE = SqlState.SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION;

    private static final long serialVersionUID = 1L;

    public BackendAuthenticationException(String message) {
        super(message);
    }

    public BackendAuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }

    public String sqlState() {
        return SQLSTATE;
    }
}
