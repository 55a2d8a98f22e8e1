package io.pgward.wire.cli;

/** pgward cannot start for a reason the message explains to the operator in one line. */
public final class StartupException extends RuntimeException {

    public StartupException(String message) {
        super(message);
    }
}
