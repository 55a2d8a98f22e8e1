package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.SqlStates;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.protocol.SqlState;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.copy.CopyManager;

/** pgjdbc through pgward behaves as against PostgreSQL: the features BI tools and ORMs lean on. */
@PostgresTest(sampleData = SampleData.SMALL)
class PgjdbcThroughProxyIT {

    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        proxy = ProxyFixture.start(db);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void serverPreparedStatementsWithBinaryTransferReturnTheSameValuesAsADirectConnection() throws SQLException {
        String sql = "SELECT orders.id, name, total, ordered_at, status::text, ?::uuid, ?::bytea FROM orders "
                + "JOIN customers c ON c.id = orders.customer_id WHERE orders.id = ?";
        Properties props = new Properties();
        props.setProperty("prepareThreshold", "1");
        props.setProperty("binaryTransfer", "true");
        UUID uuid = UUID.fromString("1c0ffee0-0000-4000-8000-000000000042");
        byte[] bytes = {0, 1, 2, (byte) 0xff};
        try (Connection viaProxy = proxy.connect("app", props); Connection direct = database.connect()) {
            for (int id = 1; id <= 8; id++) {
                assertEquals(row(direct, sql, uuid, bytes, id), row(viaProxy, sql, uuid, bytes, id));
            }
        }
    }

    private static List<Object> row(Connection connection, String sql, UUID uuid, byte[] bytes, int id)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setObject(1, uuid);
            ps.setBytes(2, bytes);
            ps.setInt(3, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                List<Object> row = new ArrayList<>();
                row.add(rs.getInt(1));
                row.add(rs.getString(2));
                row.add(rs.getBigDecimal(3));
                row.add(rs.getObject(4, OffsetDateTime.class));
                row.add(rs.getString(5));
                row.add(rs.getObject(6));
                row.add(java.util.HexFormat.of().formatHex(rs.getBytes(7)));
                return row;
            }
        }
    }

    @Test
    void batchInsertsReturnGeneratedKeys() throws SQLException {
        try (Connection c = proxy.connect("app")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE batch_target (id bigint GENERATED ALWAYS AS IDENTITY, label text)");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO batch_target (label) VALUES (?)",
                    Statement.RETURN_GENERATED_KEYS)) {
                for (int i = 0; i < 50; i++) {
                    ps.setString(1, "row " + i);
                    ps.addBatch();
                }
                assertEquals(50, ps.executeBatch().length);
                List<Long> keys = new ArrayList<>();
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    while (rs.next()) {
                        keys.add(rs.getLong(1));
                    }
                }
                assertEquals(50, keys.size());
                assertEquals(1L, keys.get(0));
                assertEquals(50L, keys.get(49));
            }
        }
    }

    @Test
    void fetchSizeCursorsStreamInPortions() throws SQLException {
        try (Connection c = proxy.connect("app")) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.setFetchSize(7);
                long sum = 0;
                int rows = 0;
                try (ResultSet rs = s.executeQuery("SELECT g FROM generate_series(1, 1000) g")) {
                    while (rs.next()) {
                        sum += rs.getInt(1);
                        rows++;
                    }
                }
                assertEquals(1000, rows);
                assertEquals(500_500, sum);
            }
            c.commit();
        }
    }

    @Test
    void databaseMetaDataListsTablesAndColumns() throws SQLException {
        try (Connection c = proxy.connect("app")) {
            DatabaseMetaData meta = c.getMetaData();
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = meta.getTables(null, "public", "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    tables.add(rs.getString("TABLE_NAME"));
                }
            }
            assertTrue(tables.containsAll(List.of("customers", "orders", "order_items", "products")), tables.toString());
            try (ResultSet rs = meta.getColumns(null, "public", "orders", "total")) {
                assertTrue(rs.next());
                assertEquals("numeric", rs.getString("TYPE_NAME"));
            }
            assertEquals(database.serverMajor(), meta.getDatabaseMajorVersion());
        }
    }

    @Test
    void statementCancelStopsALongQuery() throws Exception {
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement()) {
            CompletableFuture<SQLException> outcome = CompletableFuture.supplyAsync(() -> {
                try {
                    s.execute("SELECT pg_sleep(30)");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            // Cancel only once the backend is really running the sleep, seen from a second session.
            try (Connection watcher = database.connect(); Statement w = watcher.createStatement()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                boolean running = false;
                while (!running && System.nanoTime() < deadline) {
                    try (ResultSet rs = w.executeQuery(
                            "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'")) {
                        rs.next();
                        running = rs.getInt(1) == 1;
                    }
                }
                assertTrue(running, "the sleep started");
            }
            s.cancel();
            SQLException e = outcome.get(10, TimeUnit.SECONDS);
            assertEquals(SqlState.QUERY_CANCELED, e.getSQLState());
            try (ResultSet rs = s.executeQuery("SELECT 1")) {
                assertTrue(rs.next(), "the session is usable after the cancel");
            }
        }
    }

    @Test
    void copyInAndOutThroughCopyManager() throws Exception {
        try (Connection c = proxy.connect("app")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE copy_target (id int, label text)");
            }
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            long in = copy.copyIn("COPY copy_target FROM STDIN (FORMAT csv)", new StringReader("1,one\n2,two\n3,\"th,ree\"\n"));
            assertEquals(3, in);
            StringWriter out = new StringWriter();
            copy.copyOut("COPY (SELECT * FROM copy_target ORDER BY id) TO STDOUT (FORMAT csv)", out);
            assertEquals("1,one\n2,two\n3,\"th,ree\"\n", out.toString());
        }
    }

    @Test
    void listenNotifyCrossesTheProxy() throws Exception {
        try (Connection listener = proxy.connect("app"); Connection notifier = proxy.connect("app")) {
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN pgward_events");
            }
            try (Statement s = notifier.createStatement()) {
                s.execute("NOTIFY pgward_events, 'hello'");
            }
            PGNotification[] notes = listener.unwrap(PGConnection.class).getNotifications(10_000);
            assertEquals(1, notes.length);
            assertEquals("pgward_events", notes[0].getName());
            assertEquals("hello", notes[0].getParameter());
        }
    }

    @Test
    void errorsKeepTheirPositionAndSqlState() throws SQLException {
        try (Connection c = proxy.connect("app"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT nosuchcolumn FROM orders"));
            assertEquals(SqlStates.UNDEFINED_COLUMN, e.getSQLState());
            assertEquals(8, ((org.postgresql.util.PSQLException) e).getServerErrorMessage().getPosition());
        }
    }

    @Test
    void everyAuthenticationMethodWorksAndWrongPasswordsGetPostgresText() throws SQLException {
        for (String login : List.of("app", "md5user", "trusted", "analyst")) {
            try (Connection c = proxy.connect(login); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT current_user")) {
                assertTrue(rs.next(), login);
                assertEquals(database.user(), rs.getString(1));
            }
        }
        for (String login : List.of("app", "md5user", "nosuchlogin")) {
            Properties wrong = new Properties();
            wrong.setProperty("user", login);
            wrong.setProperty("password", "wrong");
            SQLException e = assertThrows(SQLException.class,
                    () -> java.sql.DriverManager.getConnection(proxy.jdbcUrl(), wrong));
            assertEquals(SqlState.INVALID_PASSWORD, e.getSQLState());
            assertEquals("FATAL: password authentication failed for user \"" + login + "\"", e.getMessage());
        }
    }

    @Test
    void readOnlyLoginsAreGuarded() throws SQLException {
        try (Connection c = proxy.connect("analyst"); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.execute("CREATE TABLE nope (id int)"));
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.getSQLState());
            assertEquals("pgward refused this query: CREATE TABLE is not allowed for the read-only login "
                    + "\"analyst\"", ((org.postgresql.util.PSQLException) e).getServerErrorMessage().getMessage());
            try (ResultSet rs = s.executeQuery("SELECT sum(total) FROM orders")) {
                assertTrue(rs.next());
                assertTrue(rs.getBigDecimal(1).compareTo(BigDecimal.ZERO) > 0);
            }
        }
    }

    @Test
    void pooledBackendsAreReusedAndResetBetweenClients() throws SQLException {
        // Backends left idle by other tests hold the role's pool places with other startup parameters; a place
        // taken by evicting one of them would count as a new backend here.
        proxy.server().pool().closeIdle();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (proxy.server().pool().open(database.user(), database.name()) > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        java.util.List<String> served = new java.util.ArrayList<>();
        java.util.Set<String> pids = new java.util.HashSet<>();
        for (int i = 0; i < 6; i++) {
            try (Connection c = proxy.connect("app"); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid(), current_setting('search_path'), "
                        + "(SELECT count(*) FROM pg_prepared_statements WHERE name = 'leftover'), "
                        + "current_setting('application_name')")) {
                    rs.next();
                    pids.add(rs.getString(1));
                    served.add(rs.getString(1));
                    assertEquals("\"$user\", public", rs.getString(2), "search_path reset");
                    assertEquals(0, rs.getInt(3), "prepared statements discarded");
                    assertEquals("PostgreSQL JDBC Driver", rs.getString(4));
                }
                s.execute("SET search_path = pg_catalog");
                s.execute("PREPARE leftover AS SELECT 1");
            }
            awaitIdle();
        }
        // Sessions go back to the pool of their I/O thread, so at most one backend per thread is ever needed.
        assertTrue(pids.size() <= proxy.server().ioThreads(), "backends reused, in order: " + served);
    }

    private static void awaitIdle() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (proxy.server().sessions() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        // Every open backend idle: a reset still in flight on one I/O thread would make the next client of that
        // thread open a new backend while another thread's idle one already counts.
        while (!allIdle() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    private static boolean allIdle() {
        var pool = proxy.server().pool();
        int idle = pool.idle(database.user(), database.name());
        return idle > 0 && idle == pool.open(database.user(), database.name());
    }

    @Test
    void bytesComeBackUntouched() throws SQLException {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        try (Connection c = proxy.connect("app"); PreparedStatement ps = c.prepareStatement("SELECT ?::bytea")) {
            ps.setBytes(1, all);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertArrayEquals(all, rs.getBytes(1));
            }
        }
    }
}
