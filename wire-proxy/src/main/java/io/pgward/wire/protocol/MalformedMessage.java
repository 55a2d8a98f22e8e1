package io.pgward.wire.protocol;

/**
 * A client message whose type and length are valid but whose body does not read as that type's layout. PostgreSQL
 * answers such a message with an ERROR 08P01 (its text is this exception's message) and the session goes on: after an
 * extended-protocol message the server skips to the next Sync, as after any error. pgward never forwards the message:
 * what it cannot read, it cannot judge.
 */
public final class MalformedMessage extends Exception {

    public MalformedMessage(String message) {
        super(message, null, false, false);
    }
}
