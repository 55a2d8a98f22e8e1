package io.pgward.it;

import io.pgward.testkit.TestDatabase;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Where a real client connects to run a scenario: PostgreSQL itself, or pgward in front of the same database.
 * Scenarios see only a Target (its URL), so one scenario runs unchanged on each, and the outputs can be
 * compared.
 *
 * @param name what reports call it, e.g. {@code postgres} or {@code pgward}
 * @param host host the client connects to
 * @param port port the client connects to
 * @param database database name as the client asks for it
 * @param user login the client presents
 * @param password that login's password (never printed: see {@link #toString()})
 */
record Target(String name, String host, int port, String database, String user, String password) {

    /** The test database on PostgreSQL itself, with the role that owns it. */
    static Target direct(TestDatabase database) {
        return new Target("postgres", database.host(), database.port(), database.name(), database.user(),
                database.password());
    }

    /** The same endpoint under another name, e.g. for a second, independent run. */
    Target named(String otherName) {
        return new Target(otherName, host, port, database, user, password);
    }

    /** A libpq URI with the password, for psql, pgbench and the Node and Python drivers. */
    String uri() {
        return "postgresql://" + encode(user) + ":" + encode(password) + "@" + host + ":" + port + "/"
                + encode(database);
    }

    String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    Connection connect() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        return DriverManager.getConnection(jdbcUrl(), props);
    }

    @Override
    public String toString() {
        return name + "[" + user + "@" + host + ":" + port + "/" + database + "]";
    }

    private static String encode(String part) {
        return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
