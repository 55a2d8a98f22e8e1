package io.pgward.arango;

import java.net.URI;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One ArangoDB database served by pgward under the database name {@code name}: clients connect to pgward with
 * {@code dbname=name} and their statements go to {@code database} on {@code endpoint}. Validated when built, each
 * problem named by its configuration key (see docs/arango.md).
 *
 * @param name        the database name clients give pgward
 * @param endpoint    {@code http://host[:port]} or {@code https://host[:port]}; the port defaults to 8529
 * @param database    the ArangoDB database
 * @param auth        how pgward authenticates to ArangoDB
 * @param protocol    the driver's wire protocol
 * @param limits      runtime, memory and row bounds on every statement
 * @param description what the database holds, for the prompt that turns questions into AQL; may be empty
 * @param rootCertificate PEM file of the CA(s) trusted for an https endpoint; null for the JVM's trust store
 * @param loginAuth   per pgward login, the ArangoDB account its statements and questions run as; a login not
 *                    listed runs as {@code auth}
 */
public record ArangoConfig(String name, URI endpoint, String database, ArangoAuth auth, DriverProtocol protocol,
                           AqlLimits limits, String description, Path rootCertificate,
                           Map<String, ArangoAuth> loginAuth) {

    public static final int DEFAULT_PORT = 8529;

    public ArangoConfig {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name: the pgward database name must not be empty");
        }
        endpoint = checkEndpoint(endpoint);
        database = database == null || database.isBlank() ? "_system" : database.strip();
        Objects.requireNonNull(auth, "auth");
        protocol = protocol == null ? DriverProtocol.HTTP1_JSON : protocol;
        limits = limits == null ? AqlLimits.DEFAULTS : limits;
        description = description == null ? "" : description.strip();
        if (rootCertificate != null && !"https".equals(endpoint.getScheme())) {
            throw new IllegalArgumentException("root_certificate: only applies to an https endpoint");
        }
        loginAuth = loginAuth == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(loginAuth));
    }

    public ArangoConfig(String name, URI endpoint, String database, ArangoAuth auth, DriverProtocol protocol,
                        AqlLimits limits, String description, Path rootCertificate) {
        this(name, endpoint, database, auth, protocol, limits, description, rootCertificate, Map.of());
    }

    /** The account {@code login}'s statements run as. */
    public ArangoAuth authFor(String login) {
        return loginAuth.getOrDefault(login, auth);
    }

    public ArangoConfig withLoginAuth(Map<String, ArangoAuth> accounts) {
        return new ArangoConfig(name, endpoint, database, auth, protocol, limits, description, rootCertificate,
                accounts);
    }

    /** A configuration with the default protocol, limits and no description. */
    public static ArangoConfig of(String name, String endpoint, String database, ArangoAuth auth) {
        return new ArangoConfig(name, parseEndpoint(endpoint), database, auth, null, null, null, null, Map.of());
    }

    public ArangoConfig withLimits(AqlLimits newLimits) {
        return new ArangoConfig(name, endpoint, database, auth, protocol, newLimits, description, rootCertificate,
                loginAuth);
    }

    public ArangoConfig withProtocol(DriverProtocol newProtocol) {
        return new ArangoConfig(name, endpoint, database, auth, newProtocol, limits, description, rootCertificate,
                loginAuth);
    }

    public ArangoConfig withDescription(String newDescription) {
        return new ArangoConfig(name, endpoint, database, auth, protocol, limits, newDescription, rootCertificate,
                loginAuth);
    }

    public ArangoConfig withAuth(ArangoAuth newAuth) {
        return new ArangoConfig(name, endpoint, database, newAuth, protocol, limits, description, rootCertificate,
                loginAuth);
    }

    public ArangoConfig withDatabase(String newDatabase) {
        return new ArangoConfig(name, endpoint, newDatabase, auth, protocol, limits, description, rootCertificate,
                loginAuth);
    }

    public ArangoConfig withRootCertificate(Path pem) {
        return new ArangoConfig(name, endpoint, database, auth, protocol, limits, description, pem, loginAuth);
    }

    public boolean tls() {
        return "https".equals(endpoint.getScheme());
    }

    public String host() {
        return endpoint.getHost();
    }

    public int port() {
        return endpoint.getPort() == -1 ? DEFAULT_PORT : endpoint.getPort();
    }

    public static URI parseEndpoint(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("endpoint: required, e.g. http://localhost:8529");
        }
        try {
            return URI.create(text.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("endpoint: not a URL: \"" + text + "\"", e);
        }
    }

    private static URI checkEndpoint(URI endpoint) {
        if (endpoint == null) {
            throw new IllegalArgumentException("endpoint: required, e.g. http://localhost:8529");
        }
        String scheme = endpoint.getScheme();
        if (!"http".equals(scheme) && !"https".equals(scheme)) {
            throw new IllegalArgumentException(
                    "endpoint: must start with http:// or https://, was \"" + endpoint + "\"");
        }
        if (endpoint.getHost() == null) {
            throw new IllegalArgumentException("endpoint: has no host: \"" + endpoint + "\"");
        }
        String path = endpoint.getRawPath();
        if ((path != null && !path.isEmpty() && !"/".equals(path)) || endpoint.getRawQuery() != null
                || endpoint.getRawUserInfo() != null) {
            throw new IllegalArgumentException("endpoint: only scheme, host and port are allowed (credentials go in "
                    + "user/password or token), was \"" + endpoint.getScheme() + "://" + endpoint.getHost() + "...\"");
        }
        return endpoint;
    }
}
