package io.pgward.mcp;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seed 000's sessions: {@code begin} reserves a session of the login through pgward and opens a transaction;
 * {@code execute}, {@code commit} and {@code rollback} name it by {@code session_id}. A session belongs to the
 * login that began it (another login's caller gets "unknown session"), is used by one call at a time, and is
 * rolled back and released after {@code idle} without a call.
 */
final class Transactions implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Transactions.class);

    /** An open transaction; its monitor is held by the one call using it. */
    static final class Held {
        final Connection session;
        volatile long lastUsed = System.nanoTime();

        Held(Connection session) {
            this.session = session;
        }
    }

    private final Loopback loopback;
    private final String login;
    private final Map<String, Held> open = new ConcurrentHashMap<>();
    private final ScheduledExecutorService reaper;
    private final Duration idle;

    Transactions(Loopback loopback, String login, Duration idle) {
        this.loopback = loopback;
        this.login = login;
        this.idle = idle;
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pgward-mcp-reaper-" + login);
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(100, Math.min(30_000, idle.toMillis() / 2));
        reaper.scheduleWithFixedDelay(this::reap, every, every, TimeUnit.MILLISECONDS);
    }

    String begin() throws SQLException {
        Connection session = loopback.connect(login);
        try {
            session.setAutoCommit(false);
        } catch (SQLException e) {
            session.close();
            throw e;
        }
        String id = UUID.randomUUID().toString();
        open.put(id, new Held(session));
        return id;
    }

    Held find(String id) {
        Held held = id == null ? null : open.get(id);
        if (held == null) {
            throw new ToolError("Unknown session_id: " + id + ". Call begin for a new session.");
        }
        held.lastUsed = System.nanoTime();
        return held;
    }

    /** Forgets the session and gives its connection back; the caller has committed or rolled back. */
    void end(String id) {
        Held held = open.remove(id);
        if (held != null) {
            release(held);
        }
    }

    private void reap() {
        long now = System.nanoTime();
        open.forEach((id, held) -> {
            if (now - held.lastUsed > idle.toNanos() && open.remove(id, held)) {
                synchronized (held) {
                    log.info("rolled back MCP session {} of login \"{}\": idle for {}", id, login, idle);
                    try {
                        held.session.rollback();
                    } catch (SQLException e) {
                        log.debug("rollback of an idle session failed", e);
                    }
                    release(held);
                }
            }
        });
    }

    private static void release(Held held) {
        try {
            held.session.close();
        } catch (SQLException e) {
            log.debug("closing a session failed", e);
        }
    }

    @Override
    public void close() {
        reaper.shutdownNow();
        open.keySet().forEach(this::end);
    }
}
