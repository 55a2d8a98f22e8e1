package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * pgward's idle pooled connections are sessions to PostgreSQL, but no client sees them: DROP DATABASE, ALTER
 * DATABASE ... RENAME and CREATE DATABASE ... TEMPLATE must work through pgward once every client of the database
 * has left, as they do directly. Connections to template1 are never kept, and an idle connection is closed after
 * {@code pool.idle_timeout}.
 */
@PostgresTest
class DatabaseCommandsIT {

    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(1);
    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        proxy = withIdleTimeout(Duration.ofMinutes(10));
    }

    private static ProxyFixture withIdleTimeout(Duration idleTimeout) {
        return ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 5,
                config -> config.withPool(new PgwardConfig.Pool(5, Duration.ofSeconds(2), idleTimeout)));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void dropDatabaseRightAfterItsClientsLeft() throws Exception {
        String name = database.name() + "_dropped";
        try (Connection app = proxy.connect("app")) {
            execute(app, "create database " + name);
            visit(name);
            visit(name);
            execute(app, "drop database " + name);
            assertEquals(0, count(app, "select count(*) from pg_database where datname = '" + name + "'"));
        }
    }

    @Test
    void dropDatabaseIfExistsWithAQuotedName() throws Exception {
        String name = database.name() + "_Quoted";
        try (Connection app = proxy.connect("app")) {
            execute(app, "create database \"" + name + "\"");
            visit(name);
            execute(app, "/* bye */ DROP DATABASE IF EXISTS \"" + name + "\"");
        }
    }

    @Test
    void renameDatabaseRightAfterItsClientsLeft() throws Exception {
        String name = database.name() + "_renamed";
        try (Connection app = proxy.connect("app")) {
            execute(app, "create database " + name);
            visit(name);
            execute(app, "alter database " + name + " rename to " + name + "_2");
            visit(name + "_2");
            execute(app, "drop database " + name + "_2");
        }
    }

    @Test
    void createDatabaseFromTemplate1AfterAClientOfTemplate1Left() throws Exception {
        String name = database.name() + "_copy";
        visit("template1");
        try (Connection app = proxy.connect("app")) {
            execute(app, "create database " + name + " template template1");
            execute(app, "drop database " + name);
            visit("template1");
            // Without TEMPLATE, CREATE DATABASE copies template1 all the same.
            execute(app, "create database " + name);
            execute(app, "drop database " + name);
        }
    }

    /**
     * A read-only session's statements are checked on control connections to its database: they are gone once the
     * session has ended, when the database is a template, so CREATE DATABASE works directly on PostgreSQL.
     */
    @Test
    void createDatabaseDirectlyFromTemplate1AfterAReadOnlySessionOfTemplate1Ended() throws Exception {
        String name = database.name() + "_direct_copy";
        try (Connection c = proxy.connectTo("template1", "analyst", new Properties())) {
            run(c, "select count(*) from pg_catalog.pg_class");
        }
        try (Connection owner = database.connect()) {
            execute(owner, "create database " + name + " template template1");
            execute(owner, "drop database " + name);
        }
    }

    /**
     * Before a read-write login's CREATE DATABASE ... TEMPLATE is relayed, the control connections that checked a
     * read-only session's statements on the template are closed too, not only pooled backend connections.
     */
    @Test
    void createDatabaseFromATemplateAReadOnlySessionUsedAfterItLeft() throws Exception {
        String template = database.name() + "_read_template";
        String name = database.name() + "_from_read_template";
        try (Connection app = proxy.connect("app")) {
            execute(app, "create database " + template);
            try (Connection c = proxy.connectTo(template, "analyst", new Properties())) {
                run(c, "select count(*) from pg_catalog.pg_class");
            }
            execute(app, "create database " + name + " template " + template);
            execute(app, "drop database " + name);
            execute(app, "drop database " + template);
        }
    }

    @Test
    void createDatabaseFromATemplateOfOnesOwnAfterItsClientsLeft() throws Exception {
        String template = database.name() + "_template";
        String name = database.name() + "_from_template";
        try (Connection app = proxy.connect("app")) {
            execute(app, "create database " + template);
            visit(template);
            execute(app, "create database " + name + " with owner = \"" + database.user() + "\" template = '"
                    + template + "'");
            execute(app, "drop database " + name);
            execute(app, "drop database " + template);
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        String name = database.name() + "_idle";
        try (ProxyFixture shortIdle = withIdleTimeout(IDLE_TIMEOUT); Connection app = database.connect()) {
            execute(app, "create database " + name);
            try {
                long started = System.nanoTime();
                try (Connection c = shortIdle.connectTo(name, "app", new Properties())) {
                    assertEquals(1, count(c, "select 1"));
                }
                String sessions = "select count(*) from pg_stat_activity where datname = '" + name + "'";
                assertEquals(1, count(app, sessions), "the server session of the pooled connection");
                long deadline = System.nanoTime() + IDLE_TIMEOUT.multipliedBy(5).toNanos();
                while (count(app, sessions) > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertEquals(0, count(app, sessions), "the server session of an idle pooled connection");
                assertEquals(0, shortIdle.server().pool().open(database.user(), name));
                long waited = System.nanoTime() - started;
                assertTrue(waited >= IDLE_TIMEOUT.toNanos(), "closed after " + waited / 1_000_000 + " ms");
            } finally {
                execute(app, "drop database if exists " + name);
            }
        }
    }

    /** A client of {@code name} runs a statement and leaves, as an application's connection does. */
    private static void visit(String name) throws SQLException {
        try (Connection c = proxy.connectTo(name, "app", new Properties())) {
            assertEquals(1, count(c, "select 1"));
        }
    }

    /** Runs a statement whatever the guard decides of it: its check is what makes control connections. */
    private static void run(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException refused) {
            // A refusal was decided by a check all the same.
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }
}
