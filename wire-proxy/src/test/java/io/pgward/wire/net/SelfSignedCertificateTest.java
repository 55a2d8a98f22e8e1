package io.pgward.wire.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.wire.net.SelfSignedCertificate.KeyType;
import io.pgward.wire.net.SelfSignedCertificate.PemFiles;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SelfSignedCertificateTest {

    @TempDir
    Path dir;

    @Test
    void writesACertificateForLocalhostAndAnOwnerOnlyKey() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);

        assertEquals(dir.resolve("server.crt"), files.certificate());
        assertEquals(dir.resolve("server.key"), files.key());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(files.key())));
        assertTrue(Files.readString(files.key()).startsWith("-----BEGIN PRIVATE KEY-----\n"), "PKCS#8");
        assertTrue(Files.readString(files.certificate()).startsWith("-----BEGIN CERTIFICATE-----\n"));

        X509Certificate certificate = parse(files.certificate());
        assertEquals("CN=localhost", certificate.getSubjectX500Principal().getName());
        assertEquals(certificate.getSubjectX500Principal(), certificate.getIssuerX500Principal());
        certificate.verify(certificate.getPublicKey());
        certificate.checkValidity();
        assertEquals(Duration.ofDays(365), Duration.between(certificate.getNotBefore().toInstant(),
                certificate.getNotAfter().toInstant()));
        assertEquals(Set.of("2:localhost", "7:127.0.0.1", "7:0:0:0:0:0:0:0:1"), subjectAltNames(certificate));
        assertTrue(certificate.getPublicKey() instanceof ECPublicKey, certificate.getPublicKey().getAlgorithm());
        assertEquals("SHA256withECDSA", certificate.getSigAlgName());
    }

    @Test
    void keyFileHoldsThePrivateHalfOfTheCertificatesKey() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir);
        X509Certificate certificate = parse(files.certificate());
        PrivateKey key = readPkcs8(files.key(), "EC");

        byte[] data = {1, 2, 3};
        Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(key);
        signer.update(data);
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(certificate);
        verifier.update(data);
        assertTrue(verifier.verify(signer.sign()));
    }

    @Test
    void writesAnRsaKeyWithTheGivenNamesAndTheFirstAsCommonName() throws Exception {
        PemFiles files = SelfSignedCertificate.write(dir, KeyType.RSA_2048, List.of("db.example", "10.0.0.7"));
        X509Certificate certificate = parse(files.certificate());

        assertEquals("CN=db.example", certificate.getSubjectX500Principal().getName());
        assertEquals(Set.of("2:db.example", "7:10.0.0.7"), subjectAltNames(certificate));
        assertEquals(2048, ((RSAPublicKey) certificate.getPublicKey()).getModulus().bitLength());
        assertEquals("SHA256withRSA", certificate.getSigAlgName());
        readPkcs8(files.key(), "RSA");
    }

    @Test
    void replacesAWorldReadableKeyWithAFreshOwnerOnlyOne() throws Exception {
        Path key = Files.writeString(dir.resolve("server.key"), "old");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        byte[] firstCertificate = Files.readAllBytes(SelfSignedCertificate.write(dir).certificate());

        PemFiles second = SelfSignedCertificate.write(dir);

        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(second.key())));
        assertNotEquals("old", Files.readString(second.key()));
        assertNotEquals(new String(firstCertificate), Files.readString(second.certificate()), "a new certificate");
    }

    @Test
    void createsTheDirectoryWhenItIsMissing() {
        PemFiles files = SelfSignedCertificate.write(dir.resolve("a/b"));
        assertTrue(Files.isRegularFile(files.certificate()));
        assertTrue(Files.isRegularFile(files.key()));
    }

    @Test
    void refusesACertificateWithoutNames() {
        assertThrows(IllegalArgumentException.class, () -> SelfSignedCertificate.write(dir, KeyType.EC_P256, List.of()));
    }

    @Test
    void givesEachCertificateItsOwnRandomSerialNumber() throws Exception {
        X509Certificate one = parse(SelfSignedCertificate.write(dir.resolve("1")).certificate());
        X509Certificate two = parse(SelfSignedCertificate.write(dir.resolve("2")).certificate());
        assertNotEquals(one.getSerialNumber(), two.getSerialNumber());
        assertTrue(one.getSerialNumber().signum() > 0);
        assertTrue(one.getSerialNumber().toByteArray().length <= 20, "RFC 5280: at most 20 octets");
    }

    static X509Certificate parse(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** "type:value" per entry: 2 is dNSName, 7 is iPAddress (RFC 5280 GeneralName tags). */
    private static Set<String> subjectAltNames(X509Certificate certificate) throws Exception {
        return certificate.getSubjectAlternativeNames().stream()
                .map(entry -> entry.get(0) + ":" + entry.get(1))
                .collect(Collectors.toSet());
    }

    private static PrivateKey readPkcs8(Path pem, String algorithm) throws Exception {
        String base64 = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }
}
