package io.pgward.wire.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;

/**
 * Counts the rows of the result being relayed and keeps every row past the login's cap from the client.
 *
 * <p>A result is what one request returns: one statement of a Query, one Execute, one FETCH. It ends with
 * CommandComplete, ErrorResponse or PortalSuspended. A client that pages (an Execute row limit, FETCH from a
 * cursor) therefore gets every page that fits the cap: the cap bounds what one request hands over, like a
 * LIMIT pgward adds, not the total a session may read.
 *
 * <p>Rows are DataRow messages and, for COPY TO STDOUT, CopyData messages (one per row).
 */
final class RowCap {

    private final long cap;
    private final String login;
    private long rows;
    private boolean passed;

    RowCap(long cap, String login) {
        this.cap = cap;
        this.login = login;
    }

    /**
     * Writes the run to the client, without the rows past the cap (and without CopyDone once they are cut);
     * releases it.
     *
     * @return true when this run is the one that passed the cap
     */
    boolean relay(ByteBuf run, int runRows, Channel client) {
        if (!passed && rows + runRows <= cap) {
            rows += runRows;
            client.write(run);
            return false;
        }
        boolean wasPassed = passed;
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
        return passed && !wasPassed;
    }

    private boolean dropped(char type) {
        if (BackendMessage.isRow(type)) {
            if (rows < cap) {
                rows++;
                return false;
            }
            passed = true;
            return true;
        }
        return passed && type == 'c';
    }

    /** The current result ended; true when it had passed the cap. */
    boolean endResult() {
        boolean was = passed;
        rows = 0;
        passed = false;
        return was;
    }

    PgError error() {
        return new PgError("ERROR", SqlState.PROGRAM_LIMIT_EXCEEDED, "pgward stopped this query: its result "
                + "passed the row cap of " + cap + " rows for the read-only login \"" + login + "\"",
                "The first " + cap + " rows were sent; the query was cancelled.",
                "Add a LIMIT or an aggregate, or page through the result with a cursor (FETCH).", 0);
    }
}
