package io.pgward.wire.relay;

import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.Wire;

/**
 * Whether the server's transaction block has failed, so that it answers every statement with 25P02, as the backend's
 * replies have told it so far. A ReadyForQuery reports the status, but only at the end of a request: extended-protocol
 * messages not yet followed by a Sync may have ended the failed block before a refused Query or FunctionCall, which
 * must then get its refusal, not 25P02. Only a statement that ends a block runs in a failed one (ROLLBACK, COMMIT,
 * PREPARE TRANSACTION, ROLLBACK TO SAVEPOINT), and each reports the tag {@code ROLLBACK} there; anything else fails,
 * and the server then skips the rest of the request. A block fails only with an error, after which the server answers
 * nothing more of the request but its ReadyForQuery, so the status is never stale in that direction.
 */
final class FailedBlock {

    private boolean failed;

    /** A ReadyForQuery reported {@code status}. */
    void ready(char status) {
        failed = status == 'E';
    }

    /** A CommandComplete ({@code 'C' | int32 len | str tag}) arrived. */
    void commandComplete(BackendMessage.Frame frame) {
        if (failed && "ROLLBACK".equals(Wire.readCString(frame.body()))) {
            failed = false;
        }
    }

    /** Whether the server ignores statements with 25P02 until the block ends. */
    boolean failed() {
        return failed;
    }
}
