package io.pgward.wire.pool;

import io.pgward.wire.protocol.PgError;

/**
 * A backend connection could not be made or authenticated. {@link #error()} is what the client is told:
 * the server's own ErrorResponse when it sent one, otherwise pgward's description.
 */
public final class BackendException extends RuntimeException {

    private final PgError error;

    public BackendException(PgError error) {
        super(error.message(), null, false, false);
        this.error = error;
    }

    public PgError error() {
        return error;
    }
}
