package io.pgward.testkit;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * One database on the test PostgreSQL, owned by one test class.
 *
 * @param host server host
 * @param port server port
 * @param name database name
 * @param user a role that owns the database (a superuser on the embedded server)
 * @param password that role's password
 * @param serverMajor PostgreSQL major version of the server, e.g. 17
 */
public record TestDatabase(String host, int port, String name, String user, String password, int serverMajor) {

    public String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + name;
    }

    /** A libpq URI for psql, pgbench and the Python and Node drivers. */
    public String uri() {
        return "postgresql://" + encode(user) + ":" + encode(password) + "@" + host + ":" + port + "/" + encode(name);
    }

    public Connection connect() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        return DriverManager.getConnection(jdbcUrl(), props);
    }

    @Override
    public String toString() {
        return "TestDatabase[" + user + "@" + host + ":" + port + "/" + name + ", PostgreSQL " + serverMajor + "]";
    }

    private static String encode(String part) {
        return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
