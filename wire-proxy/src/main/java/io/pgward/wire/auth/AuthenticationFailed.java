package io.pgward.wire.auth;

import io.pgward.wire.protocol.SqlState;

/**
 * A client did not prove that it knows the password. An expected outcome, so a checked exception without a
 * stack trace.
 *
 * <p>{@link #getMessage()} is the reason, for pgward's log only. The client is told {@link #clientMessage()},
 * which is the same for a wrong password, an unknown user and a malformed exchange, as PostgreSQL's
 * {@code 28P01} is, so the answer does not reveal which roles exist.
 */
public final class AuthenticationFailed extends Exception {

    /** invalid_password, what PostgreSQL reports for any failed password or SCRAM authentication. */
    public static final String SQLSTATE = SqlState.INVALID_PASSWORD;

    private static final long serialVersionUID = 1L;

    private final String user;

    /**
     * @param user the user of the startup packet
     * @param reason why, for the log; it must not contain a password, a proof or a key
     */
    public AuthenticationFailed(String user, String reason) {
        super(reason, null, false, false);
        this.user = user;
    }

    public String user() {
        return user;
    }

    public String sqlState() {
        return SQLSTATE;
    }

    /** PostgreSQL's words, the only text the client sees. */
    public String clientMessage() {
        return "password authentication failed for user \"" + user + "\"";
    }
}
