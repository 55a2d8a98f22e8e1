package io.pgward.wire.cli;

/** pgward cannot start for a reason the message explains to the operator in one line. */
final class StartupException extends RuntimeException {

    StartupException(String message) {
        super(message);
    }
}
