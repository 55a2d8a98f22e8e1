package io.pgward.guard.policy;

import com.zaxxer.hikari.HikariDataSource;
import io.pgward.guard.catalog.CatalogCheck;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The control pools of one backend role on one database: the {@link CatalogCheck}'s and the one for pgward's own
 * catalog reads (which the database's schema poll reads through), with who is using them.
 *
 * <p>Every control connection is a session PostgreSQL counts as accessing the database, so pgward must not keep one
 * where nobody works: CREATE DATABASE copies a template only when no other session is connected to it, and DROP
 * DATABASE and ALTER DATABASE ... RENAME need the database unused too. The pools are therefore closed as a whole when
 * their role has sent no statement on the database for the guard's idle timeout, right after each use when the
 * database is a template, and before a read-write login's statement that needs the database unused.
 *
 * <p>Invariant: the pools are closed only after {@link #retire} succeeded, and that succeeds only while nobody
 * {@link #use uses} them; once retired they are never used again (a caller who finds them retired gets new ones).
 * So a closed pool is never under a running check. Thread-safe.
 */
final class ControlPools {

    /** CREATE DATABASE copies template1 unless told otherwise; template0 takes no connections by default. */
    private static final Set<String> TEMPLATES = Set.of("template0", "template1");

    /** The number of uses under way, or this once retired. */
    private static final int RETIRED = -1;

    private final CatalogCheck check;
    private final HikariDataSource control;
    private final String database;
    private final boolean template;
    private final AtomicInteger uses = new AtomicInteger();
    /** When the last use ended (System.nanoTime). */
    private volatile long lastUsed = System.nanoTime();
    /** A statement needs the database unused: retired as soon as the uses under way end. */
    private volatile boolean freeing;

    ControlPools(CatalogCheck check, HikariDataSource control, String database, boolean template) {
        this.check = check;
        this.control = control;
        this.database = database;
        this.template = template;
    }

    /**
     * Whether {@code database} is a template, by its name or by pg_database.datistemplate (any database can be
     * made one), read on {@code control}.
     */
    static boolean isTemplate(HikariDataSource control, String database) throws SQLException {
        if (TEMPLATES.contains(database)) {
            return true;
        }
        try (Connection connection = control.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT datistemplate FROM pg_catalog.pg_database "
                     + "WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database()")) {
            return row.next() && row.getBoolean(1);
        }
    }

    CatalogCheck check() {
        return check;
    }

    HikariDataSource control() {
        return control;
    }

    String database() {
        return database;
    }

    /** Starts a use; false when they are retired, and the caller must get new pools. */
    boolean use() {
        for (;;) {
            int now = uses.get();
            if (now == RETIRED) {
                return false;
            }
            if (uses.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    /**
     * A statement was answered from what the check already knew, without a connection: the role still works on the
     * database, so its pools are not idle.
     */
    void touch() {
        lastUsed = System.nanoTime();
    }

    /**
     * Ends a use.
     *
     * @return true when that left the pools unused and retired them (a template database, or one a statement needs
     *         unused): the caller closes them
     */
    boolean release() {
        lastUsed = System.nanoTime();
        return uses.decrementAndGet() == 0 && (template || freeing) && uses.compareAndSet(0, RETIRED);
    }

    /**
     * Retires the pools if nobody uses them and nobody has since {@code idleSince} (System.nanoTime). A use that
     * starts and ends between the two looks is retired with them: the next statement makes new pools.
     */
    boolean retireIfIdleSince(long idleSince) {
        return lastUsed - idleSince <= 0 && uses.compareAndSet(0, RETIRED);
    }

    /**
     * Retires the pools now if nobody uses them, or else as soon as the uses under way end ({@link #release} says
     * so).
     */
    boolean retireWhenUnused() {
        freeing = true;
        return uses.compareAndSet(0, RETIRED);
    }

    /** Blocks until the check's running work is done, then closes both pools; only after a retirement. */
    void close() {
        try {
            check.close();
        } finally {
            control.close();
        }
    }
}
