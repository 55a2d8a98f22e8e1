package io.pgward.it;

import io.pgward.testkit.TestDatabase;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.config.Secret;
import io.pgward.wire.gate.Gates;
import io.pgward.wire.gate.SessionGates;
import io.pgward.wire.server.PgwardServer;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.gate.StatementGate;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * pgward in front of a test database, on a free port, with one login per authentication method:
 * {@code app} (SCRAM, read-write), {@code analyst} (SCRAM, read-only), {@code md5user} (md5, read-write) and
 * {@code trusted} (trust, read-write). All map to the test database's own role.
 */
final class ProxyFixture implements AutoCloseable {

    static final String PASSWORD = "s3cret pass";

    private final TestDatabase database;
    private final PgwardServer server;

    private ProxyFixture(TestDatabase database, PgwardServer server) {
        this.database = database;
        this.server = server;
    }

    /** Stands for {@link Gates#standard}, every guard layer, which needs the configuration the fixture makes. */
    static final Function<PgwardConfig.Login, StatementGate> STANDARD_GATES = login -> {
        throw new IllegalStateException("replaced by Gates.standard when the fixture starts");
    };

    static ProxyFixture start(TestDatabase database) {
        return start(database, STANDARD_GATES, null, PgwardConfig.TlsMode.DISABLE, 20);
    }

    static ProxyFixture start(TestDatabase database, Function<PgwardConfig.Login, StatementGate> gates,
                              Path[] tlsFiles, PgwardConfig.TlsMode tlsMode, int poolSize) {
        return start(database, gates, tlsFiles, tlsMode, poolSize, UnaryOperator.identity());
    }

    /** As above, with a last change to the configuration (timeouts, extra logins, ...). */
    static ProxyFixture start(TestDatabase database, Function<PgwardConfig.Login, StatementGate> gates,
                              Path[] tlsFiles, PgwardConfig.TlsMode tlsMode, int poolSize,
                              UnaryOperator<PgwardConfig> adjust) {
        return start(database, gates, tlsFiles, tlsMode, poolSize, adjust, Map.of());
    }

    /** As above, also serving databases pgward answers itself (ArangoDB) under their names. */
    static ProxyFixture start(TestDatabase database, Function<PgwardConfig.Login, StatementGate> gates,
                              Path[] tlsFiles, PgwardConfig.TlsMode tlsMode, int poolSize,
                              UnaryOperator<PgwardConfig> adjust, Map<String, LocalDatabase> localDatabases) {
        Secret backendPassword = new Secret(database.password());
        Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>();
        logins.put("app", login("app", PgwardConfig.AuthMethod.SCRAM_SHA_256, PgwardConfig.Mode.READ_WRITE, database));
        logins.put("analyst", login("analyst", PgwardConfig.AuthMethod.SCRAM_SHA_256, PgwardConfig.Mode.READ_ONLY,
                database));
        logins.put("md5user", login("md5user", PgwardConfig.AuthMethod.MD5, PgwardConfig.Mode.READ_WRITE, database));
        logins.put("trusted", new PgwardConfig.Login("trusted", PgwardConfig.AuthMethod.TRUST, null, null,
                database.user(), backendPassword, PgwardConfig.Mode.READ_WRITE));
        logins.put("reader", new PgwardConfig.Login("reader", PgwardConfig.AuthMethod.TRUST, null, null,
                database.user(), backendPassword, PgwardConfig.Mode.READ_ONLY));
        PgwardConfig.Tls tls = tlsFiles == null ? new PgwardConfig.Tls(PgwardConfig.TlsMode.DISABLE, null, null)
                : new PgwardConfig.Tls(tlsMode, tlsFiles[0], tlsFiles[1]);
        PgwardConfig config = new PgwardConfig(new PgwardConfig.Listen("127.0.0.1", 0), Duration.ofSeconds(5), tls,
                new PgwardConfig.Backend(database.host(), database.port(), PgwardConfig.SslMode.DISABLE, null),
                new PgwardConfig.Pool(poolSize, Duration.ofSeconds(2)), logins);
        PgwardConfig adjusted = adjust.apply(config);
        return new ProxyFixture(database, PgwardServer.start(adjusted, gates == STANDARD_GATES
                ? audit -> Gates.standard(adjusted, audit) : audit -> SessionGates.byLogin(gates), localDatabases));
    }

    /** A configuration change that gives one login a statement timeout (layer L4). */
    static UnaryOperator<PgwardConfig> statementTimeout(String loginName, java.time.Duration timeout) {
        return policy(loginName, p -> p.withStatementTimeout(timeout));
    }

    /** A configuration change that caps the rows of one login's results. */
    static UnaryOperator<PgwardConfig> rowCap(String loginName, long cap) {
        return policy(loginName, p -> p.withRowCap(cap));
    }

    /**
     * A configuration change that has pgward reach PostgreSQL over TLS with {@code sslmode}, trusting
     * {@code rootCertificate} (null: the JDK's trust store) for verify-full.
     */
    static UnaryOperator<PgwardConfig> backendTls(PgwardConfig.SslMode sslmode, Path rootCertificate) {
        return config -> {
            PgwardConfig.Backend backend = new PgwardConfig.Backend(config.backend().host(), config.backend().port(),
                    sslmode, rootCertificate);
            return config.withBackend(backend);
        };
    }

    static UnaryOperator<PgwardConfig> policy(String loginName, UnaryOperator<PgwardConfig.Policy> change) {
        return config -> {
            Map<String, PgwardConfig.Login> logins = new LinkedHashMap<>(config.logins());
            PgwardConfig.Login l = logins.get(loginName);
            logins.put(loginName, l.withPolicy(change.apply(l.policy())));
            // withLogins keeps every other setting (metrics, admins, MCP, ...), whatever was changed before.
            return config.withLogins(logins);
        };
    }

    private static PgwardConfig.Login login(String name, PgwardConfig.AuthMethod auth, PgwardConfig.Mode mode,
                                            TestDatabase database) {
        return new PgwardConfig.Login(name, auth, new Secret(PASSWORD), null, database.user(),
                new Secret(database.password()), mode);
    }

    PgwardServer server() {
        return server;
    }

    int port() {
        return server.port();
    }

    String jdbcUrl() {
        return jdbcUrl(database.name());
    }

    String jdbcUrl(String databaseName) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + databaseName;
    }

    /** A libpq URI through pgward for a login. */
    String uri(String login) {
        return uri(login, database.name());
    }

    String uri(String login, String databaseName) {
        return "postgresql://" + login + ":" + PASSWORD.replace(" ", "%20") + "@127.0.0.1:" + port() + "/"
                + databaseName;
    }

    Connection connect(String login) throws SQLException {
        return connect(login, new Properties());
    }

    /** A connection of {@code login} whose statements pgjdbc sends with {@code preferQueryMode} (simple, extended). */
    Connection connectInMode(String login, String queryMode) throws SQLException {
        Properties props = new Properties();
        props.setProperty("preferQueryMode", queryMode);
        return connect(login, props);
    }

    Connection connect(String login, Properties extra) throws SQLException {
        return connectTo(database.name(), login, extra);
    }

    Connection connectTo(String databaseName, String login, Properties extra) throws SQLException {
        Properties props = new Properties();
        props.putAll(extra);
        props.setProperty("user", login);
        props.setProperty("password", PASSWORD);
        return DriverManager.getConnection(jdbcUrl(databaseName), props);
    }

    @Override
    public void close() {
        server.close();
    }
}
