package io.pgward.wire.auth;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.Locale;
import javax.net.ssl.SSLSession;

/**
 * The {@code tls-server-end-point} channel-binding data (RFC 5929 section 4): the hash of the certificate the server
 * presented, with the hash function of the certificate's signature, SHA-256 in place of MD5 and SHA-1. libpq and
 * PostgreSQL ({@code be_tls_get_certificate_hash}) compute it the same way.
 */
public final class TlsServerEndPoint {

    private TlsServerEndPoint() {
    }

    /**
     * The binding data of the certificate this side presented in {@code session}, or null when there is none or its
     * signature names no single hash function (Ed25519, RSASSA-PSS): then SCRAM-SHA-256-PLUS is not offered.
     */
    public static byte[] of(SSLSession session) {
        Certificate[] presented = session.getLocalCertificates();
        if (presented == null || presented.length == 0 || !(presented[0] instanceof X509Certificate certificate)) {
            return null;
        }
        String hash = hashOf(certificate.getSigAlgName());
        if (hash == null) {
            return null;
        }
        try {
            return MessageDigest.getInstance(hash).digest(certificate.getEncoded());
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            return null;
        }
    }

    /** {@code SHA256withRSA}, {@code SHA384withECDSA}, ... → the digest's JDK name. */
    static String hashOf(String signatureAlgorithm) {
        String name = signatureAlgorithm.toUpperCase(Locale.ROOT);
        int with = name.indexOf("WITH");
        if (with < 0) {
            return null;
        }
        return switch (name.substring(0, with)) {
            case "MD5", "SHA1", "SHA256" -> "SHA-256";
            case "SHA224" -> "SHA-224";
            case "SHA384" -> "SHA-384";
            case "SHA512" -> "SHA-512";
            default -> null;
        };
    }
}
