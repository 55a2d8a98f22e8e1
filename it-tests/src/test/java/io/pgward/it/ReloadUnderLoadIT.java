package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.admin.ReloadReport;
import io.pgward.wire.cli.RunCommand;
import io.pgward.wire.config.ConfigLoader;
import io.pgward.wire.server.PgwardServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload while sessions run statements in a loop (pgjdbc, one thread each), through the entry point SIGHUP and
 * RELOAD use: the sessions of a narrowed login end with 57P01, an unaffected login's sessions run on without a
 * single error, an added login can log in, the narrowed login reconnects with its new selection; an invalid file
 * changes nothing.
 */
@PostgresTest
class ReloadUnderLoadIT {

    static final String PASSWORD = "reload pass";

    /** A configuration with logins a and b reading {@code aTables} and both tables, and {@code more} appended. */
    static String config(TestDatabase database, String aTables, String more) {
        return """
                listen: 127.0.0.1:0
                audit: {target: off}
                backend:
                  host: %s
                  port: %d
                logins:
                  a:
                    password: %s
                    backend_user: %s
                    backend_password: %s
                    tables: [%s]
                  b:
                    password: %s
                    backend_user: %s
                    backend_password: %s
                    tables: [public.kept, public.dropped]
                %s""".formatted(database.host(), database.port(), PASSWORD, database.user(), database.password(),
                aTables, PASSWORD, database.user(), database.password(), more.indent(2));
    }

    static String loginC(TestDatabase database) {
        return """
                c:
                  password: %s
                  backend_user: %s
                  backend_password: %s
                  tables: [public.kept]
                """.formatted(PASSWORD, database.user(), database.password());
    }

    static void createTables(TestDatabase database) throws SQLException {
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS kept, dropped");
            s.execute("CREATE TABLE kept (x int); INSERT INTO kept VALUES (1), (2), (3)");
            s.execute("CREATE TABLE dropped (x int); INSERT INTO dropped VALUES (4)");
        }
    }

    static Connection connect(int port, TestDatabase database, String login) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", login);
        props.setProperty("password", PASSWORD);
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database.name(), props);
    }

    /** The SQLSTATE a statement fails with, or "ok". */
    static String outcome(Connection c, String sql) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return "ok";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    /** One session running both tables' counts in a loop until stopped or until its first error. */
    private static final class Looper {
        final String login;
        final AtomicInteger rounds = new AtomicInteger();
        final AtomicReference<String> error = new AtomicReference<>();
        final Thread thread;

        Looper(Connection connection, String login, AtomicBoolean stop) {
            this.login = login;
            this.thread = Thread.ofPlatform().daemon().start(() -> {
                try (connection; Statement s = connection.createStatement()) {
                    while (!stop.get()) {
                        try (ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM kept) + "
                                + "(SELECT count(*) FROM dropped)")) {
                            rs.next();
                        }
                        rounds.incrementAndGet();
                    }
                } catch (SQLException e) {
                    error.set(e.getSQLState() + " " + e.getMessage());
                }
            });
        }
    }

    @Test
    void narrowedSessionsEndUnaffectedOnesRunOnAndTheNewPolicyApplies(TestDatabase database, @TempDir Path dir)
            throws Exception {
        createTables(database);
        Path file = Files.writeString(dir.resolve("pgward.yaml"),
                config(database, "public.kept, public.dropped", ""));
        try (PgwardServer server = RunCommand.start(ConfigLoader.load(file))) {
            server.reloadFrom(() -> ConfigLoader.load(file), changed -> { });
            int port = server.port();
            AtomicBoolean stop = new AtomicBoolean();
            List<Looper> loopers = new ArrayList<>();
            for (String login : List.of("a", "a", "b", "b")) {
                loopers.add(new Looper(connect(port, database, login), login, stop));
            }
            await(() -> loopers.stream().allMatch(l -> l.rounds.get() >= 5), "every session ran statements");

            Files.writeString(file, config(database, "public.kept", loginC(database)));
            ReloadReport report = server.reload();
            assertTrue(report.applied(), report.lines().toString());
            assertTrue(report.lines().toString().contains("its table selection lost public.dropped"), report.lines()
                    .toString());
            assertTrue(report.lines().contains("login \"c\" added"), report.lines().toString());
            assertEquals(2, report.sessionsEnded());

            List<Looper> a = loopers.stream().filter(l -> l.login.equals("a")).toList();
            List<Looper> b = loopers.stream().filter(l -> l.login.equals("b")).toList();
            await(() -> a.stream().allMatch(l -> !l.thread.isAlive()), "a's sessions ended");
            for (Looper l : a) {
                assertTrue(l.error.get().startsWith("57P01 FATAL: terminating connection due to administrator "
                        + "command"), l.error.get());
                assertTrue(l.error.get().contains("public.dropped"), l.error.get());
            }
            int before = b.stream().mapToInt(l -> l.rounds.get()).min().orElseThrow();
            await(() -> b.stream().allMatch(l -> l.rounds.get() >= before + 20), "b's sessions ran on");

            try (Connection c = connect(port, database, "c")) {
                assertEquals("ok", outcome(c, "SELECT count(*) FROM kept"), "the added login logs in");
                assertEquals("42501", outcome(c, "SELECT count(*) FROM dropped"));
            }
            try (Connection again = connect(port, database, "a")) {
                assertEquals("42501", outcome(again, "SELECT count(*) FROM dropped"),
                        "a relation taken out of a's selection is refused when a reconnects");
                assertEquals("ok", outcome(again, "SELECT count(*) FROM kept"));
            }

            // An invalid file is rejected whole: the login it adds does not exist, nothing else changes.
            Files.writeString(file, config(database, "public.kept, public.dropped",
                    loginC(database) + "d:\n  password: x\n  colour: red\n"));
            ReloadReport rejected = server.reload();
            assertFalse(rejected.applied());
            assertTrue(rejected.error().contains("logins.d.colour"), rejected.error());
            assertEquals("28P01", loginState(port, database, "d"), "the rejected file's login does not exist");
            try (Connection again = connect(port, database, "a")) {
                assertEquals("42501", outcome(again, "SELECT count(*) FROM dropped"), "a keeps its narrowed policy");
            }
            assertTrue(b.stream().allMatch(l -> l.thread.isAlive()), "b's sessions are untouched by the rejection");

            stop.set(true);
            for (Looper l : b) {
                l.thread.join(10_000);
                assertEquals(null, l.error.get(), "b's session ran on without an error");
            }
        }
    }

    @Test
    void aNarrowedSessionThatStaysBusyIsEndedAfterTheGraceTime(TestDatabase database, @TempDir Path dir)
            throws Exception {
        createTables(database);
        String writer = """
                w:
                  password: %s
                  backend_user: %s
                  backend_password: %s
                  mode: %s
                """;
        Path file = Files.writeString(dir.resolve("pgward.yaml"), config(database, "public.kept", writer.formatted(
                PASSWORD, database.user(), database.password(), "read-write")));
        try (PgwardServer server = RunCommand.start(ConfigLoader.load(file));
             Connection w = connect(server.port(), database, "w")) {
            server.reloadFrom(() -> ConfigLoader.load(file), changed -> { });
            java.util.concurrent.CompletableFuture<String> sleeping = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> outcome(w, "SELECT pg_sleep(60)"), r -> Thread.ofPlatform().daemon().start(r));
            Thread.sleep(300);
            Files.writeString(file, config(database, "public.kept", writer.formatted(PASSWORD, database.user(),
                    database.password(), "read-only")) + "pool:\n  max_size: 7\nio:\n  busy_poll: 50us\n");
            long started = System.nanoTime();
            ReloadReport report = server.reload();
            assertEquals(1, report.sessionsEnded());
            assertEquals(List.of("pool", "io"), report.needsRestart(),
                    "a pool size and the event loops cannot change while pgward runs");
            assertEquals(20, server.pool().maxSize(), "the running pool keeps its size");
            assertEquals("57P01", sleeping.get(30, java.util.concurrent.TimeUnit.SECONDS),
                    "the busy session ended with the FATAL");
            long millis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(millis >= 4_000 && millis < 15_000, "ended after the grace time, took " + millis + " ms");
        }
    }

    static String loginState(int port, TestDatabase database, String login) {
        try (Connection c = connect(port, database, login)) {
            return "ok";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }
}
