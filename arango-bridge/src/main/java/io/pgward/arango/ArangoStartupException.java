package io.pgward.arango;

/**
 * The connectivity probe failed; pgward must not start. The message names the database entry and which part
 * of its configuration is wrong, and never contains a password or token.
 */
public final class ArangoStartupException extends RuntimeException {

    /** The part of the configuration the failure points at. */
    public enum Part {
        /** Nothing answers at the endpoint, TLS failed, or what answers is not ArangoDB. */
        ENDPOINT,
        /** ArangoDB refused the user and password, or the token. */
        CREDENTIALS,
        /** The configured database does not exist. */
        DATABASE,
        /** The credentials are valid but may not use the configured database. */
        PERMISSION
    }

    private final Part part;

    ArangoStartupException(Part part, String message, Throwable cause) {
        super(message, cause);
        this.part = part;
    }

    public Part part() {
        return part;
    }
}
