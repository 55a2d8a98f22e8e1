package io.pgward.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ExternalServerUrlTest {

    @Test
    void readsALibpqUri() {
        PostgresServer server = ExternalServerUrl.parse("postgresql://ci:p%40ss@db.local:6543/admin");
        assertEquals("db.local", server.host());
        assertEquals(6543, server.port());
        assertEquals("ci", server.user());
        assertEquals("p@ss", server.password());
        assertEquals("admin", server.adminDatabase());
    }

    @Test
    void readsAJdbcUrlWithCredentialsInTheQuery() {
        PostgresServer server = ExternalServerUrl.parse("jdbc:postgresql://10.0.0.5/postgres?user=ci&password=s3cret");
        assertEquals("10.0.0.5", server.host());
        assertEquals(5432, server.port());
        assertEquals("ci", server.user());
        assertEquals("s3cret", server.password());
        assertEquals("postgres", server.adminDatabase());
    }

    @Test
    void defaultsToThePostgresDatabase() {
        assertEquals("postgres", ExternalServerUrl.parse("postgres://u:p@h:1").adminDatabase());
    }

    @Test
    void refusesOtherSchemes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ExternalServerUrl.parse("mysql://u:p@h/db"));
        assertEquals("PGWARD_TEST_PG_URL must start with postgresql://, postgres:// or jdbc:postgresql:// "
                + "(was mysql://...)", e.getMessage());
    }

    @Test
    void makesDatabaseNamesThatFitPostgresIdentifiers() {
        String name = PostgresExtension.databaseName("AVeryLongTestClassNameThatGoesOnAndOnAndOnForeverAndEverIT");
        assertEquals(true, name.length() <= 63, name);
        assertEquals(true, name.matches("t_[a-z0-9_]+"), name);
    }
}
