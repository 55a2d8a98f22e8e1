package io.pgward.arango;

import com.arangodb.ArangoDB;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;

/**
 * Builds the driver from a configuration. The request timeout is the runtime limit plus a margin, so a slow
 * statement ends with ArangoDB's own "query killed" error rather than a client-side timeout. An https endpoint
 * is verified against the configured root certificate, or the JVM's trust store, with host name checking on.
 */
final class DriverFactory {

    private static final int TIMEOUT_MARGIN_MILLIS = 15_000;

    private DriverFactory() {
    }

    static ArangoDB build(ArangoConfig config) {
        ArangoDB.Builder builder = new ArangoDB.Builder()
                .host(config.host(), config.port())
                .protocol(config.protocol().driverProtocol())
                .useSsl(config.tls())
                .verifyHost(true)
                .timeout(Math.toIntExact(Math.min(Integer.MAX_VALUE,
                        config.limits().maxRuntime().toMillis() + TIMEOUT_MARGIN_MILLIS)));
        if (config.rootCertificate() != null) {
            builder.sslContext(trusting(config));
        }
        switch (config.auth()) {
            case ArangoAuth.UserPassword p -> builder.user(p.user()).password(p.password());
            case ArangoAuth.Token t -> builder.jwt(t.jwt());
        }
        return builder.build();
    }

    private static SSLContext trusting(ArangoConfig config) {
        try (InputStream pem = Files.newInputStream(config.rootCertificate())) {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509")
                    .generateCertificates(pem);
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException("root_certificate: no certificate in " + config.rootCertificate());
            }
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int i = 0;
            for (Certificate certificate : certificates) {
                trusted.setCertificateEntry("ca-" + i++, certificate);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("root_certificate: cannot read " + config.rootCertificate() + ": "
                    + e.getMessage(), e);
        }
    }
}
