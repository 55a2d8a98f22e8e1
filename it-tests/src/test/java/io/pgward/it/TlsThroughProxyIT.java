package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pgward.sampledb.LocalPostgres;
import io.pgward.sampledb.PostgresBinaries;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.SqlState;
import io.pgward.wire.net.SelfSignedCertificate;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS on both sides of pgward: clients to pgward, and pgward to a PostgreSQL that requires it. */
@PostgresTest
class TlsThroughProxyIT {

    @TempDir
    static Path certificates;
    private static SelfSignedCertificate.PemFiles pem;
    private static TestDatabase database;
    private static ProxyFixture tlsAllowed;
    private static ProxyFixture tlsRequired;

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        pem = SelfSignedCertificate.write(certificates);
        Path[] files = {pem.certificate(), pem.key()};
        tlsAllowed = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, files, PgwardConfig.TlsMode.ALLOW, 4);
        tlsRequired = ProxyFixture.start(db, ProxyFixture.STANDARD_GATES, files, PgwardConfig.TlsMode.REQUIRE, 4);
    }

    @AfterAll
    static void stop() {
        tlsAllowed.close();
        tlsRequired.close();
    }

    @Test
    void pgjdbcConnectsWithVerifyFull() throws SQLException {
        Properties props = tlsProps("verify-full");
        try (Connection c = tlsAllowed.connect("app", props); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
        }
    }

    @Test
    void tlsRequireRefusesPlaintext() throws SQLException {
        Properties plain = new Properties();
        plain.setProperty("sslmode", "disable");
        SQLException e = assertThrows(SQLException.class, () -> tlsRequired.connect("app", plain));
        assertEquals(SqlState.INVALID_AUTHORIZATION_SPECIFICATION, e.getSQLState());
        try (Connection c = tlsRequired.connect("app", tlsProps("require"))) {
            assertTrue(c.isValid(5));
        }
    }

    @Test
    void plaintextSentAfterSslRequestIsAProtocolViolation() throws Exception {
        // Bytes that arrive with the SSLRequest, before any handshake, could be injected by a man in the
        // middle: pgward does not even agree to TLS, it answers with a FATAL error and closes.
        try (RawClient client = new RawClient(tlsAllowed.port())) {
            client.raw(ByteBuffer.allocate(9).putInt(8).putInt(80877103).put((byte) 'Q').array());
            List<RawClient.Message> reply = client.readUntilClosed();
            assertEquals(1, reply.size());
            assertEquals(SqlState.PROTOCOL_VIOLATION, reply.get(0).fields().get('C'));
            assertEquals("received unencrypted data after SSL request", reply.get(0).fields().get('M'));
        }
    }

    @Test
    void aClientCannotRenegotiate() throws Exception {
        try (Socket plain = new Socket("127.0.0.1", tlsAllowed.port())) {
            plain.getOutputStream().write(ByteBuffer.allocate(8).putInt(8).putInt(80877103).array());
            assertEquals('S', plain.getInputStream().read());
            try (SSLSocket tls = (SSLSocket) trustingAll().getSocketFactory()
                    .createSocket(plain, "localhost", tlsAllowed.port(), true)) {
                tls.setEnabledProtocols(new String[] {"TLSv1.2"});
                tls.startHandshake();
                // A second handshake on an established TLS 1.2 session sends a new ClientHello: renegotiation.
                tls.startHandshake();
                byte[] startup = startupMessage("app", "postgres");
                SSLException refused = assertThrows(SSLException.class, () -> {
                    tls.getOutputStream().write(startup);
                    tls.getOutputStream().flush();
                    tls.getInputStream().read();
                });
                assertTrue(refused.getMessage().contains("handshake_failure"), refused.getMessage());
            }
        }
    }

    private static byte[] startupMessage(String user, String database) {
        byte[] body = ("user\0" + user + "\0database\0" + database + "\0\0").getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + body.length).putInt(8 + body.length).putInt(196608).put(body).array();
    }

    /** A client context that trusts any certificate: the certificate is not what these tests are about. */
    private static SSLContext trustingAll() throws java.security.GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {new TrustingAll()}, null);
        return context;
    }

    private static final class TrustingAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    @Test
    void psqlConnectsWithSslmodeRequire() throws Exception {
        Path psql = RealClients.require("psql");
        RealClients.Result result = RealClients.run(List.of(psql.toString(),
                tlsRequired.uri("app") + "?sslmode=require", "-At", "-c", "SELECT 'over tls'"));
        assertEquals(0, result.exit(), result.err());
        assertEquals("over tls", result.out().strip());
    }

    @Test
    void psqlConnectsWithChannelBindingRequired() throws Exception {
        Path psql = RealClients.require("psql");
        RealClients.Result result = RealClients.run(List.of(psql.toString(),
                tlsRequired.uri("app") + "?sslmode=require&channel_binding=require", "-At", "-c", "SELECT 'bound'"));
        assertEquals(0, result.exit(), result.err());
        assertEquals("bound", result.out().strip());
    }

    @Test
    void pgjdbcConnectsWithChannelBindingRequired() throws SQLException {
        Properties props = tlsProps("require");
        props.setProperty("channelBinding", "require");
        try (Connection c = tlsAllowed.connect("app", props)) {
            assertTrue(c.isValid(5));
        }
        // Without TLS there is no certificate to bind: pgward offers no -PLUS, and the driver refuses to go on.
        Properties plain = new Properties();
        plain.setProperty("sslmode", "disable");
        plain.setProperty("channelBinding", "require");
        assertThrows(SQLException.class, () -> tlsAllowed.connect("app", plain));
    }

    @Test
    void psqlConnectsWithDirectTls() throws Exception {
        // psql reads connection options through libpq: the libpq of the PostgreSQL binaries the tests run (17 and
        // later know sslnegotiation) makes the installed psql a client of PostgreSQL 17's direct TLS.
        Path lib = PostgresBinaries.install().resolve("lib");
        int libpqMajor;
        try (Stream<Path> files = Files.list(lib)) {
            libpqMajor = files.map(f -> f.getFileName().toString()).filter(n -> n.matches("libpq\\.so\\.5\\.\\d+"))
                    .mapToInt(n -> Integer.parseInt(n.substring("libpq.so.5.".length()))).max().orElse(0);
        }
        assumeTrue(libpqMajor >= 17, "libpq " + libpqMajor + " has no direct TLS");
        Path psql = RealClients.require("psql");
        RealClients.Result result = RealClients.run(List.of(psql.toString(), tlsRequired.uri("app")
                        + "?sslmode=require&sslnegotiation=direct&channel_binding=require", "-At", "-c",
                        "SELECT 'direct'"), certificates, Map.of("LD_LIBRARY_PATH", lib.toString()));
        assertEquals(0, result.exit(), result.err());
        assertEquals("direct", result.out().strip());
    }

    @Test
    void pgjdbcConnectsWithDirectTls() throws SQLException {
        Properties props = tlsProps("require");
        props.setProperty("sslNegotiation", "direct");
        try (Connection c = tlsRequired.connect("app", props); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 'direct'")) {
            assertTrue(rs.next());
            assertEquals("direct", rs.getString(1));
        }
    }

    @Test
    void aDirectTlsConnectionWithoutAlpnIsClosedAsPostgresClosesIt() throws Exception {
        for (boolean alpn : new boolean[] {true, false}) {
            try (SSLSocket tls = (SSLSocket) trustingAll().getSocketFactory().createSocket("127.0.0.1",
                    tlsAllowed.port())) {
                if (alpn) {
                    SSLParameters parameters = tls.getSSLParameters();
                    parameters.setApplicationProtocols(new String[] {"postgresql"});
                    tls.setSSLParameters(parameters);
                }
                tls.startHandshake();
                tls.getOutputStream().write(startupMessage("app", "postgres"));
                tls.getOutputStream().flush();
                // With ALPN: AuthenticationSASL ('R'). Without: closed, no answer (PostgreSQL only logs it).
                assertEquals(alpn ? 'R' : -1, tls.getInputStream().read(), "ALPN " + alpn);
            }
        }
    }

    @Test
    void aClientHelloToAPgwardWithoutTlsIsClosedWithoutAPlaintextAnswer() throws Exception {
        try (ProxyFixture plain = ProxyFixture.start(database, ProxyFixture.STANDARD_GATES, null,
                PgwardConfig.TlsMode.DISABLE, 2); Socket socket = new Socket("127.0.0.1", plain.port())) {
            // The start of a TLS record holding a ClientHello.
            socket.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x00, 0x40, 0x01, 0x00, 0x00, 0x3c, 0x03});
            assertEquals(-1, socket.getInputStream().read());
        }
    }

    @Test
    void pgwardReachesAPostgresThatRequiresTls() throws SQLException {
        try (LocalPostgres secured = LocalPostgres.start(0, pem.certificate(), pem.key())) {
            for (PgwardConfig.SslMode mode : List.of(PgwardConfig.SslMode.REQUIRE, PgwardConfig.SslMode.VERIFY_FULL)) {
                try (ProxyFixture proxy = inFrontOf(secured, mode, pem.certificate());
                     Connection c = proxy.connect("app"); Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
                    assertTrue(rs.next());
                    assertTrue(rs.getBoolean(1), mode + " encrypts the backend connection");
                }
            }
        }
    }

    @Test
    void verifyFullRefusesAServerCertificateItDoesNotTrust(@TempDir Path other) {
        SelfSignedCertificate.PemFiles stranger = SelfSignedCertificate.write(other);
        try (LocalPostgres secured = LocalPostgres.start(0, pem.certificate(), pem.key());
             ProxyFixture proxy = inFrontOf(secured, PgwardConfig.SslMode.VERIFY_FULL, stranger.certificate())) {
            SQLException e = assertThrows(SQLException.class, () -> proxy.connect("app"));
            assertEquals(SqlState.CONNECTION_FAILURE, e.getSQLState());
        }
    }

    /** pgward in front of the secured server's own postgres database, reaching it over TLS with {@code mode}. */
    private static ProxyFixture inFrontOf(LocalPostgres secured, PgwardConfig.SslMode mode, Path root) {
        TestDatabase postgres = new TestDatabase("127.0.0.1", secured.port(), "postgres", secured.superuser(),
                secured.password(), database.serverMajor());
        return ProxyFixture.start(postgres, ProxyFixture.STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 2,
                ProxyFixture.backendTls(mode, root));
    }

    private static Properties tlsProps(String mode) {
        Properties props = new Properties();
        props.setProperty("ssl", "true");
        props.setProperty("sslmode", mode);
        props.setProperty("sslrootcert", pem.certificate().toString());
        return props;
    }
}
