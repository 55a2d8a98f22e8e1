package io.pgward.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import org.junit.jupiter.api.Test;

/** Runs where a Docker engine answers; elsewhere it is reported as skipped, never as failed. */
class ContainerServerIT {

    @Test
    void startsTheRequestedMajorInAContainer() throws Exception {
        int major = Integer.parseInt(System.getProperty("pg.version", "17"));
        PostgresServer server = ContainerServer.start(major);
        try (Connection connection = server.connectAdmin()) {
            assertEquals(major, connection.getMetaData().getDatabaseMajorVersion());
        }
    }
}
