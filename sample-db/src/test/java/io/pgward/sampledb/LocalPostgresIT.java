package io.pgward.sampledb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

class LocalPostgresIT {

    @Test
    void startsTheRequestedMajorVersionAndRemovesEverythingOnClose() throws Exception {
        int expectedMajor = Integer.parseInt(System.getProperty("pg.version", "17"));
        Path dataDirectory;
        int port;
        try (LocalPostgres postgres = LocalPostgres.start(0)) {
            port = postgres.port();
            try (Connection connection = postgres.connect("postgres");
                 Statement statement = connection.createStatement()) {
                assertEquals(expectedMajor, connection.getMetaData().getDatabaseMajorVersion());
                ResultSet rs = statement.executeQuery("SHOW data_directory");
                rs.next();
                dataDirectory = Path.of(rs.getString(1));
                assertTrue(Files.isDirectory(dataDirectory));
            }
        }
        assertFalse(Files.exists(dataDirectory), "data directory is removed");
        assertFalse(accepts(port), "server is stopped");
    }

    @Test
    void requiresAPasswordOverTcp() {
        try (LocalPostgres postgres = LocalPostgres.start(0)) {
            Properties wrong = new Properties();
            wrong.setProperty("user", "postgres");
            wrong.setProperty("password", "not-" + postgres.password());
            PSQLException e = assertThrows(PSQLException.class,
                    () -> java.sql.DriverManager.getConnection(postgres.jdbcUrl("postgres"), wrong).close());
            assertEquals("28P01", e.getSQLState());
        }
    }

    @Test
    void reportsATakenPortByNumber() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            LocalPostgres.PortInUseException e = assertThrows(LocalPostgres.PortInUseException.class,
                    () -> LocalPostgres.start(taken.getLocalPort()));
            assertEquals("port " + taken.getLocalPort() + " on 127.0.0.1 is already in use", e.getMessage());
        }
    }

    @Test
    void loadsTheSampleDatasetIdenticallyEachTime() throws SQLException {
        try (LocalPostgres postgres = LocalPostgres.start(0)) {
            try (Connection admin = postgres.connect("postgres"); Statement statement = admin.createStatement()) {
                statement.execute("CREATE DATABASE one");
                statement.execute("CREATE DATABASE two");
            }
            assertEquals(fingerprint(postgres, "one"), fingerprint(postgres, "two"));
        }
    }

    private static String fingerprint(LocalPostgres postgres, String database) throws SQLException {
        try (Connection connection = postgres.connect(database)) {
            SampleDataset.load(connection, DatasetSize.SMALL);
            try (Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("""
                         SELECT md5(string_agg(t::text, ',' ORDER BY t::text))
                         FROM (SELECT c::text AS t FROM customers c UNION ALL SELECT o::text FROM orders o
                               UNION ALL SELECT i::text FROM order_items i UNION ALL SELECT p::text FROM products p
                               UNION ALL SELECT s::text FROM hr.salaries s
                               UNION ALL SELECT pt::text FROM payment_tokens pt) AS rows""")) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
