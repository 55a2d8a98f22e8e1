package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.scram.ScramVerifier;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.config.Secret;
import io.pgward.wire.protocol.SqlState;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Protocol details a proxy easily gets wrong: every one must look exactly as PostgreSQL makes it look. */
@PostgresTest
class ProtocolDetailsIT {

    @Test
    void answersGssEncRequestWithN(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(database); RawClient client = new RawClient(proxy.port())) {
            client.raw(ByteBuffer.allocate(8).putInt(8).putInt(80877104).array());
            assertEquals('N', client.readByte());
            client.startup(Map.of("user", "trusted", "database", database.name()));
            assertEquals('R', client.readUntilReady().get(0).type(), "the startup continues after the N");
        }
    }

    @Test
    void relaysParameterStatusAndNotices(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(database);
             RawClient client = RawClient.loggedIn(proxy.port(), "trusted", database.name())) {
            client.query("SET application_name = 'seen by the client'");
            List<RawClient.Message> reply = client.readUntilReady();
            assertTrue(reply.stream().anyMatch(m -> m.type() == 'S'
                    && m.text().equals("application_name\0seen by the client\0")), reply.toString());
            client.query("DO $$ BEGIN RAISE NOTICE 'from the server'; END $$");
            List<RawClient.Message> notice = client.readUntilReady();
            assertEquals('N', notice.get(0).type());
            assertEquals("from the server", notice.get(0).fields().get('M'));
        }
        try (ProxyFixture proxy = ProxyFixture.start(database); Connection c = proxy.connect("app");
             Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN RAISE WARNING 'careful'; END $$");
            SQLWarning warning = s.getWarnings();
            assertEquals("careful", warning.getMessage());
        }
    }

    @Test
    void aClientThatSendsNoStartupPacketIsClosedQuietlyAfterTheStartupTimeout(TestDatabase database) throws Exception {
        // PostgreSQL's startup-packet timeout ends the connection without a message.
        try (ProxyFixture proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 2,
                shortStartupTimeout());
             RawClient client = new RawClient(proxy.port())) {
            assertEquals(List.of(), client.readUntilClosed());
        }
    }

    @Test
    void aClientThatDoesNotFinishLoggingInGetsTheFatalAfterTheStartupTimeout(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 2,
                shortStartupTimeout());
             RawClient client = new RawClient(proxy.port())) {
            client.startup(Map.of("user", "app", "database", database.name()));
            List<RawClient.Message> reply = client.readUntilClosed();
            assertEquals('R', reply.get(0).type(), "asked for the SCRAM exchange");
            assertEquals(2, reply.size(), reply.toString());
            assertEquals("canceling authentication due to timeout", reply.get(1).fields().get('M'));
        }
    }

    private static java.util.function.UnaryOperator<PgwardConfig> shortStartupTimeout() {
        return config -> config.withStartupTimeout(Duration.ofMillis(300));
    }

    @Test
    void aFullPoolMakesTheNextClientWaitThenFailWithTooManyConnections(TestDatabase database) throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 1,
                config -> config.withPool(new PgwardConfig.Pool(1, Duration.ofMillis(500))))) {
            try (Connection first = proxy.connect("app")) {
                SQLException e = assertThrows(SQLException.class, () -> proxy.connect("app"));
                assertEquals(SqlState.TOO_MANY_CONNECTIONS, e.getSQLState());
                assertTrue(e.getMessage().contains("pool.max_size is 1"), e.getMessage());
                assertTrue(first.isValid(2));
            }
            try (Connection next = proxy.connect("app")) {
                assertTrue(next.isValid(2), "the place is free again once the first client left");
            }
        }
    }

    @Test
    void acceptsAStoredScramVerifierInsteadOfAPassword(TestDatabase database) throws Exception {
        String verifier = ScramVerifier.fromPassword(ProxyFixture.PASSWORD).encoded();
        try (ProxyFixture proxy = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 2,
                config -> {
                    Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>(config.logins());
                    logins.put("hashed", new PgwardConfig.Login("hashed", PgwardConfig.AuthMethod.SCRAM_SHA_256,
                            null, new Secret(verifier), database.user(), new Secret(database.password()),
                            PgwardConfig.Mode.READ_WRITE));
                    return config.withLogins(logins);
                });
             Connection c = proxy.connect("hashed")) {
            assertTrue(c.isValid(2));
        }
    }
}
