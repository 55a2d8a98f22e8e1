package io.pgward.wire.relay;

import io.netty.channel.Channel;
import io.pgward.wire.pool.BackendConnection;
import io.pgward.wire.pool.BackendPool;
import io.pgward.wire.pool.BackendReset;
import java.util.concurrent.CompletableFuture;

/**
 * A session's hold on the backend connection the pool lent it for the session's lifetime. At the end the
 * connection goes back to the pool only through {@link BackendReset} (ROLLBACK, DISCARD ALL), and only when it is
 * open, owes no ReadyForQuery (a statement still running is cancelled and the connection closed, not waited for),
 * and never reported a pinned setting at another value (it is no longer what pgward opened it as).
 */
final class BackendLease {

    private final BackendPool pool;
    private final BackendConnection backend;
    /** The backend reported a setting its read-only policy pins to another value: never reused. */
    private boolean tainted;

    BackendLease(BackendPool pool, BackendConnection backend) {
        this.pool = pool;
        this.backend = backend;
    }

    /** Cancels what the backend is running (CancelRequest with its own keys); completes on its event loop. */
    CompletableFuture<Void> cancel() {
        return pool.connector().cancel(backend.channel().eventLoop(), backend);
    }

    /** The backend can no longer be trusted to read statements as pgward judges them. */
    void taint() {
        tainted = true;
    }

    /** Ends the lease: the session's handler leaves the backend, which is reset for the pool or closed. */
    void giveBack(boolean owesReady) {
        Channel channel = backend.channel();
        // A tainted backend is closed at once; its handler stays to release what the current read still holds.
        if (!tainted && channel.pipeline().get(Session.HANDLER) != null) {
            channel.pipeline().remove(Session.HANDLER);
        }
        if (!channel.isActive() || tainted) {
            pool.discard(backend);
        } else if (!owesReady) {
            BackendReset.start(pool, backend);
        } else {
            cancel();
            pool.discard(backend);
        }
    }
}
