package io.pgward.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Where test databases are created: host, port and a role allowed to CREATE DATABASE.
 *
 * @param adminDatabase the database to connect to for CREATE and DROP DATABASE
 */
record PostgresServer(String host, int port, String user, String password, String adminDatabase, String origin) {

    Connection connect(String database) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + database, props);
    }

    Connection connectAdmin() throws SQLException {
        return connect(adminDatabase);
    }

    @Override
    public String toString() {
        return origin + " at " + host + ":" + port;
    }
}
