package io.pgward.wire.pool;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.BackendMessage;
import io.pgward.wire.protocol.Messages;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Session-mode pool: a client session holds one backend connection from login to logout.
 *
 * <p>Invariants, per (PostgreSQL role, database): at most {@code max_size} connections are open or opening;
 * an idle connection is reused only for an identical {@link BackendTarget} on the same event loop (so relaying
 * stays on one thread); returned connections were reset with {@code DISCARD ALL} by {@link BackendReset} and
 * are closed instead when that fails. A caller that finds the pool full waits in FIFO order up to
 * {@code wait_timeout}. Idle connections that PostgreSQL closes are forgotten; those idle longer than
 * {@code idle_timeout} are closed.
 *
 * <p>An idle connection is a session PostgreSQL counts as "accessing" its database, so it would make DROP DATABASE,
 * ALTER DATABASE ... RENAME and CREATE DATABASE ... TEMPLATE fail for a client that sees no other user. Before such
 * a statement is relayed, {@link #closeIdleTo} closes the idle connections to the database it names, and for
 * {@link #FREEING_WINDOW} afterwards connections to it that come back are closed instead of kept (a session whose
 * client just left may still be on its way back; PostgreSQL itself waits up to 5 s for other sessions to leave).
 * Connections to the template databases are never kept idle: any CREATE DATABASE may copy them.
 */
public final class BackendPool {

    private static final Logger log = LoggerFactory.getLogger(BackendPool.class);

    /** How long after a statement that needs a database unused connections to it are not kept idle. */
    static final Duration FREEING_WINDOW = Duration.ofSeconds(10);

    /**
     * The most a {@link BackendReset} may take, however long {@code wait_timeout} is: a statement the old client left
     * running is cancelled then, rather than loading the server for its new clients' whole wait.
     */
    static final Duration MAX_RESET_TIMEOUT = Duration.ofSeconds(10);

    /** The least, so that with {@code wait_timeout: 0} (nobody waits) a healthy reset still completes. */
    static final Duration MIN_RESET_TIMEOUT = Duration.ofMillis(100);

    /** CREATE DATABASE copies template1 unless told otherwise; template0 takes no connections by default. */
    private static final Set<String> TEMPLATES = Set.of("template0", "template1");

    private final BackendConnector connector;
    private final int maxSize;
    private final Duration waitTimeout;
    private final Duration idleTimeout;
    private final Duration resetTimeout;
    private final java.util.concurrent.atomic.LongAdder waits = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder timeouts = new java.util.concurrent.atomic.LongAdder();
    private final Map<BackendTarget.PoolKey, Slot> slots = new HashMap<>();
    /** Databases a statement that needs them unused was relayed for, with when (nanoTime) that stops mattering. */
    private final Map<String, Long> freeing = new HashMap<>();

    public BackendPool(BackendConnector connector, PgwardConfig.Pool config) {
        this.connector = connector;
        this.maxSize = config.maxSize();
        this.waitTimeout = config.waitTimeout();
        this.idleTimeout = config.idleTimeout();
        this.resetTimeout = resetTimeout(waitTimeout);
    }

    /**
     * Half of {@code wait_timeout}, between {@link #MIN_RESET_TIMEOUT} and {@link #MAX_RESET_TIMEOUT}. A connection
     * in its reset is a place in the pool no client can have, so its reset must end, by returning it or by closing
     * it, well before a client that waits for that place gives up: one that starts waiting as the reset starts
     * still has the other half of its wait for the connection that replaces a closed one to open.
     */
    static Duration resetTimeout(Duration waitTimeout) {
        Duration half = waitTimeout.dividedBy(2);
        return half.compareTo(MIN_RESET_TIMEOUT) < 0 ? MIN_RESET_TIMEOUT
                : half.compareTo(MAX_RESET_TIMEOUT) > 0 ? MAX_RESET_TIMEOUT : half;
    }

    /** How long {@link BackendReset} may hold a connection whose client left before it closes it. */
    Duration resetTimeout() {
        return resetTimeout;
    }

    public BackendConnector connector() {
        return connector;
    }

    /** A connection for {@code target} on {@code loop}; the future completes on that loop. */
    public Future<BackendConnection> acquire(EventLoop loop, BackendTarget target) {
        Promise<BackendConnection> promise = loop.newPromise();
        BackendConnection reuse;
        BackendConnection evict = null;
        boolean open = false;
        synchronized (this) {
            Slot slot = slots.computeIfAbsent(target.key(), k -> new Slot());
            reuse = slot.takeIdle(loop, target);
            if (reuse == null) {
                if (slot.open < maxSize) {
                    slot.open++;
                    open = true;
                } else if (!slot.idle.isEmpty()) {
                    evict = slot.idle.removeFirst();
                    open = true;
                } else {
                    Waiter waiter = new Waiter(loop, target, promise);
                    slot.waiters.addLast(waiter);
                    waits.increment();
                    waiter.timeout = loop.schedule(() -> timeOut(target, waiter), waitTimeout.toMillis(),
                            TimeUnit.MILLISECONDS);
                }
            }
        }
        if (evict != null) {
            evict.channel().close();
        }
        if (reuse != null) {
            hand(reuse, promise);
        } else if (open) {
            open(loop, target, promise);
        }
        return promise;
    }

    /** Takes back a connection that {@link BackendReset} left clean and idle. */
    public void release(BackendConnection connection) {
        if (!keepsIdle(connection.target().database())) {
            retire(connection);
            return;
        }
        Waiter waiter;
        synchronized (this) {
            Slot slot = slots.get(connection.target().key());
            waiter = slot.waiters.pollFirst();
            if (waiter == null) {
                slot.idle.addLast(connection);
                connection.channel().pipeline().addLast("idle", new IdleWatch(connection));
                return;
            }
        }
        waiter.timeout.cancel(false);
        if (waiter.loop == connection.channel().eventLoop() && waiter.target.equals(connection.target())) {
            hand(connection, waiter.promise);
        } else {
            connection.channel().close();
            open(waiter.loop, waiter.target, waiter.promise);
        }
    }

    /**
     * Closes the idle connections to {@code databases}, whatever their role, and keeps none to them idle for
     * {@link #FREEING_WINDOW}; completes (never exceptionally) once they are closed.
     */
    public CompletableFuture<Void> closeIdleTo(Set<String> databases) {
        List<BackendConnection> closing = new ArrayList<>();
        synchronized (this) {
            long now = System.nanoTime();
            freeing.values().removeIf(until -> until - now <= 0);
            databases.forEach(database -> freeing.put(database, now + FREEING_WINDOW.toNanos()));
            for (Map.Entry<BackendTarget.PoolKey, Slot> entry : slots.entrySet()) {
                if (databases.contains(entry.getKey().database())) {
                    closing.addAll(entry.getValue().idle);
                    entry.getValue().idle.clear();
                }
            }
        }
        CompletableFuture<?>[] closed = new CompletableFuture<?>[closing.size()];
        for (int i = 0; i < closed.length; i++) {
            BackendConnection connection = closing.get(i);
            CompletableFuture<Void> done = new CompletableFuture<>();
            retire(connection).addListener(f -> done.complete(null));
            closed[i] = done;
        }
        if (!closing.isEmpty()) {
            log.debug("closed {} idle connection(s) to {} before a statement that needs them unused",
                    closing.size(), databases);
        }
        return CompletableFuture.allOf(closed);
    }

    /** Whether a connection to {@code database} that comes back clean may wait idle for its next client. */
    private synchronized boolean keepsIdle(String database) {
        if (TEMPLATES.contains(database)) {
            return false;
        }
        Long until = freeing.get(database);
        if (until == null) {
            return true;
        }
        if (until - System.nanoTime() > 0) {
            return false;
        }
        freeing.remove(database);
        return true;
    }

    /**
     * Closes a connection that no session holds (no longer idle, or never put there) with Terminate, so that its
     * server process ends at once rather than when it notices the closed socket; frees its place.
     */
    private ChannelFuture retire(BackendConnection connection) {
        Channel channel = connection.channel();
        ChannelFuture closed = channel.closeFuture();
        if (channel.isActive()) {
            channel.writeAndFlush(Messages.terminate(channel.alloc())).addListener(ChannelFutureListener.CLOSE);
        } else {
            channel.close();
        }
        freePlace(connection.target().key());
        return closed;
    }

    /** Closes a connection that cannot be reused and frees its place. */
    public void discard(BackendConnection connection) {
        connection.channel().close();
        freePlace(connection.target().key());
    }

    /** How many connections are open or opening for a role and database (for tests and metrics). */
    public synchronized int open(String user, String database) {
        Slot slot = slots.get(new BackendTarget.PoolKey(user, database));
        return slot == null ? 0 : slot.open;
    }

    public synchronized int idle(String user, String database) {
        Slot slot = slots.get(new BackendTarget.PoolKey(user, database));
        return slot == null ? 0 : slot.idle.size();
    }

    /**
     * The pool as a whole, for metrics.
     *
     * @param open connections open or opening
     * @param idle of those, the ones waiting for a client
     * @param waiting clients waiting for a connection now
     * @param waits clients that ever had to wait
     * @param timeouts waits that ended in 53300
     */
    public record Stats(int open, int idle, int waiting, long waits, long timeouts) {
    }

    public synchronized Stats stats() {
        int open = 0;
        int idle = 0;
        int waiting = 0;
        for (Slot slot : slots.values()) {
            open += slot.open;
            idle += slot.idle.size();
            waiting += slot.waiters.size();
        }
        return new Stats(open, idle, waiting, waits.sum(), timeouts.sum());
    }

    /**
     * One (role, database) of the pool, for the admin console's SHOW POOLS.
     *
     * @param open connections open or opening
     * @param idle of those, the ones waiting for a client
     * @param waiting clients waiting for a connection now
     */
    public record SlotStats(String user, String database, int open, int idle, int waiting) {
    }

    public synchronized List<SlotStats> slotStats() {
        List<SlotStats> all = new ArrayList<>();
        slots.forEach((key, slot) -> all.add(new SlotStats(key.user(), key.database(), slot.open, slot.idle.size(),
                slot.waiters.size())));
        return all;
    }

    /** The connections idle in the pool now, for SHOW SERVERS. */
    public synchronized List<BackendConnection> idleConnections() {
        List<BackendConnection> idle = new ArrayList<>();
        slots.values().forEach(slot -> idle.addAll(slot.idle));
        return idle;
    }

    /** The most connections per role and database ({@code pool.max_size}). */
    public int maxSize() {
        return maxSize;
    }

    private void hand(BackendConnection connection, Promise<BackendConnection> promise) {
        EventLoop loop = connection.channel().eventLoop();
        loop.execute(() -> {
            if (connection.channel().pipeline().get("idle") != null) {
                connection.channel().pipeline().remove("idle");
            }
            if (!connection.channel().isActive()) {
                freePlace(connection.target().key());
                acquire(loop, connection.target()).addListener(f -> complete(promise, f));
            } else if (!promise.trySuccess(connection)) {
                release(connection);
            }
        });
    }

    private void open(EventLoop loop, BackendTarget target, Promise<BackendConnection> promise) {
        connector.connect(loop, target).addListener(f -> {
            if (!f.isSuccess()) {
                freePlace(target.key());
            } else if (promise.isDone()) {
                @SuppressWarnings("unchecked")
                BackendConnection late = (BackendConnection) f.getNow();
                release(late);
                return;
            }
            complete(promise, f);
        });
    }

    @SuppressWarnings("unchecked")
    private static void complete(Promise<BackendConnection> promise, Future<?> f) {
        if (f.isSuccess()) {
            promise.trySuccess((BackendConnection) f.getNow());
        } else {
            promise.tryFailure(f.cause());
        }
    }

    private void freePlace(BackendTarget.PoolKey key) {
        Waiter waiter;
        synchronized (this) {
            Slot slot = slots.get(key);
            if (slot == null) {
                return;  // a connection this pool never counted (one made without it) frees no place
            }
            waiter = slot.waiters.pollFirst();
            if (waiter == null) {
                slot.open--;
                return;
            }
        }
        waiter.timeout.cancel(false);
        open(waiter.loop, waiter.target, waiter.promise);
    }

    private void timeOut(BackendTarget target, Waiter waiter) {
        synchronized (this) {
            if (!slots.get(target.key()).waiters.remove(waiter)) {
                return;
            }
        }
        timeouts.increment();
        waiter.promise.tryFailure(new BackendException(PgError.fatal(SqlState.TOO_MANY_CONNECTIONS,
                "pgward: no connection to the database server became free within " + waitTimeout.toMillis()
                        + " ms (pool.max_size is " + maxSize + " for " + target.key() + ")")));
    }

    /** Closes every idle connection (shutdown). */
    public void closeIdle() {
        List<BackendConnection> idle = new ArrayList<>();
        synchronized (this) {
            for (Slot slot : slots.values()) {
                idle.addAll(slot.idle);
            }
        }
        idle.forEach(c -> c.channel().close());
    }

    private static final class Slot {
        int open;
        final Deque<BackendConnection> idle = new ArrayDeque<>();
        final Deque<Waiter> waiters = new ArrayDeque<>();

        BackendConnection takeIdle(EventLoop loop, BackendTarget target) {
            for (Iterator<BackendConnection> it = idle.iterator(); it.hasNext(); ) {
                BackendConnection c = it.next();
                if (c.channel().eventLoop() == loop && c.target().equals(target)) {
                    it.remove();
                    return c;
                }
            }
            return null;
        }
    }

    private static final class Waiter {
        final EventLoop loop;
        final BackendTarget target;
        final Promise<BackendConnection> promise;
        ScheduledFuture<?> timeout;

        Waiter(EventLoop loop, BackendTarget target, Promise<BackendConnection> promise) {
            this.loop = loop;
            this.target = target;
            this.promise = promise;
        }
    }

    /**
     * Sits on an idle connection: drops asynchronous messages (a ParameterStatus, a notice), forgets the
     * connection when PostgreSQL closes it (e.g. after pg_terminate_backend or a restart), and closes it once it
     * has been idle for {@code idle_timeout}.
     */
    private final class IdleWatch extends ChannelInboundHandlerAdapter {
        private final BackendConnection connection;
        private ScheduledFuture<?> expiry;

        IdleWatch(BackendConnection connection) {
            this.connection = connection;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            if (!idleTimeout.isZero()) {
                expiry = ctx.executor().schedule(this::expire, idleTimeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            if (expiry != null) {
                expiry.cancel(false);
            }
        }

        private void expire() {
            boolean wasIdle;
            synchronized (BackendPool.this) {
                wasIdle = slots.get(connection.target().key()).idle.remove(connection);
            }
            // Not idle any more: a client took it just now, and hand() removes this watch.
            if (wasIdle) {
                log.debug("{} closed after {} idle", connection, idleTimeout);
                retire(connection);
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg instanceof BackendMessage m ? m.bytes() : msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            boolean wasIdle;
            synchronized (BackendPool.this) {
                wasIdle = slots.get(connection.target().key()).idle.remove(connection);
            }
            if (wasIdle) {
                log.debug("{} closed while idle", connection);
                freePlace(connection.target().key());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
