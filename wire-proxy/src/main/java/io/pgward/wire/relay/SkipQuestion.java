package io.pgward.wire.relay;

import io.netty.channel.Channel;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.protocol.FrontendMessage;
import io.pgward.wire.protocol.Messages;

/**
 * Whether the server skips to the next Sync: asked before a Query or FunctionCall (well-formed or not) that ends a
 * request of extended-protocol messages. After an error in the extended protocol PostgreSQL discards every message up
 * to the next Sync, such a Query or FunctionCall included, which then gets no ReadyForQuery of its own; pgward counts
 * the ReadyForQuery each request owes ({@link InFlight}), so it must know before it forwards the message whether the
 * server will run it, and skip it where the server would.
 *
 * <p>The server sends an error as it happens, so a failure is heard without asking. That none happened is heard only
 * by asking: pgward sends a Close of a prepared statement name of its own, {@code pgward_skip_<nonce>}, and a Flush.
 * The server answers CloseComplete when it is not skipping and says nothing when it is. A Close of a name nothing holds
 * is no error, runs in a failed transaction block as well, starts no transaction and takes no snapshot: the client's
 * unnamed prepared statement and unnamed portal stay exactly as PostgreSQL keeps them across a FunctionCall or a
 * malformed Query, which drop neither (a Parse of the unnamed statement would empty the client's). Only a client that
 * learnt the session's nonce could make a statement under the name, and lose it.
 *
 * <pre>
 *   client               pgward                                    PostgreSQL
 *   Parse, Bind, ...  ─▶ forwarded                              ─▶
 *   FunctionCall      ─▶ held; Close(S pgward_skip_n), Flush     ─▶
 *                        the FunctionCall goes on               ◀─ CloseComplete (dropped)
 *                   or:  the FunctionCall is dropped            ◀─ ErrorResponse of an earlier message (relayed)
 * </pre>
 *
 * <p>While the question is open the session handles no client message ({@link #open()}): the held message waits at
 * the head of its backlog. pgward's CloseComplete is told from the client's by {@link Completions}. Confined to the
 * session's event loop, like the session.
 */
final class SkipQuestion {

    /** What becomes of a client message before it is handled. */
    enum Before {
        /** It is handled now. */
        GO_ON,
        /** The server is skipping to the Sync: it is dropped, as the server would drop it. */
        SKIPPED,
        /** The question was sent: it waits for the answer. */
        ASKED
    }

    private final BackendConnection backend;
    private final InFlight inFlight;
    private final Completions completions;
    private final String name;
    private boolean open;

    SkipQuestion(BackendConnection backend, InFlight inFlight, Completions completions, long nonce) {
        this.backend = backend;
        this.inFlight = inFlight;
        this.completions = completions;
        this.name = "pgward_skip_" + Long.toHexString(nonce);
    }

    /** Whether the question was sent and its answer has not arrived. */
    boolean open() {
        return open;
    }

    /** Decides what becomes of {@code message}, asking the server when only it can tell. */
    Before before(FrontendMessage message) {
        if (!endsRequest(message) || !inFlight.openHasExtended()) {
            return Before.GO_ON;
        }
        if (inFlight.openErrored()) {
            return Before.SKIPPED;
        }
        if (inFlight.openNotSkipping()) {
            return Before.GO_ON;
        }
        open = true;
        completions.sent(Completions.CLOSE, inFlight.openId(), true);
        Channel channel = backend.channel();
        channel.write(Messages.close(channel.alloc(), 'S', name));
        channel.write(Messages.flush(channel.alloc()));
        channel.flush();
        return Before.ASKED;
    }

    /** A Query or FunctionCall, well-formed or not: each ends its request with a ReadyForQuery of its own. */
    private static boolean endsRequest(FrontendMessage message) {
        return message instanceof FrontendMessage.Query || message instanceof FrontendMessage.FunctionCall
                || message instanceof FrontendMessage.Malformed m && m.endsRequest();
    }

    /**
     * A CloseComplete of pgward's arrived; true when it is the answer (the last of pgward's Closes): the server is not
     * skipping, and the held message goes on.
     */
    boolean closeCompleted() {
        if (!open || !completions.noneOwed(Completions.CLOSE)) {
            return false;
        }
        open = false;
        inFlight.openNotSkipping(true);
        return true;
    }

    /**
     * The server sent an ErrorResponse, already noted in {@link InFlight}; true when it is the answer (it belongs to
     * the open request): the server skips to the Sync, and the held message is dropped when it is handled again.
     */
    boolean failed() {
        if (!open || inFlight.head() != null) {
            return false;
        }
        open = false;
        return true;
    }
}
