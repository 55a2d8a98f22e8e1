package io.pgward.wire.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;

/**
 * The login's row cap: counts the rows of the result being relayed, keeps every row past the cap from the client,
 * and follows a capped result until its consequences are settled.
 *
 * <p>A result is what one request returns: one statement of a Query, one Execute, one FETCH. It ends with
 * CommandComplete, ErrorResponse or PortalSuspended. A client that pages (an Execute row limit, FETCH from a
 * cursor) therefore gets every page that fits the cap: the cap bounds what one request hands over, like a
 * LIMIT pgward adds, not the total a session may read. Rows are DataRow messages and, for COPY TO STDOUT,
 * CopyData messages (one per row).
 *
 * <p>A result that passes the cap is cancelled (the session sends the CancelRequest and reports its delivery
 * with {@link #cancelDelivered()}), so the server stops producing rows and fails the statement, which gives the
 * client PostgreSQL's own error semantics. The client is not read until the cap is back to counting, so the
 * cancel cannot hit a later statement.
 *
 * <pre>
 *   COUNTING ──run passes the cap──▶ CUTTING ──ErrorResponse (the cancel's)──────────────▶ SETTLING
 *                                       └──CommandComplete / PortalSuspended──▶ DISCARDING ──ReadyForQuery (held)──┘
 *   SETTLING, cancel delivered ──held ReadyForQuery in an open transaction, nothing owed──▶ ABORTING
 *                              └──otherwise (held ReadyForQuery relayed)──────────────────▶ COUNTING
 *   ABORTING ──the abort's ReadyForQuery──▶ COUNTING
 * </pre>
 */
final class RowCap {

    enum Phase {
        /** Rows are counted; the client's messages flow. */
        COUNTING,
        /** The current result passed the cap: its later rows (and CopyDone) are dropped until it ends. */
        CUTTING,
        /** The capped statement completed before the cancel: the rest of its request is dropped up to its ReadyForQuery. */
        DISCARDING,
        /** The capped result is over; waiting for the cancel to be delivered (its ReadyForQuery perhaps held). */
        SETTLING,
        /** pgward's statement that aborts the transaction is in flight; its error is dropped. */
        ABORTING
    }

    private final long cap;
    private final String login;
    private long rows;
    private Phase phase = Phase.COUNTING;
    private boolean cancelDelivered;
    /** The ReadyForQuery that ended a discarded request, held until the cancel has been delivered. */
    private BackendMessage.Frame heldReady;

    RowCap(long cap, String login) {
        this.cap = cap;
        this.login = login;
    }

    Phase phase() {
        return phase;
    }

    /** True unless the cap is counting: client messages wait. */
    boolean holdsClient() {
        return phase != Phase.COUNTING;
    }

    /**
     * Writes the run to the client, without the rows past the cap (and without CopyDone once they are cut), or
     * nothing at all while a request is discarded; releases it.
     *
     * @return true when this run passed the cap: the session then cancels the statement
     */
    boolean relay(ByteBuf run, int runRows, Channel client) {
        if (phase == Phase.DISCARDING) {
            run.release();
            return false;
        }
        if (phase != Phase.CUTTING && rows + runRows <= cap) {
            rows += runRows;
            client.write(run);
            return false;
        }
        boolean wasCutting = phase == Phase.CUTTING;
        int at = run.readerIndex();
        int keptFrom = at;
        while (at < run.writerIndex()) {
            char type = (char) (run.getByte(at) & 0xff);
            int length = run.getInt(at + 1) + 1;
            if (dropped(type)) {
                if (at > keptFrom) {
                    client.write(run.retainedSlice(keptFrom, at - keptFrom));
                }
                keptFrom = at + length;
            }
            at += length;
        }
        if (at > keptFrom) {
            client.write(run.retainedSlice(keptFrom, at - keptFrom));
        }
        run.release();
        if (phase == Phase.CUTTING && !wasCutting) {
            cancelDelivered = false;
            return true;
        }
        return false;
    }

    private boolean dropped(char type) {
        if (BackendMessage.isRow(type)) {
            if (rows < cap) {
                rows++;
                return false;
            }
            phase = Phase.CUTTING;
            return true;
        }
        return phase == Phase.CUTTING && type == 'c';
    }

    /**
     * Takes a frame other than ReadyForQuery and ParameterStatus; true when the cap consumed it (released it, and
     * for the end of a cut result wrote the cap's error in its place). Every end of a result restarts the count.
     */
    boolean consumes(BackendMessage.Frame frame, Channel client) {
        if (phase == Phase.ABORTING || phase == Phase.DISCARDING) {
            frame.bytes().release();
            return true;
        }
        char type = frame.type();
        if (type != 'C' && type != 'E' && type != 's') {
            return false;
        }
        rows = 0;
        if (phase != Phase.CUTTING) {
            return false;
        }
        frame.bytes().release();
        client.write(error().encode(client.alloc()));
        // An error (normally the cancel's) failed the statement on the server; anything else means it finished
        // first, and what followed it in the same request must not be seen, as if it had failed.
        phase = type == 'E' ? Phase.SETTLING : Phase.DISCARDING;
        return true;
    }

    /** Whether the rest of the capped request is discarded, as if the capped statement had failed. */
    boolean discarding() {
        return phase == Phase.DISCARDING;
    }

    /** Holds the ReadyForQuery that closes a discarded request; true when held. */
    boolean holdsReady(BackendMessage.Frame ready) {
        if (phase != Phase.DISCARDING) {
            return false;
        }
        heldReady = ready;
        phase = Phase.SETTLING;
        return true;
    }

    void cancelDelivered() {
        cancelDelivered = true;
    }

    /** True when the capped result is over and its cancel delivered: the session settles it now. */
    boolean readyToSettle() {
        return phase == Phase.SETTLING && cancelDelivered;
    }

    /** The held ReadyForQuery, handed over to the session; null when none is held. */
    BackendMessage.Frame takeHeldReady() {
        BackendMessage.Frame ready = heldReady;
        heldReady = null;
        return ready;
    }

    /** pgward sent the statement that aborts the transaction in place of the held ReadyForQuery. */
    void aborting() {
        phase = Phase.ABORTING;
    }

    /** Back to counting: the client's messages flow again. */
    void settled() {
        phase = Phase.COUNTING;
    }

    /** Releases what the cap holds when the session ends. */
    void release() {
        BackendMessage.Frame ready = takeHeldReady();
        if (ready != null) {
            ready.bytes().release();
        }
    }

    PgError error() {
        return new PgError("ERROR", SqlState.PROGRAM_LIMIT_EXCEEDED, "pgward stopped this query: its result "
                + "passed the row cap of " + cap + " rows for the read-only login \"" + login + "\"",
                "The first " + cap + " rows were sent; the query was cancelled.",
                "Add a LIMIT or an aggregate, or page through the result with a cursor (FETCH).", 0);
    }
}
