package io.pgward.wire.gate;

import io.pgward.guard.policy.GuardPipeline;
import io.pgward.guard.policy.LoginPolicy;
import io.pgward.wire.config.PgwardConfig;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Where the guard's control connections go: where the backend connections go (or the configured catalog-check
 * host), with the same TLS requirements; and the guard's view of a login.
 *
 * @param idleTimeout the backend pool's {@code idle_timeout}: control connections are sessions on their database as
 *                    much as pooled backend connections are, and are closed when idle as those are
 */
record ControlConnections(PgwardConfig.Backend backend, Duration idleTimeout)
        implements GuardPipeline.ControlConnections {

    @Override
    public String jdbcUrl(String database) {
        String host = backend.controlHost();
        StringBuilder url = new StringBuilder("jdbc:postgresql://").append(host.contains(":")
                ? "[" + host + "]" : host).append(':').append(backend.controlPort()).append('/')
                .append(URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20"));
        switch (backend.sslmode()) {
            case DISABLE -> url.append("?sslmode=disable");
            case REQUIRE -> url.append("?sslmode=require");
            case VERIFY_FULL -> url.append("?sslmode=verify-full").append(backend.rootCertificate() == null
                    ? "&sslfactory=org.postgresql.ssl.DefaultJavaSSLFactory"
                    : "&sslrootcert=" + URLEncoder.encode(backend.rootCertificate().toString(), StandardCharsets.UTF_8));
        }
        return url.toString();
    }

    @Override
    public int checkConnections() {
        return backend.catalogCheckConnections();
    }

    /** The guard's view of a read-only login. */
    static LoginPolicy policy(PgwardConfig.Login login) {
        return new LoginPolicy(login.name(), login.backendUser(),
                login.backendPassword() == null ? null : login.backendPassword().value(), login.policy().tables(),
                "logins." + login.name() + ".tables", login.policy().statementTimeout());
    }
}
