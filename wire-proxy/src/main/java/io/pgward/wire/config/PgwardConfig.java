package io.pgward.wire.config;

import io.pgward.arango.ArangoConfig;
import io.pgward.nl.NlSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.pgward.mcp.McpSettings;

/**
 * pgward's whole configuration, immutable and validated when loaded (see {@link ConfigLoader}).
 *
 * @param listen where clients connect
 * @param startupTimeout how long a client may take from connecting to being authenticated
 * @param tls client-side TLS
 * @param backend the PostgreSQL server behind pgward
 * @param pool backend connection pooling
 * @param logins the logins clients may use, by name, in file order
 * @param audit where one JSON line per statement decision goes
 * @param arango the ArangoDB databases pgward serves under database names of their own, in file order
 * @param mcp the {@code mcp:} section; empty when absent, and then no MCP server runs
 * @param nl the {@code nl:} section; empty when absent, and then no {@code pgward.*} natural-language function
 *           answers
 * @param admins the logins that may connect to the admin console, database {@code pgward} ({@code admin.logins})
 * @param io the event loops that relay the sessions ({@code io:})
 */
public record PgwardConfig(Listen listen, Duration startupTimeout, Tls tls, Backend backend, Pool pool,
                           Map<String, Login> logins, Audit audit, List<ArangoConfig> arango,
                           Optional<NlSettings> nl, Optional<Listen> metrics, Duration drainTimeout,
                           List<String> admins, Optional<McpSettings> mcp, Io io) {

    /** A configuration with the default event loops. */
    public PgwardConfig(Listen listen, Duration startupTimeout, Tls tls, Backend backend, Pool pool,
                        Map<String, Login> logins, Audit audit, List<ArangoConfig> arango,
                        Optional<NlSettings> nl, Optional<Listen> metrics, Duration drainTimeout,
                        List<String> admins, Optional<McpSettings> mcp) {
        this(listen, startupTimeout, tls, backend, pool, logins, audit, arango, nl, metrics, drainTimeout, admins, mcp,
                Io.DEFAULT);
    }

    /** How long a stopping pgward lets running statements finish ({@code drain_timeout}). */
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(10);

    public PgwardConfig(Listen listen, Duration startupTimeout, Tls tls, Backend backend, Pool pool,
                        Map<String, Login> logins, Audit audit, List<ArangoConfig> arango,
                        Optional<NlSettings> nl, Optional<Listen> metrics) {
        this(listen, startupTimeout, tls, backend, pool, logins, audit, arango, nl, metrics, DEFAULT_DRAIN_TIMEOUT);
    }

    public PgwardConfig(Listen listen, Duration startupTimeout, Tls tls, Backend backend, Pool pool,
                        Map<String, Login> logins, Audit audit, List<ArangoConfig> arango,
                        Optional<NlSettings> nl, Optional<Listen> metrics, Duration drainTimeout) {
        this(listen, startupTimeout, tls, backend, pool, logins, audit, arango, nl, metrics, drainTimeout, List.of(),
                Optional.empty());
    }

    /** Serves MCP for agents ({@code mcp:}). */
    public PgwardConfig withMcp(McpSettings settings) {
        return new PgwardConfig(listen, startupTimeout, tls, backend, pool, logins, audit, arango, nl, metrics,
                drainTimeout, admins, Optional.of(settings), io);
    }

    /** Relays on these event loops ({@code io:}). */
    public PgwardConfig withIo(Io changed) {
        return new PgwardConfig(listen, startupTimeout, tls, backend, pool, logins, audit, arango, nl, metrics,
                drainTimeout, admins, mcp, changed);
    }

    public PgwardConfig {
        java.util.Objects.requireNonNull(mcp, "mcp");
        java.util.Objects.requireNonNull(io, "io");
        arango = List.copyOf(arango);
        admins = List.copyOf(admins);
        java.util.Objects.requireNonNull(nl, "nl");
        java.util.Objects.requireNonNull(metrics, "metrics");
    }

    /** A configuration that serves no metrics. */
    public PgwardConfig(Listen listen, Duration startupTimeout, Tls tls, Backend backend, Pool pool,
                        Map<String, Login> logins, Audit audit, List<ArangoConfig> arango,
                        Optional<NlSettings> nl) {
        this(listen, startupTimeout, tls, backend, pool, logins, audit, arango, nl, Optional.empty());
    }

    /** Serves metrics and health over HTTP on {@code address} ({@code metrics.listen}). */
    public PgwardConfig withMetrics(Listen address) {
        return new PgwardConfig(listen, startupTimeout, tls, backend, pool, logins, audit, arango, nl,
                Optional.of(address), drainTimeout, admins, mcp, io);
    }

    /** A configuration without ArangoDB databases and without an {@code nl:} section. */
    public PgwardConfig(Listen listen, Duration startupTimeout, Tls tls, Backend backend, Pool pool,
                        Map<String, Login> logins, Audit audit) {
        this(listen, startupTimeout, tls, backend, pool, logins, audit, List.of(), Optional.empty());
    }

    public PgwardConfig withNl(NlSettings settings) {
        return new PgwardConfig(listen, startupTimeout, tls, backend, pool, logins, audit, arango,
                Optional.of(settings), metrics, drainTimeout, admins, mcp, io);
    }

    /** A configuration without an audit log (tests, embedding). */
    public PgwardConfig(Listen listen, Duration startupTimeout, Tls tls, Backend backend, Pool pool,
                        Map<String, Login> logins) {
        this(listen, startupTimeout, tls, backend, pool, logins, Audit.OFF);
    }

    public PgwardConfig withArango(List<ArangoConfig> databases) {
        return new PgwardConfig(listen, startupTimeout, tls, backend, pool, logins, audit, databases, nl, metrics,
                drainTimeout, admins, mcp, io);
    }

    public PgwardConfig withPool(Pool changed) {
        return new PgwardConfig(listen, startupTimeout, tls, backend, changed, logins, audit, arango, nl, metrics,
                drainTimeout, admins, mcp, io);
    }

    public PgwardConfig withBackend(Backend changed) {
        return new PgwardConfig(listen, startupTimeout, tls, changed, pool, logins, audit, arango, nl, metrics,
                drainTimeout, admins, mcp, io);
    }

    public PgwardConfig withStartupTimeout(Duration changed) {
        return new PgwardConfig(listen, changed, tls, backend, pool, logins, audit, arango, nl, metrics,
                drainTimeout, admins, mcp, io);
    }

    public PgwardConfig withAudit(Audit changed) {
        return new PgwardConfig(listen, startupTimeout, tls, backend, pool, logins, changed, arango, nl, metrics,
                drainTimeout, admins, mcp, io);
    }

    /** The same configuration with these logins. */
    public PgwardConfig withLogins(Map<String, Login> changed) {
        return new PgwardConfig(listen, startupTimeout, tls, backend, pool, changed, audit, arango, nl, metrics,
                drainTimeout, admins, mcp, io);
    }

    /** The logins that may use the admin console (database {@code pgward}); none by default. */
    public PgwardConfig withAdmins(List<String> names) {
        return new PgwardConfig(listen, startupTimeout, tls, backend, pool, logins, audit, arango, nl, metrics,
                drainTimeout, names, mcp, io);
    }

    /**
     * This configuration with what a reload may change taken from {@code loaded}: the logins, the admins and the
     * startup timeout. Everything else needs a restart and stays as it is.
     */
    public PgwardConfig withLiveSettingsOf(PgwardConfig loaded) {
        return new PgwardConfig(listen, loaded.startupTimeout, tls, backend, pool, loaded.logins, audit, arango, nl,
                metrics, drainTimeout, loaded.admins, mcp, io);
    }

    /** Whether {@code login} may use the admin console. */
    public boolean isAdmin(String login) {
        return admins.contains(login);
    }

    /**
     * The event loops that relay client and backend sockets.
     *
     * @param threads how many; 0 for one per CPU, at least two
     * @param busyPoll how long an event loop that has run out of ready sockets keeps asking for more before it
     *                 sleeps: a client waiting on one statement at a time gets its reply without the two wake-ups a
     *                 sleeping event loop costs, at the price of CPU spent polling; {@link Duration#ZERO} (the
     *                 default) sleeps at once
     */
    public record Io(int threads, Duration busyPoll) {
        public static final Io DEFAULT = new Io(0, Duration.ZERO);
        public static final Duration MAX_BUSY_POLL = Duration.ofMillis(1);

        /** The number of event loops for a machine with {@code processors} CPUs. */
        public int threadsFor(int processors) {
            return threads > 0 ? threads : Math.max(2, processors);
        }
    }

    public enum AuditTarget { STDOUT, FILE, OFF }

    /** @param file the file audit lines are appended to, for {@link AuditTarget#FILE} */
    public record Audit(AuditTarget target, Path file) {
        public static final Audit OFF = new Audit(AuditTarget.OFF, null);
        public static final Audit STDOUT = new Audit(AuditTarget.STDOUT, null);
    }

    /** @param host address to bind; {@code 127.0.0.1} unless configured */
    public record Listen(String host, int port) {
        public static final Listen DEFAULT = new Listen("127.0.0.1", 6432);

        @Override
        public String toString() {
            return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
        }
    }

    public enum TlsMode { DISABLE, ALLOW, REQUIRE }

    /** @param certificate PEM certificate chain, null when TLS is disabled */
    public record Tls(TlsMode mode, Path certificate, Path key) {
    }

    public enum SslMode { DISABLE, REQUIRE, VERIFY_FULL }

    /**
     * @param rootCertificate PEM CA bundle used by {@code verify-full}; null means the JDK's trust store
     * @param catalogCheckHost where the catalog check's control connections go (the primary, when {@code host} is a
     *                         read replica: a standby cannot create the temporary view the check needs); null for
     *                         {@code host}
     * @param catalogCheckPort the port there
     * @param catalogCheckConnections control connections of the catalog check per (backend role, database): how
     *                                many new statements of one role are checked at the same time
     */
    public record Backend(String host, int port, SslMode sslmode, Path rootCertificate, String catalogCheckHost,
                          int catalogCheckPort, int catalogCheckConnections) {

        public static final int DEFAULT_CATALOG_CHECK_CONNECTIONS = 2;

        public Backend(String host, int port, SslMode sslmode, Path rootCertificate) {
            this(host, port, sslmode, rootCertificate, null, 0, DEFAULT_CATALOG_CHECK_CONNECTIONS);
        }

        public String controlHost() {
            return catalogCheckHost == null ? host : catalogCheckHost;
        }

        public int controlPort() {
            return catalogCheckHost == null ? port : catalogCheckPort;
        }
    }

    /** @param maxSize backend connections per (backend user, database) */
    /**
     * @param idleTimeout how long a backend connection may wait idle in the pool before it is closed; zero: forever
     */
    public record Pool(int maxSize, Duration waitTimeout, Duration idleTimeout) {

        public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);

        public Pool(int maxSize, Duration waitTimeout) {
            this(maxSize, waitTimeout, DEFAULT_IDLE_TIMEOUT);
        }
    }

    public enum AuthMethod { SCRAM_SHA_256, MD5, TRUST }

    public enum Mode { READ_ONLY, READ_WRITE }

    /**
     * @param password the client's password, null when {@code scramVerifier} or trust is used
     * @param scramVerifier a stored SCRAM-SHA-256 verifier ({@code SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>})
     * @param backendUser the PostgreSQL role this login's sessions use
     * @param policy what this login's statements may do
     */
    public record Login(String name, AuthMethod auth, Secret password, Secret scramVerifier, String backendUser,
                        Secret backendPassword, Policy policy) {

        public Login(String name, AuthMethod auth, Secret password, Secret scramVerifier, String backendUser,
                     Secret backendPassword, Mode mode) {
            this(name, auth, password, scramVerifier, backendUser, backendPassword, Policy.of(mode));
        }

        public Mode mode() {
            return policy.mode();
        }

        public Login withPolicy(Policy changed) {
            return new Login(name, auth, password, scramVerifier, backendUser, backendPassword, changed);
        }
    }

    /**
     * @param statementTimeout the longest a statement of this login may run (PostgreSQL's statement_timeout,
     *                         set when its backend session starts), null for the server's default
     * @param rowCap the most rows one result may hand a read-only login, 0 for no cap (see {@code RowCap})
     * @param tables the relations a read-only login may read, schema-qualified as the security team wrote them;
     *               empty for every relation its role can read
     * @param rules the security team's instructions for questions in plain language, null for none
     */
    public record Policy(Mode mode, Duration statementTimeout, long rowCap, List<String> tables, String rules) {

        public static final int RULES_LIMIT = 2_000;

        public Policy {
            if (rowCap < 0) {
                throw new IllegalArgumentException("rowCap must be 0 (none) or positive, was " + rowCap);
            }
            tables = List.copyOf(tables);
        }

        public Policy(Mode mode, Duration statementTimeout, long rowCap) {
            this(mode, statementTimeout, rowCap, List.of(), null);
        }

        public static Policy of(Mode mode) {
            return new Policy(mode, null, 0);
        }

        public Policy withStatementTimeout(Duration timeout) {
            return new Policy(mode, timeout, rowCap, tables, rules);
        }

        public Policy withRowCap(long cap) {
            return new Policy(mode, statementTimeout, cap, tables, rules);
        }

        public Policy withTables(List<String> selected) {
            return new Policy(mode, statementTimeout, rowCap, selected, rules);
        }
    }
}
