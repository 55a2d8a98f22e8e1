package io.pgward.wire.net;

import io.pgward.wire.config.ConfigException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads certificates and private keys from PEM files, in every layout OpenSSL and PostgreSQL's own
 * documentation produce, and fails with a {@link ConfigException} that names the configuration key and
 * the file.
 *
 * <p>BouncyCastle's parser is used rather than Netty's because Netty reads only PKCS#8 keys without it, while
 * {@code openssl genrsa}, {@code openssl ecparam -genkey} and many certificate tools write PKCS#1
 * ({@code BEGIN RSA PRIVATE KEY}) or SEC1 ({@code BEGIN EC PRIVATE KEY}) keys. Text outside the
 * {@code BEGIN}/{@code END} lines, as {@code openssl x509 -text} leaves it, is ignored.
 */
final class Pem {

    private Pem() {
    }

    /** The certificates in {@code file}, in file order (a chain starts with the leaf); never empty. */
    static List<X509Certificate> certificates(String key, Path file) {
        List<X509Certificate> certificates = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        for (Object object : objects(key, file)) {
            if (object instanceof X509CertificateHolder holder) {
                try {
                    certificates.add(converter.getCertificate(holder));
                } catch (CertificateException e) {
                    throw problem(key, file, "holds a certificate Java cannot use: " + e.getMessage());
                }
            }
        }
        if (certificates.isEmpty()) {
            throw problem(key, file, "is not a PEM certificate file (no -----BEGIN CERTIFICATE----- block)");
        }
        return certificates;
    }

    /** The one private key in {@code file}: PKCS#8, PKCS#1 (RSA) or SEC1 (EC), unencrypted. */
    static PrivateKey privateKey(String key, Path file) {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        for (Object object : objects(key, file)) {
            try {
                switch (object) {
                    case PrivateKeyInfo pkcs8 -> {
                        return converter.getPrivateKey(pkcs8);
                    }
                    // Only the private part: SEC1 makes the public key optional, and BouncyCastle writes none.
                    case PEMKeyPair traditional -> {
                        return converter.getPrivateKey(traditional.getPrivateKeyInfo());
                    }
                    case PKCS8EncryptedPrivateKeyInfo encrypted -> throw encrypted(key, file);
                    case PEMEncryptedKeyPair encrypted -> throw encrypted(key, file);
                    // "EC PARAMETERS" blocks (openssl ecparam -genkey writes one first) and certificates.
                    default -> { }
                }
            } catch (IOException e) {
                throw problem(key, file, "holds a private key Java cannot use: " + e.getMessage());
            }
        }
        throw problem(key, file, "is not a PEM private key file (no -----BEGIN PRIVATE KEY-----, "
                + "-----BEGIN RSA PRIVATE KEY----- or -----BEGIN EC PRIVATE KEY----- block)");
    }

    private static List<Object> objects(String key, Path file) {
        if (Files.isDirectory(file)) {
            throw problem(key, file, "is a directory");
        }
        Reader reader;
        try {
            // Latin-1 decodes any byte, so a DER or otherwise binary file is reported as "not PEM" below.
            reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw problem(key, file, "does not exist");
        } catch (AccessDeniedException e) {
            throw problem(key, file, "cannot be read (permission denied)");
        } catch (IOException e) {
            throw problem(key, file, "cannot be read: " + e.getMessage());
        }
        List<Object> objects = new ArrayList<>();
        try (PEMParser parser = new PEMParser(reader)) {
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                objects.add(object);
            }
        } catch (IOException | IllegalArgumentException | IllegalStateException e) {
            // BouncyCastle reports a BEGIN without END as IOException, bad base64 as IllegalStateException and
            // a block that is not the DER its header promises as IllegalArgumentException.
            throw problem(key, file, "is not valid PEM: " + e.getMessage());
        }
        return objects;
    }

    private static ConfigException encrypted(String key, Path file) {
        return problem(key, file, "holds an encrypted private key; pgward needs it unencrypted "
                + "(openssl pkey -in encrypted.key -out " + file.getFileName() + "), readable only by pgward");
    }

    private static ConfigException problem(String key, Path file, String what) {
        return new ConfigException(key + ": file " + file + " " + what);
    }
}
