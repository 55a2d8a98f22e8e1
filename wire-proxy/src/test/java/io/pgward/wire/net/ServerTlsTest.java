package io.pgward.wire.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import io.pgward.wire.config.ConfigException;
import io.pgward.wire.config.PgwardConfig.Tls;
import io.pgward.wire.config.PgwardConfig.TlsMode;
import io.pgward.wire.net.SelfSignedCertificate.KeyType;
import io.pgward.wire.net.SelfSignedCertificate.PemFiles;
import java.io.IOException;
import java.math.BigInteger;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLEngine;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerTlsTest {

    @TempDir
    Path dir;

    @Test
    void buildsNoContextWhenTlsIsDisabled() {
        assertNull(ServerTls.forClients(new Tls(TlsMode.DISABLE, null, null)));
    }

    @Test
    void offersOnlyAuthenticatedEncryption() {
        PemFiles files = SelfSignedCertificate.write(dir);
        SslContext context = ServerTls.forClients(new Tls(TlsMode.REQUIRE, files.certificate(), files.key()));
        SSLEngine engine = context.newEngine(ByteBufAllocator.DEFAULT);
        try {
            List<String> suites = List.of(engine.getEnabledCipherSuites());
            assertTrue(suites.contains("TLS_AES_128_GCM_SHA256"), suites.toString());
            for (String suite : suites) {
                assertTrue((suite.contains("_GCM_") || suite.contains("CHACHA20_POLY1305")) && !suite.contains("CBC")
                        && (suite.startsWith("TLS_AES") || suite.startsWith("TLS_CHACHA20")
                        || suite.contains("DHE_")), suite);
            }
        } finally {
            ReferenceCountUtil.release(engine);
        }
    }

    @Test
    void offersOnlyTls12And13() {
        PemFiles files = SelfSignedCertificate.write(dir);
        SslContext context = ServerTls.forClients(new Tls(TlsMode.REQUIRE, files.certificate(), files.key()));
        assertTrue(context.isServer());
        SSLEngine engine = context.newEngine(ByteBufAllocator.DEFAULT);
        try {
            assertEquals(Set.of("TLSv1.2", "TLSv1.3"), Set.of(engine.getEnabledProtocols()));
        } finally {
            ReferenceCountUtil.release(engine);
        }
    }

    @Test
    void readsAnEcKeyInSec1FormWithTheEcParametersBlockOpensslWritesFirst() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        // What `openssl ecparam -name prime256v1 -genkey` prints: the curve's OID, then the key.
        Files.writeString(files.key(), "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
                + sec1(files, true));

        assertNotNull(ServerTls.forClients(new Tls(TlsMode.ALLOW, files.certificate(), files.key())));
    }

    @Test
    void readsAnEcKeyInSec1FormWithoutTheOptionalPublicKey() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        Files.writeString(files.key(), sec1(files, false));

        assertNotNull(ServerTls.forClients(new Tls(TlsMode.ALLOW, files.certificate(), files.key())));
    }

    @Test
    void readsAnRsaKeyInPkcs1Form() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir, KeyType.RSA_2048, List.of("localhost"));
        String pkcs1 = pkcs1(Pem.privateKey("tls.key", files.key()));
        assertTrue(pkcs1.startsWith("-----BEGIN RSA PRIVATE KEY-----"), pkcs1);
        Files.writeString(files.key(), pkcs1);

        assertNotNull(ServerTls.forClients(new Tls(TlsMode.ALLOW, files.certificate(), files.key())));
    }

    @Test
    void ignoresTextAroundThePemBlocksAsOpensslX509TextLeavesIt() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        Files.writeString(files.certificate(), "Certificate:\n    Data:\n        Version: 3 (0x2)\n"
                + Files.readString(files.certificate()) + "trailing notes\n");

        assertNotNull(ServerTls.forClients(new Tls(TlsMode.ALLOW, files.certificate(), files.key())));
    }

    @Test
    void namesAMissingCertificateFile() {
        PemFiles files = SelfSignedCertificate.write(dir);
        Path missing = dir.resolve("missing.crt");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerTls.forClients(new Tls(TlsMode.REQUIRE, missing, files.key())));
        assertEquals("tls.certificate: file " + missing + " does not exist", e.getMessage());
    }

    @Test
    void namesACertificateFileThatIsNotPem() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        Path der = Files.write(dir.resolve("server.der"), SelfSignedCertificateTest.parse(files.certificate()).getEncoded());
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerTls.forClients(new Tls(TlsMode.REQUIRE, der, files.key())));
        assertEquals("tls.certificate: file " + der + " is not a PEM certificate file "
                + "(no -----BEGIN CERTIFICATE----- block)", e.getMessage());
    }

    @Test
    void namesAKeyFileGivenWhereTheCertificateBelongs() {
        PemFiles files = SelfSignedCertificate.write(dir);
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerTls.forClients(new Tls(TlsMode.REQUIRE, files.key(), files.key())));
        assertTrue(e.getMessage().startsWith("tls.certificate: file " + files.key() + " is not a PEM certificate"),
                e.getMessage());
    }

    @Test
    void namesAKeyFileWithoutAKey() {
        PemFiles files = SelfSignedCertificate.write(dir);
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerTls.forClients(new Tls(TlsMode.REQUIRE, files.certificate(), files.certificate())));
        assertEquals("tls.key: file " + files.certificate() + " is not a PEM private key file (no -----BEGIN PRIVATE "
                + "KEY-----, -----BEGIN RSA PRIVATE KEY----- or -----BEGIN EC PRIVATE KEY----- block)", e.getMessage());
    }

    @Test
    void namesAKeyFileWithBrokenBase64() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        Files.writeString(files.key(), "-----BEGIN PRIVATE KEY-----\n!!not base64!!\n-----END PRIVATE KEY-----\n");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerTls.forClients(new Tls(TlsMode.REQUIRE, files.certificate(), files.key())));
        assertTrue(e.getMessage().startsWith("tls.key: file " + files.key() + " is not valid PEM: "), e.getMessage());
    }

    @Test
    void namesAKeyFileCutOffBeforeItsEndLine() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        String pem = Files.readString(files.key());
        Files.writeString(files.key(), pem.substring(0, pem.indexOf("-----END")));
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerTls.forClients(new Tls(TlsMode.REQUIRE, files.certificate(), files.key())));
        assertTrue(e.getMessage().startsWith("tls.key: file " + files.key() + " is not valid PEM: "), e.getMessage());
    }

    @Test
    void refusesAnEncryptedKeyAndSaysHowToDecryptIt() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        PrivateKey key = Pem.privateKey("tls.key", files.key());
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(new JcaMiscPEMGenerator(key,
                    new JcePEMEncryptorBuilder("AES-128-CBC").setProvider(new BouncyCastleProvider()).build("secret".toCharArray())));
        }
        assertTrue(text.toString().contains("Proc-Type: 4,ENCRYPTED"), text.toString());
        Files.writeString(files.key(), text.toString());

        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerTls.forClients(new Tls(TlsMode.REQUIRE, files.certificate(), files.key())));
        assertEquals("tls.key: file " + files.key() + " holds an encrypted private key; pgward needs it unencrypted "
                + "(openssl pkey -in encrypted.key -out server.key), readable only by pgward", e.getMessage());
    }

    @Test
    void refusesAKeyThatBelongsToAnotherCertificate() {
        PemFiles mine = SelfSignedCertificate.write(dir.resolve("mine"));
        PemFiles other = SelfSignedCertificate.write(dir.resolve("other"));
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerTls.forClients(new Tls(TlsMode.REQUIRE, mine.certificate(), other.key())));
        assertEquals("tls.key: file " + other.key() + " is not the key of the first certificate in "
                + mine.certificate(), e.getMessage());
    }

    @Test
    void refusesAnRsaKeyForAnEcCertificate() {
        PemFiles ec = SelfSignedCertificate.write(dir.resolve("ec"));
        PemFiles rsa = SelfSignedCertificate.write(dir.resolve("rsa"), KeyType.RSA_2048, List.of("localhost"));
        ConfigException e = assertThrows(ConfigException.class,
                () -> ServerTls.forClients(new Tls(TlsMode.REQUIRE, ec.certificate(), rsa.key())));
        assertTrue(e.getMessage().startsWith("tls.key: file " + rsa.key() + " is not the key of"), e.getMessage());
    }

    /** PKCS#1, as {@code openssl genrsa} before OpenSSL 3 and BouncyCastle write a bare RSA key. */
    private static String pkcs1(PrivateKey key) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(key);
        }
        return text.toString();
    }

    /**
     * SEC1 (RFC 5915) as OpenSSL writes it: the curve in [0] and, unless asked not to, the public key in [1].
     */
    private static String sec1(PemFiles files, boolean withPublicKey) throws Exception {
        PrivateKeyInfo pkcs8 = PrivateKeyInfo.getInstance(Pem.privateKey("tls.key", files.key()).getEncoded());
        ASN1Encodable curve = pkcs8.getPrivateKeyAlgorithm().getParameters();
        BigInteger d = ECPrivateKey.getInstance(pkcs8.parsePrivateKey()).getKey();
        SubjectPublicKeyInfo publicKey = SubjectPublicKeyInfo.getInstance(
                SelfSignedCertificateTest.parse(files.certificate()).getPublicKey().getEncoded());
        ECPrivateKey key = withPublicKey ? new ECPrivateKey(256, d, publicKey.getPublicKeyData(), curve)
                : new ECPrivateKey(256, d, curve);
        StringWriter text = new StringWriter();
        try (PemWriter writer = new PemWriter(text)) {
            writer.writeObject(new PemObject("EC PRIVATE KEY", key.getEncoded()));
        }
        return text.toString();
    }
}
