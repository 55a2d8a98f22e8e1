package io.pgward.arango;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An https endpoint, verified against a configured root certificate (the JDK's keytool makes one). */
class TlsEndpointTest {

    private static final char[] STORE_PASSWORD = "changeit".toCharArray();

    @TempDir
    static Path dir;
    private static SSLContext serverTls;
    private static Path certificatePem;

    @BeforeAll
    static void makeCertificate() throws Exception {
        Path keystore = dir.resolve("server.p12");
        certificatePem = dir.resolve("server.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", "arango", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", keystore.toString(), "-storepass", "changeit");
        run(keytool, "-exportcert", "-rfc", "-alias", "arango", "-keystore", keystore.toString(),
                "-storepass", "changeit", "-file", certificatePem.toString());
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, STORE_PASSWORD);
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, STORE_PASSWORD);
        serverTls = SSLContext.getInstance("TLS");
        serverTls.init(keys.getKeyManagers(), null, null);
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), String.join(" ", command) + "\n" + output);
    }

    @Test
    void anHttpsEndpointWithATrustedCertificateServesQueries() {
        try (FakeArango fake = FakeArango.startTls(serverTls).requireBasic("reader", "pw");
             ArangoBridge bridge = ArangoBridge.start(ArangoConfig.of("docs", fake.endpoint(), "shop",
                     new ArangoAuth.UserPassword("reader", "pw")).withRootCertificate(certificatePem))) {
            assertTrue(fake.endpoint().startsWith("https://"));
            fake.reads("RETURN 'over tls'").rows("RETURN 'over tls'", "[\"over tls\"]");
            assertEquals(List.of(List.of("over tls")),
                    bridge.run("RETURN 'over tls'", ExecutionMode.READ_ONLY).rows());
        }
    }

    @Test
    void anUntrustedCertificateIsAnEndpointFailure() {
        try (FakeArango fake = FakeArango.startTls(serverTls)) {
            ArangoStartupException e = assertThrows(ArangoStartupException.class, () -> ArangoBridge.start(
                    ArangoConfig.of("docs", fake.endpoint(), "shop", new ArangoAuth.UserPassword("reader", "pw"))));

            assertEquals(ArangoStartupException.Part.ENDPOINT, e.part());
            assertTrue(e.getMessage().startsWith("arango.docs: endpoint " + fake.endpoint() + " cannot be reached ("),
                    e.getMessage());
            assertEquals(List.of(), fake.requests(), "nothing was sent over an unverified connection");
        }
    }

    @Test
    void aRootCertificateNeedsAnHttpsEndpoint() {
        assertEquals("root_certificate: only applies to an https endpoint",
                assertThrows(IllegalArgumentException.class, () -> ArangoConfig.of("docs", "http://h", "shop",
                        new ArangoAuth.Token("t")).withRootCertificate(certificatePem)).getMessage());
    }
}
