package io.pgward.wire.net;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.NetUtil;
import io.pgward.wire.config.ConfigException;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.config.PgwardConfig.SslMode;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The TLS side pgward shows the PostgreSQL server, with libpq's {@code sslmode} semantics.
 *
 * <ul>
 *   <li>{@code disable}: no TLS, no context.
 *   <li>{@code require}: encrypted, but any certificate is accepted, as libpq's {@code sslmode=require}
 *       without a root certificate file. It stops passive eavesdropping, not an active man in the middle.
 *       {@code backend.root_certificate} is not used (libpq would verify the chain, but not the name, when
 *       its root file exists; pgward has no {@code verify-ca}, so the choice stays explicit).
 *   <li>{@code verify-full}: the chain must lead to {@code backend.root_certificate} (or, when that is not
 *       set, to the JDK's default trust store) and the certificate must name {@code backend.host}: a DNS
 *       name against its dNSName entries, an IP literal against its iPAddress entries (RFC 6125 rules,
 *       the JDK's "HTTPS" endpoint identification).
 * </ul>
 *
 * <p>The caller does PostgreSQL's SSLRequest first: it sends {@code int32 8 | int32 80877103}, reads one
 * byte, and adds {@link #handler} only on {@code 'S'}; on {@code 'N'} it gives up unless the mode allows
 * plaintext (none of these does).
 */
public final class BackendTls {

    private BackendTls() {
    }

    /**
     * A client context for {@code backend.sslmode()}, or null for {@code DISABLE}. Build it once and share
     * it: a context is thread-safe and holds the TLS session cache.
     *
     * @throws ConfigException naming {@code backend.root_certificate} and the file when the file is missing,
     *     unreadable or holds no PEM certificate
     */
    public static SslContext forBackend(PgwardConfig.Backend backend) {
        SslContextBuilder builder = SslContextBuilder.forClient().protocols(ServerTls.PROTOCOLS);
        switch (backend.sslmode()) {
            case DISABLE -> {
                return null;
            }
            // Netty 4.2 turns hostname verification on for every client context; require must not verify.
            case REQUIRE -> builder.trustManager(InsecureTrustManagerFactory.INSTANCE)
                    .endpointIdentificationAlgorithm(null);
            case VERIFY_FULL -> {
                if (backend.rootCertificate() != null) {
                    builder.trustManager(Pem.certificates("backend.root_certificate", backend.rootCertificate()));
                }
                builder.endpointIdentificationAlgorithm("HTTPS");
            }
        }
        try {
            return builder.build();
        } catch (SSLException e) {
            throw new ConfigException("backend.sslmode: cannot set up TLS to the backend: " + e.getMessage());
        }
    }

    /**
     * A handler for one backend connection, to add at the head of the pipeline after the server answered
     * the SSLRequest with {@code 'S'}.
     *
     * <p>SNI carries {@code backend.host()} whenever it is a DNS name (RFC 6066 forbids IP literals there),
     * whatever the mode: poolers in front of managed PostgreSQL (Supabase's Supavisor, Neon's proxy) pick
     * the tenant by SNI, and libpq sends it by default ({@code sslsni=1}).
     *
     * @param context from {@link #forBackend} with the same {@code backend}, not null
     */
    public static SslHandler handler(SslContext context, ByteBufAllocator alloc, PgwardConfig.Backend backend) {
        Objects.requireNonNull(context, "no SslContext: backend.sslmode is disable");
        String host = backend.host();
        // The peer host given here is what the JDK verifies the certificate against.
        SslHandler handler = context.newHandler(alloc, host, backend.port());
        SSLEngine engine = handler.engine();
        SSLParameters parameters = engine.getSSLParameters();
        if (!NetUtil.isValidIpV4Address(host) && !NetUtil.isValidIpV6Address(host)) {
            // A fully qualified "db.example.com." is the same name, but SNI must not end with a dot.
            String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
            parameters.setServerNames(List.of(new SNIHostName(name)));
        }
        parameters.setEndpointIdentificationAlgorithm(backend.sslmode() == SslMode.VERIFY_FULL ? "HTTPS" : null);
        engine.setSSLParameters(parameters);
        return handler;
    }
}
