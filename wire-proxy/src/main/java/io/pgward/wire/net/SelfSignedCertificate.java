package io.pgward.wire.net;

import io.netty.util.NetUtil;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemObjectGenerator;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * A fresh key and a self-signed certificate for it, written as PEM files, so that pgward (and the demo) can
 * offer TLS without an operator having to run openssl first.
 *
 * <p>The certificate is its own trust anchor: a client that is given {@code server.crt} as its root
 * certificate ({@code sslrootcert} in libpq and pgjdbc) can use {@code sslmode=verify-full}. Its only
 * extension is subjectAltName, which hostname verification reads (RFC 6125 ignores the common name when it
 * is present). No keyUsage, because OpenSSL 1.1 does not see a certificate whose keyUsage lacks keyCertSign
 * as self-signed, and then it cannot anchor its own chain; no basicConstraints CA:TRUE, because strict
 * verifiers refuse a CA certificate as a server's.
 *
 * <p>The key file is created with mode 0600 before any key material is written to it; PostgreSQL and
 * libpq refuse a key that group or others can read.
 */
public final class SelfSignedCertificate {

    /** The names a certificate for a proxy on this machine must match. */
    public static final List<String> LOCAL_NAMES = List.of("localhost", "127.0.0.1", "::1");

    private static final Duration VALIDITY = Duration.ofDays(365);
    // Tolerates a client whose clock is a little behind ours.
    private static final Duration BACKDATE = Duration.ofHours(1);

    public enum KeyType {
        /** ECDSA on P-256 (secp256r1): small and fast, accepted by every TLS 1.2+ client. */
        EC_P256,
        /** RSA 2048: for old clients that do not do ECDSA. */
        RSA_2048
    }

    /** Where the PEM files were written. */
    public record PemFiles(Path certificate, Path key) {
    }

    private SelfSignedCertificate() {
    }

    /**
     * Writes {@code server.crt} and {@code server.key} (EC P-256, PKCS#8) for {@link #LOCAL_NAMES} into
     * {@code directory}, replacing any files of those names.
     */
    public static PemFiles write(Path directory) {
        return write(directory, KeyType.EC_P256, LOCAL_NAMES);
    }

    /**
     * Writes {@code server.crt} and {@code server.key} (PKCS#8) into {@code directory}, replacing any files of
     * those names.
     *
     * @param names host names and IP literals the certificate is valid for; the first is also the common name
     */
    public static PemFiles write(Path directory, KeyType keyType, List<String> names) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("a certificate needs at least one name");
        }
        KeyPair keyPair = generateKeyPair(keyType);
        X509Certificate certificate = sign(keyPair, keyType, names);
        PemFiles files = new PemFiles(directory.resolve("server.crt"), directory.resolve("server.key"));
        try {
            Files.createDirectories(directory);
            Files.writeString(files.certificate(), pem(new JcaMiscPEMGenerator(certificate)), StandardCharsets.US_ASCII);
            // Written as a PemObject: BouncyCastle's own generator would turn an RSA or EC key into PKCS#1 or SEC1.
            writePrivate(files.key(), pem(new PemObject("PRIVATE KEY", keyPair.getPrivate().getEncoded())));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write a certificate into " + directory + ": " + e.getMessage(), e);
        }
        return files;
    }

    private static KeyPair generateKeyPair(KeyType keyType) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(switch (keyType) {
                case EC_P256 -> "EC";
                case RSA_2048 -> "RSA";
            });
            switch (keyType) {
                case EC_P256 -> generator.initialize(new ECGenParameterSpec("secp256r1"));
                case RSA_2048 -> generator.initialize(2048);
            }
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("This JDK cannot generate a " + keyType + " key", e);
        }
    }

    private static X509Certificate sign(KeyPair keyPair, KeyType keyType, List<String> names) {
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, names.get(0)).build();
        Instant notBefore = Instant.now().minus(BACKDATE);
        // RFC 5280 4.1.2.2: positive, at most 20 octets.
        BigInteger serial = new BigInteger(159, new SecureRandom());
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial, Date.from(notBefore),
                Date.from(notBefore.plus(VALIDITY)), subject, keyPair.getPublic());
        String algorithm = switch (keyType) {
            case EC_P256 -> "SHA256withECDSA";
            case RSA_2048 -> "SHA256withRSA";
        };
        try {
            builder.addExtension(Extension.subjectAlternativeName, false, subjectAltNames(names));
            ContentSigner signer = new JcaContentSignerBuilder(algorithm).build(keyPair.getPrivate());
            return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
        } catch (CertIOException | OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("Could not sign a self-signed certificate with " + algorithm, e);
        }
    }

    private static GeneralNames subjectAltNames(List<String> names) {
        List<GeneralName> result = new ArrayList<>();
        for (String name : names) {
            // RFC 6125: a client that connects by address matches it against iPAddress entries only.
            boolean ip = NetUtil.isValidIpV4Address(name) || NetUtil.isValidIpV6Address(name);
            result.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, name));
        }
        return new GeneralNames(result.toArray(GeneralName[]::new));
    }

    private static String pem(PemObjectGenerator object) throws IOException {
        StringWriter text = new StringWriter();
        try (PemWriter writer = new PemWriter(text)) {
            writer.writeObject(object);
        }
        return text.toString();
    }

    /** Creates the file owner-only first, so the key is never readable by others, not even briefly. */
    private static void writePrivate(Path file, String content) throws IOException {
        Files.deleteIfExists(file);
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(file);
        }
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
            writer.write(content);
        }
    }
}
