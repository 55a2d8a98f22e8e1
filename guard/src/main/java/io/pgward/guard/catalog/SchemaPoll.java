package io.pgward.guard.catalog;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one database's {@link SchemaFingerprint} every interval for all the {@link CatalogCheck}s of that database,
 * whatever their backend role, and hands each the reading to compare with its last.
 *
 * <p>Why one reading for all: the fingerprint counts and sums whole catalogs, which costs PostgreSQL time in
 * proportion to the schema (25 ms on a database of 2,000 tables, and every second), and it is the same for every
 * role: the catalogs it reads are readable by all and have no row security. A poll per role multiplied that work by
 * the number of backend roles.
 *
 * <p>It reads through each check's {@code readWith}, never through the check's own connections: a reading of a large
 * catalog would hold one of them for its whole length while new statements wait. When the first check's source
 * fails, the next one's is tried; when all fail, every check forgets its fingerprint and drops its verdicts, as its
 * own failed reading would make it.
 *
 * <p>It polls only while it has checks: the last one {@link #remove removed} (its pools closed after the guard's idle
 * timeout) stops the ticks, and its thread ends; the next one {@link #add added} starts them again.
 */
public final class SchemaPoll implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SchemaPoll.class);

    private record Member(CatalogCheck check, DataSource readWith) {
    }

    private final CopyOnWriteArrayList<Member> members = new CopyOnWriteArrayList<>();
    private final long millis;
    private final ScheduledThreadPoolExecutor poller;
    /** The ticks while there are members, else null; changed under this object's lock. */
    private ScheduledFuture<?> ticks;

    /** Polls every {@code interval}, counted from the end of the last reading, while it has checks to poll for. */
    public SchemaPoll(Duration interval) {
        millis = interval.toMillis();
        if (millis <= 0) {
            throw new IllegalArgumentException("interval must be at least a millisecond, was " + interval);
        }
        poller = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("pgward-schema-poll")
                .factory());
        poller.setRemoveOnCancelPolicy(true);
        poller.setKeepAliveTime(Math.max(millis, 1_000), TimeUnit.MILLISECONDS);
        poller.allowCoreThreadTimeOut(true);
    }

    synchronized void add(CatalogCheck check, DataSource readWith) {
        members.add(new Member(Objects.requireNonNull(check, "check"), Objects.requireNonNull(readWith, "readWith")));
        if (ticks == null && !poller.isShutdown()) {
            ticks = poller.scheduleWithFixedDelay(this::poll, millis, millis, TimeUnit.MILLISECONDS);
        }
    }

    synchronized void remove(CatalogCheck check) {
        members.removeIf(member -> member.check() == check);
        if (members.isEmpty() && ticks != null) {
            ticks.cancel(false);
            ticks = null;
        }
    }

    /** Whether it polls now: it has checks to poll for. */
    public synchronized boolean polling() {
        return ticks != null;
    }

    /** The checks it polls for, for tests. */
    int checks() {
        return members.size();
    }

    /** One reading for every check; the poll thread's job, tests' at will. */
    void poll() {
        try {
            pollOnce();
        } catch (RuntimeException e) {
            // A task that throws is never run again: the next tick must still come.
            log.error("the schema poll failed", e);
        }
    }

    private void pollOnce() {
        List<Member> now = List.copyOf(members);
        String fingerprint = null;
        Exception failure = null;
        for (Member member : now) {
            try {
                fingerprint = read(member.readWith());
                break;
            } catch (SQLException | RuntimeException e) {
                failure = e;
            }
        }
        for (Member member : now) {
            if (fingerprint != null) {
                member.check().observe(fingerprint);
            } else {
                member.check().unknown(failure);
            }
        }
    }

    static String read(DataSource source) throws SQLException {
        try (Connection connection = source.getConnection()) {
            return SchemaFingerprint.read(connection);
        }
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
