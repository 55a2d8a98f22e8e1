package io.pgward.wire.protocol;

/**
 * A peer broke the wire protocol before it said which protocol it speaks. PostgreSQL reports such faults with
 * {@code COMMERROR}: to the server log only, then it closes the connection, because a peer that never sent a
 * valid startup packet may not understand an ErrorResponse (node-postgres, for one, has no listener for an error
 * on a connection it is already ending). pgward logs the message and closes the connection without an answer.
 */
public final class UnansweredProtocolError extends RuntimeException {

    public UnansweredProtocolError(String message) {
        super(message, null, false, false);
    }
}
