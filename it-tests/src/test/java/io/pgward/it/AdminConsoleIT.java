package io.pgward.it;

import static io.pgward.it.RawClient.concat;
import static io.pgward.it.RawClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.ConfigException;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.config.Secret;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The admin console, database {@code pgward}, from psql: what each SHOW lists is what is there, only admin.logins
 * get in, KILL ends exactly one client, PAUSE holds a new statement until RESUME, RELOAD reports its outcome.
 */
@PostgresTest
class AdminConsoleIT {

    private static final java.util.concurrent.Executor THREADS = r -> Thread.ofPlatform().daemon().start(r);

    /** The fixture's logins plus {@code ops}, the one admin. */
    private static final UnaryOperator<PgwardConfig> WITH_ADMIN = config -> {
        Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>(config.logins());
        PgwardConfig.Login app = logins.get("app");
        logins.put("ops", new PgwardConfig.Login("ops", PgwardConfig.AuthMethod.SCRAM_SHA_256,
                new Secret(ProxyFixture.PASSWORD), null, app.backendUser(), app.backendPassword(),
                PgwardConfig.Mode.READ_ONLY));
        return config.withLogins(logins).withAdmins(List.of("ops"));
    };

    private static ProxyFixture start(TestDatabase database) {
        return ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 20,
                WITH_ADMIN);
    }

    /** psql -c on the admin console: unaligned, '|' between columns, header first. */
    private static RealClients.Result psql(ProxyFixture proxy, String login, String command) throws Exception {
        Path psql = RealClients.require("psql");
        return RealClients.run(List.of(psql.toString(), "-X", "-A", "-F", "|", "-v", "ON_ERROR_STOP=1",
                proxy.uri(login, "pgward"), "-c", command));
    }

    /** The rows of a SHOW, each as column name to value. */
    private static List<Map<String, String>> rows(RealClients.Result result) {
        assertEquals(0, result.exit(), result.err());
        String[] lines = result.out().strip().split("\n");
        String[] header = lines[0].split("\\|", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].matches("\\(\\d+ rows?\\)")) {
                continue;
            }
            String[] values = lines[i].split("\\|", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < header.length; c++) {
                row.put(header[c], values[c]);
            }
            rows.add(row);
        }
        return rows;
    }

    private static Map<String, String> only(List<Map<String, String>> rows, String column, String value) {
        List<Map<String, String>> matching = rows.stream().filter(r -> value.equals(r.get(column))).toList();
        assertEquals(1, matching.size(), column + "=" + value + " in " + rows);
        return matching.getFirst();
    }

    private static String stateOf(Connection c) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            return "open";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    private static long backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void showsWhatIsThere(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = start(database);
             Connection app = proxy.connect("app");
             Connection analyst = proxy.connect("analyst")) {
            long appPid = backendPid(app);
            try (Statement s = analyst.createStatement()) {
                analyst.setAutoCommit(false);
                s.executeQuery("SELECT 1").close();
            }

            List<Map<String, String>> clients = rows(psql(proxy, "ops", "SHOW CLIENTS"));
            assertEquals(3, clients.size(), clients.toString());
            Map<String, String> appRow = only(clients, "user", "app");
            assertEquals("idle", appRow.get("state"));
            assertEquals(database.name(), appRow.get("database"));
            assertEquals("read-write", appRow.get("mode"));
            assertEquals(Long.toString(appPid), appRow.get("server_pid"));
            Map<String, String> analystRow = only(clients, "user", "analyst");
            assertEquals("idle in transaction", analystRow.get("state"));
            assertEquals("read-only", analystRow.get("mode"));
            Map<String, String> opsRow = only(clients, "user", "ops");
            assertEquals("active", opsRow.get("state"), "the console's own session runs SHOW CLIENTS");
            assertEquals("pgward", opsRow.get("database"));
            assertEquals("psql", opsRow.get("application_name"));

            List<Map<String, String>> servers = rows(psql(proxy, "ops", "show servers;"));
            Map<String, String> appServer = only(servers, "remote_pid", Long.toString(appPid));
            assertEquals("active", appServer.get("state"));
            assertEquals(appRow.get("id"), appServer.get("link"));
            assertEquals(Integer.toString(database.port()), appServer.get("port"));
            assertEquals(2, servers.stream().filter(r -> r.get("state").equals("active")).count(), servers.toString());

            Map<String, String> pool = only(rows(psql(proxy, "ops", "Show Pools")), "database", database.name());
            assertEquals("2", pool.get("sv_active"), "app's and analyst's backends share one role and database");
            assertEquals("20", pool.get("pool_size"));

            Map<String, String> stats = only(rows(psql(proxy, "ops", "SHOW STATS")), "user", "app");
            assertEquals("1", stats.get("open_sessions"));
            assertTrue(Long.parseLong(stats.get("allowed")) >= 1, stats.toString());
            assertTrue(Long.parseLong(stats.get("total_received")) > 0, stats.toString());

            RealClients.Result loginsResult = psql(proxy, "ops", "SHOW LOGINS");
            Map<String, String> analystLogin = only(rows(loginsResult), "user", "analyst");
            assertEquals("read-only", analystLogin.get("mode"));
            assertEquals("all", analystLogin.get("tables"));
            assertEquals("1", analystLogin.get("sessions"));
            assertEquals("yes", only(rows(loginsResult), "user", "ops").get("admin"));
            assertFalse(loginsResult.out().contains(ProxyFixture.PASSWORD), "no password in SHOW LOGINS");
            assertFalse(loginsResult.out().contains(database.password()), "no backend password in SHOW LOGINS");
            assertFalse(loginsResult.out().contains("SCRAM-SHA-256$"), "no verifier in SHOW LOGINS");

            RealClients.Result help = psql(proxy, "ops", "SHOW HELP");
            assertEquals(0, help.exit(), help.err());
            assertTrue(help.err().contains("NOTICE:  Console usage") && help.err().contains("KILL <client id>"),
                    help.err());

            RealClients.Result unknown = psql(proxy, "ops", "SHOW SECRETS");
            assertNotEquals(0, unknown.exit());
            assertTrue(unknown.err().contains("SHOW SECRETS is not an admin console command"), unknown.err());
            RealClients.Result sql = psql(proxy, "ops", "SELECT 1");
            assertTrue(sql.err().contains("invalid command \"SELECT 1\""), sql.err());
        }
    }

    @Test
    void onlyAdminLoginsGetIn(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = start(database)) {
            RealClients.Result refused = psql(proxy, "app", "SHOW CLIENTS");
            assertEquals(2, refused.exit(), refused.err());
            assertTrue(refused.err().contains("FATAL:  permission denied for database \"pgward\""), refused.err());
            assertTrue(refused.err().contains("User does not have CONNECT privilege."), refused.err());
            RealClients.Result wrongPassword = RealClients.run(List.of(RealClients.require("psql").toString(), "-X",
                    proxy.uri("ops", "pgward").replace("s3cret", "wrong"), "-c", "SHOW CLIENTS"));
            assertTrue(wrongPassword.err().contains("password authentication failed"), wrongPassword.err());
        }
    }

    @Test
    void killEndsExactlyThatClient(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = start(database);
             Connection victim = proxy.connect("app");
             Connection other = proxy.connect("app")) {
            long victimPid = backendPid(victim);
            String id = only(rows(psql(proxy, "ops", "SHOW CLIENTS")), "server_pid", Long.toString(victimPid))
                    .get("id");
            RealClients.Result kill = psql(proxy, "ops", "KILL " + id);
            assertEquals(0, kill.exit(), kill.err());
            assertEquals("57P01", stateOf(victim), "the killed client got the FATAL");
            assertEquals("open", stateOf(other), "the other session carries on");
            RealClients.Result again = psql(proxy, "ops", "KILL " + id);
            assertTrue(again.err().contains("no client with id " + id), again.err());
        }
    }

    @Test
    void pauseHoldsNewStatementsUntilResume(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = start(database);
             Connection running = proxy.connect("app");
             Connection held = proxy.connect("app")) {
            long statementStarted = System.nanoTime();
            CompletableFuture<String> longStatement = CompletableFuture.supplyAsync(() -> {
                try (Statement s = running.createStatement();
                     ResultSet rs = s.executeQuery("SELECT 'done' FROM pg_sleep(1)")) {
                    rs.next();
                    return rs.getString(1);
                } catch (SQLException e) {
                    return e.getSQLState();
                }
            }, THREADS);
            await(() -> {
                try {
                    return rows(psql(proxy, "ops", "SHOW CLIENTS")).stream().anyMatch(r -> r.get("state")
                            .equals("active") && r.get("user").equals("app"));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            RealClients.Result pause = psql(proxy, "ops", "PAUSE");
            long paused = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - statementStarted);
            assertEquals(0, pause.exit(), pause.err());
            assertTrue(paused >= 1_000, "PAUSE answered once the running statement (1 s) was over, after " + paused
                    + " ms");
            assertEquals("done", longStatement.get(10, TimeUnit.SECONDS), "the running statement finished");

            AtomicBoolean ran = new AtomicBoolean();
            CompletableFuture<String> newStatement = CompletableFuture.supplyAsync(() -> {
                String state = stateOf(held);
                ran.set(true);
                return state;
            }, THREADS);
            try {
                newStatement.get(1, TimeUnit.SECONDS);
                throw new AssertionError("a new statement ran during PAUSE");
            } catch (TimeoutException expected) {
                assertFalse(ran.get());
            }
            assertEquals("paused", only(rows(psql(proxy, "ops", "SHOW CLIENTS")), "server_pid",
                    Long.toString(pidOf(proxy, held))).get("state"));
            RealClients.Result twice = psql(proxy, "ops", "PAUSE");
            assertTrue(twice.err().contains("pgward is already paused"), twice.err());

            RealClients.Result resume = psql(proxy, "ops", "resume");
            assertEquals(0, resume.exit(), resume.err());
            assertEquals("open", newStatement.get(10, TimeUnit.SECONDS), "the held statement ran after RESUME");
            assertTrue(psql(proxy, "ops", "RESUME").err().contains("pgward is not paused"));
        }
    }

    /** A session's backend pid as SHOW SERVERS links it, read without running a statement on the session. */
    private static long pidOf(ProxyFixture proxy, Connection c) throws SQLException {
        return c.unwrap(org.postgresql.PGConnection.class).getBackendPID();
    }

    @Test
    void reloadReportsItsOutcome(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = start(database)) {
            PgwardConfig running = proxy.server().activeConfig();
            AtomicBoolean valid = new AtomicBoolean(true);
            proxy.server().reloadFrom(() -> {
                if (!valid.get()) {
                    throw new ConfigException("logins.app.mode: must be one of read-only, read-write, was \"admin\"");
                }
                Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>(running.logins());
                logins.remove("md5user");
                return running.withLogins(logins);
            }, changed -> { });
            RealClients.Result applied = psql(proxy, "ops", "RELOAD");
            assertEquals(0, applied.exit(), applied.err());
            assertTrue(applied.err().contains("NOTICE:  configuration reloaded"), applied.err());
            assertTrue(applied.err().contains("login \"md5user\" removed"), applied.err());

            valid.set(false);
            RealClients.Result rejected = psql(proxy, "ops", "RELOAD;");
            assertEquals(1, rejected.exit(), rejected.err());
            assertTrue(rejected.err().contains("ERROR:  configuration rejected, the old one stays: logins.app.mode"),
                    rejected.err());
            assertFalse(proxy.server().activeConfig().logins().containsKey("md5user"), "the last good file stays");
        }
    }

    /** pgjdbc's default, the extended protocol, works too; a console session ends when its login stops being admin. */
    @Test
    void aConsoleSessionEndsWhenItsLoginLeavesAdminLogins(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = start(database);
             Connection console = proxy.connectTo("pgward", "ops", new java.util.Properties())) {
            try (Statement s = console.createStatement(); ResultSet rs = s.executeQuery("SHOW LOGINS")) {
                List<String> users = new ArrayList<>();
                while (rs.next()) {
                    users.add(rs.getString("user"));
                }
                assertEquals(List.of("app", "analyst", "md5user", "trusted", "reader", "ops"), users);
            }
            PgwardConfig running = proxy.server().activeConfig();
            proxy.server().reloadFrom(() -> running.withAdmins(List.of()), changed -> { });
            assertEquals(1, proxy.server().reload().sessionsEnded());
            // The session ends once idle, on its event loop, after reload() has returned: until then the console
            // answers SELECT 1 with its syntax error.
            String state = stateOf(console);
            for (int tries = 0; tries < 100 && state.equals("42601"); tries++) {
                Thread.sleep(50);
                state = stateOf(console);
            }
            assertEquals("57P01", state, "the console session ended");
            RealClients.Result refused = psql(proxy, "ops", "SHOW CLIENTS");
            assertTrue(refused.err().contains("permission denied for database \"pgward\""), refused.err());
        }
    }

    /**
     * The console, as PostgreSQL, accepts and ignores CopyData, CopyDone and CopyFail outside a COPY (a client whose
     * COPY failed may still be sending its data), in an error's skip to the Sync as well: on both, each exchange with
     * them is answered exactly as the same exchange without them, and the session goes on.
     */
    @Test
    void copyMessagesOutsideACopyAreIgnoredAsPostgresqlIgnoresThem(TestDatabase database) throws Exception {
        byte[] copy = concat(frame('d', "1\tone\n"), frame('c', ""), frame('f', "the client gave up\0"));
        byte[] failing = frame('D', "Snothing\0");
        byte[] sync = frame('S', "");
        try (ProxyFixture proxy = start(database);
             RawClient postgres = RawClient.loggedIn(database.port(), database.user(), database.password(),
                     database.name());
             RawClient console = RawClient.loggedIn(proxy.port(), "ops", ProxyFixture.PASSWORD, "pgward")) {
            for (RawClient client : List.of(postgres, console)) {
                String who = client == console ? "the console" : "PostgreSQL";
                byte[] query = frame('Q', (client == console ? "SHOW HELP" : "SELECT 1") + "\0");
                List<String> without = client.replies(List.of(query, concat(failing, sync)));
                List<String> with = client.replies(List.of(concat(copy, query), concat(failing, copy, sync), query));
                assertEquals(without, with.subList(0, 2), who);
                assertEquals(without.getFirst(), with.get(2), who + ": the session goes on");
                assertTrue(without.get(1).startsWith("E ERROR 26000 prepared statement \"nothing\" does not exist"),
                        who + ": " + without);
            }
        }
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out");
            }
            Thread.sleep(20);
        }
    }
}
