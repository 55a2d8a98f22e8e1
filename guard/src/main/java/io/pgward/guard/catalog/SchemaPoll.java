package io.pgward.guard.catalog;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
 */
public final class SchemaPoll implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SchemaPoll.class);

    private record Member(CatalogCheck check, DataSource readWith) {
    }

    private final CopyOnWriteArrayList<Member> members = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService poller;

    /** Polls every {@code interval}, counted from the end of the last reading. */
    public SchemaPoll(Duration interval) {
        long millis = interval.toMillis();
        if (millis <= 0) {
            throw new IllegalArgumentException("interval must be at least a millisecond, was " + interval);
        }
        poller = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                .name("pgward-schema-poll").factory());
        poller.scheduleWithFixedDelay(this::poll, millis, millis, TimeUnit.MILLISECONDS);
    }

    void add(CatalogCheck check, DataSource readWith) {
        members.add(new Member(Objects.requireNonNull(check, "check"), Objects.requireNonNull(readWith, "readWith")));
    }

    void remove(CatalogCheck check) {
        members.removeIf(member -> member.check() == check);
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
