package io.pgward.wire.net;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.pgward.wire.config.ConfigException;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.config.PgwardConfig.TlsMode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * The TLS side pgward shows its clients: the configured certificate chain and key, TLS 1.2 and 1.3 only.
 *
 * <p>Only the context is built here. PostgreSQL clients ask for TLS with an SSLRequest before the startup
 * message ({@code int32 8 | int32 80877103}); answering {@code 'S'} and adding the handler is the startup
 * code's job.
 *
 * <p>Everything that can be wrong with the files is found when the context is built, so pgward refuses to
 * start instead of failing every client's handshake: an unreadable or non-PEM file, an encrypted key, and a
 * key that does not belong to the certificate.
 */
public final class ServerTls {

    /** TLS 1.0 and 1.1 are broken (RFC 8996); PostgreSQL 13+ also defaults to TLS 1.2 as the minimum. */
    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    /**
     * Authenticated encryption only, with forward secrecy in TLS 1.2: no CBC suites (padding oracles, SHA-1 MACs)
     * and no static RSA key exchange. Every client PostgreSQL's own libpq or pgjdbc builds offers some of these.
     */
    static final List<String> CIPHER_SUITES = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384");

    /**
     * A client that renegotiates makes the server repeat its most expensive step as often as it likes, and gains
     * nothing PostgreSQL offers: PostgreSQL refuses renegotiation, so pgward does too. TLS 1.3 has none; for TLS 1.2
     * the JDK reads this property once, when its first server handshake starts, which is after this class is
     * initialised (a context is built before pgward accepts a connection). Set here rather than in the launcher so
     * that every way of starting pgward has it; an operator's contrary setting is overridden on purpose.
     */
    /**
     * The ALPN protocol PostgreSQL 17 names. A client that offers ALPN must offer this one (else the handshake
     * fails with no_application_protocol, as in PostgreSQL); a direct TLS connection must have negotiated it.
     */
    public static final String ALPN_PROTOCOL = "postgresql";

    static final String REJECT_RENEGOTIATION = "jdk.tls.rejectClientInitiatedRenegotiation";

    static {
        System.setProperty(REJECT_RENEGOTIATION, "true");
    }

    private ServerTls() {
    }

    /**
     * A server context for client connections, or null when {@code tls.mode()} is {@code DISABLE}.
     *
     * @throws ConfigException naming {@code tls.certificate} or {@code tls.key} and the file when a file is
     *     missing, unreadable, not PEM, encrypted, or the key does not match the certificate
     */
    public static SslContext forClients(PgwardConfig.Tls tls) {
        if (tls.mode() == TlsMode.DISABLE) {
            return null;
        }
        List<X509Certificate> chain = Pem.certificates("tls.certificate", tls.certificate());
        PrivateKey key = Pem.privateKey("tls.key", tls.key());
        if (!belongTogether(key, chain.get(0))) {
            throw new ConfigException("tls.key: file " + tls.key() + " is not the key of the first certificate in "
                    + tls.certificate());
        }
        try {
            // The JDK's TLS, also if an OpenSSL binding appears on the class path: renegotiation is refused above.
            return SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new))
                    .sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOLS)
                    .ciphers(CIPHER_SUITES, SupportedCipherSuiteFilter.INSTANCE)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.FATAL_ALERT,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ALPN_PROTOCOL))
                    .build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new ConfigException("tls: cannot use " + tls.certificate() + " with " + tls.key() + ": "
                    + e.getMessage());
        }
    }

    /**
     * Whether {@code key} signs what the certificate's public key verifies. A mismatch would otherwise only
     * show as a failed handshake on every connection.
     */
    private static boolean belongTogether(PrivateKey key, X509Certificate certificate) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            // Rare key types (DSA, RSASSA-PSS): the handshake is the check.
            default -> null;
        };
        if (algorithm == null) {
            return true;
        }
        byte[] probe = "pgward key check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            // Also an RSA key with an EC certificate: the certificate's key does not fit the algorithm.
            return false;
        }
    }
}
