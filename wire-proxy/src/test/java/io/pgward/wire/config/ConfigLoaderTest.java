package io.pgward.wire.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.arango.AqlLimits;
import io.pgward.arango.ArangoAuth;
import io.pgward.arango.ArangoConfig;
import io.pgward.arango.DriverProtocol;
import io.pgward.wire.config.PgwardConfig.AuthMethod;
import io.pgward.wire.config.PgwardConfig.Login;
import io.pgward.wire.config.PgwardConfig.Mode;
import io.pgward.wire.config.PgwardConfig.SslMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    private static final Map<String, String> ENV = Map.of("ANALYST_PASSWORD", "s3cret", "APP_DB_PASSWORD", "db-pass");
    private final ConfigLoader loader = new ConfigLoader(ENV::get);

    private static final String MINIMAL = """
            backend:
              host: db.internal
            logins:
              analyst:
                password: ${ANALYST_PASSWORD}
            """;

    @Test
    void readsAMinimalFileWithSafeDefaults() {
        PgwardConfig config = loader.parse(MINIMAL, "pgward.yaml");
        assertEquals("127.0.0.1:6432", config.listen().toString());
        assertEquals(Duration.ofSeconds(10), config.startupTimeout());
        assertEquals(5432, config.backend().port());
        assertEquals(SslMode.DISABLE, config.backend().sslmode());
        assertEquals(20, config.pool().maxSize());
        assertEquals(Duration.ofMinutes(10), config.pool().idleTimeout());
        assertEquals(PgwardConfig.Audit.STDOUT, config.audit(), "decisions are audited on stdout by default");
        Login analyst = config.logins().get("analyst");
        assertEquals(Mode.READ_ONLY, analyst.mode(), "a login is read-only unless it says otherwise");
        assertEquals(AuthMethod.SCRAM_SHA_256, analyst.auth());
        assertEquals("s3cret", analyst.password().value());
        assertEquals("analyst", analyst.backendUser());
    }

    @Test
    void readsEverySetting() {
        PgwardConfig config = loader.parse("""
                listen: "[::1]:7000"
                startup_timeout: 2500ms
                backend:
                  host: db.internal
                  port: 6543
                  sslmode: verify-full
                pool:
                  max_size: 4
                  wait_timeout: 2m
                  idle_timeout: 90s
                logins:
                  app:
                    auth: md5
                    password: app-pass
                    backend_user: app_owner
                    backend_password: ${APP_DB_PASSWORD}
                    mode: read-write
                    statement_timeout: 30s
                  bi:
                    auth: trust
                    row_cap: 5000
                """, "pgward.yaml");
        assertEquals("::1", config.listen().host());
        assertEquals(7000, config.listen().port());
        assertEquals(Duration.ofMillis(2500), config.startupTimeout());
        assertEquals(SslMode.VERIFY_FULL, config.backend().sslmode());
        assertEquals(Duration.ofMinutes(2), config.pool().waitTimeout());
        assertEquals(Duration.ofSeconds(90), config.pool().idleTimeout());
        Login app = config.logins().get("app");
        assertEquals(Mode.READ_WRITE, app.mode());
        assertEquals("db-pass", app.backendPassword().value());
        assertEquals("app_owner", app.backendUser());
        assertEquals(Duration.ofSeconds(30), app.policy().statementTimeout());
        assertNull(config.logins().get("bi").password());
        assertEquals(5000, config.logins().get("bi").policy().rowCap());
        assertEquals(0, app.policy().rowCap(), "no cap unless configured");
        assertEquals(java.util.List.of("app", "bi"), java.util.List.copyOf(config.logins().keySet()));
    }

    @Test
    void readsArangoDatabasesWithDefaultsAndEverySetting(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        ConfigLoader withSecrets = new ConfigLoader(Map.of("ANALYST_PASSWORD", "s3cret",
                "ARANGO_JWT", "eyJ.token", "ARANGO_PASSWORD", "pw")::get);
        PgwardConfig config = withSecrets.parse(MINIMAL + """
                arango:
                  shopdocs:
                    endpoint: https://abc123.arangodb.cloud:8529
                    root_certificate: %s
                    database: shop
                    auth: token
                    token: ${ARANGO_JWT}
                    protocol: http2
                    description: Orders and customers.
                    limits:
                      runtime: 5s
                      memory: 512MiB
                      rows: 100
                      batch_size: 50
                  graphs:
                    endpoint: http://arangodb.internal
                    auth: userpass
                    user: pgward_reader
                    password: ${ARANGO_PASSWORD}
                    logins:
                      analyst:
                        user: analyst_ro
                        password: ${ANALYST_PASSWORD}
                      agent:
                        auth: token
                        token: ${ARANGO_JWT}
                """.formatted(ca), "pgward.yaml");

        assertEquals(2, config.arango().size());
        ArangoConfig shop = config.arango().get(0);
        assertEquals("shopdocs", shop.name());
        assertEquals("https://abc123.arangodb.cloud:8529", shop.endpoint().toString());
        assertEquals(ca, shop.rootCertificate());
        assertEquals("shop", shop.database());
        assertEquals(new ArangoAuth.Token("eyJ.token"), shop.auth());
        assertEquals(DriverProtocol.HTTP2_JSON, shop.protocol());
        assertEquals("Orders and customers.", shop.description());
        assertEquals(new AqlLimits(Duration.ofSeconds(5), 512L << 20, 100, 50), shop.limits());

        ArangoConfig graphs = config.arango().get(1);
        assertEquals("graphs", graphs.name());
        assertEquals(8529, graphs.port());
        assertEquals("_system", graphs.database());
        assertEquals(new ArangoAuth.UserPassword("pgward_reader", "pw"), graphs.auth());
        assertEquals(DriverProtocol.HTTP1_JSON, graphs.protocol());
        assertEquals(AqlLimits.DEFAULTS, graphs.limits());
        assertEquals(Map.of("analyst", new ArangoAuth.UserPassword("analyst_ro", "s3cret"),
                "agent", new ArangoAuth.Token("eyJ.token")), graphs.loginAuth());
        assertEquals(new ArangoAuth.UserPassword("analyst_ro", "s3cret"), graphs.authFor("analyst"));
        assertEquals(graphs.auth(), graphs.authFor("someone_else"), "a login without an account uses the entry's");
        assertEquals(Map.of(), shop.loginAuth());
        assertEquals(new AqlLimits(Duration.ofSeconds(30), 1L << 30, 25_000, 1_000), AqlLimits.DEFAULTS,
                "30 s, 1 GiB and 25,000 rows unless configured");
        assertFalse(config.toString().contains("eyJ.token"), "the token never shows");
        assertFalse(config.toString().contains("=pw"), "the password never shows");
        assertFalse(config.toString().contains("s3cret"), "a login account's password never shows");
    }

    @Test
    void servesMetricsOnlyWhereMetricsListenSays() {
        assertEquals(java.util.Optional.empty(), loader.parse(MINIMAL, "pgward.yaml").metrics());
        assertEquals(java.util.Optional.of(new PgwardConfig.Listen("0.0.0.0", 9187)),
                loader.parse(MINIMAL + "metrics: {listen: '0.0.0.0:9187'}", "f").metrics());
        assertError("metrics.listen: must be host:port such as 127.0.0.1:9187, was \"9187\"",
                MINIMAL + "metrics: {listen: '9187'}");
        assertError("metrics.port: is not a setting pgward knows", MINIMAL + "metrics: {port: 9187}");
    }

    @Test
    void hasNoArangoDatabasesUnlessConfigured() {
        assertEquals(java.util.List.of(), loader.parse(MINIMAL, "pgward.yaml").arango());
        assertEquals("root", ((ArangoAuth.UserPassword) loader.parse(MINIMAL
                + "arango: {docs: {endpoint: 'http://h:1', user: ''}}", "f").arango().get(0).auth()).user(),
                "a blank user is root");
    }

    @Test
    void namesTheKeyOfEachArangoMistake() {
        assertError("arango.docs.endpoint: is required, e.g. http://localhost:8529", MINIMAL
                + "arango: {docs: {database: shop}}");
        assertError("arango.docs.endpoint: must start with http:// or https://, was \"tcp://h:8529\"", MINIMAL
                + "arango: {docs: {endpoint: 'tcp://h:8529'}}");
        assertError("arango.docs.auth: must be one of userpass, token, was \"kerberos\"", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', auth: kerberos}}");
        assertError("arango.docs.token: is required when auth is token", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', auth: token}}");
        assertError("arango.docs.password: applies to auth userpass only", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', auth: token, token: t, password: p}}");
        assertError("arango.docs.token: applies to auth token only", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', token: t}}");
        assertError("arango.docs.protocol: must be one of http1, http2, was \"vst\"", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', protocol: vst}}");
        assertError("arango.docs.limits.memory: must be a size such as 512MiB or 1GiB, was \"1GB\"", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', limits: {memory: 1GB}}}");
        assertError("arango.docs.limits.rows: must be a whole number from 1 to 2147483647, was \"0\"", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', limits: {rows: 0}}}");
        assertError("arango.docs.limits.runtime: must be a positive duration, was PT0S", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', limits: {runtime: 0s}}}");
        assertError("arango.docs.logins.analyst.token: applies to auth token only", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', logins: {analyst: {user: a, token: t}}}}");
        assertError("arango.docs.logins.analyst.role: is not a setting pgward knows", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', logins: {analyst: {user: a, role: ro}}}}");
        assertError("arango.docs.limits.timeout: is not a setting pgward knows", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', limits: {timeout: 5s}}}");
        assertError("arango.docs.pasword: is not a setting pgward knows", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', pasword: x}}");
        assertError("arango.docs.root_certificate: only applies to an https endpoint", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', root_certificate: /etc/hostname}}");
        assertError("arango.docs.root_certificate: file /nope.pem does not exist or cannot be read", MINIMAL
                + "arango: {docs: {endpoint: 'https://h', root_certificate: /nope.pem}}");
        assertError("arango.docs.password: environment variable NOPE is not set", MINIMAL
                + "arango: {docs: {endpoint: 'http://h', password: '${NOPE}'}}");
        assertError("arango.docs: must be a mapping of keys to values", MINIMAL + "arango: {docs: http://h}");
    }

    @Test
    void neverShowsSecretsInToString() {
        String text = loader.parse(MINIMAL, "pgward.yaml").toString();
        assertFalse(text.contains("s3cret"), text);
    }

    @Test
    void namesTheKeyOfEachMistake() {
        assertError("backend.host: is required (the PostgreSQL server pgward forwards to)", "logins: {a: {auth: trust}}");
        assertError("backend.port: must be a whole number from 1 to 65535, was \"99999\"",
                "backend: {host: h, port: 99999}\nlogins: {a: {auth: trust}}");
        assertError("logins.a.mode: must be one of read-only, read-write, was \"admin\"",
                "backend: {host: h}\nlogins: {a: {auth: trust, mode: admin}}");
        assertError("logins.a.passwrd: is not a setting pgward knows",
                "backend: {host: h}\nlogins: {a: {auth: trust, passwrd: x}}");
        assertError("logins.a.password: is required for auth scram-sha-256 (or give scram_verifier)",
                "backend: {host: h}\nlogins: {a: {mode: read-only}}");
        assertError("logins.a.password: environment variable NOPE is not set",
                "backend: {host: h}\nlogins: {a: {password: '${NOPE}'}}");
        assertError("logins: at least one login is required", "backend: {host: h}");
        assertError("listen: must be host:port such as 127.0.0.1:6432, was \"6432\"",
                "listen: 6432\nbackend: {host: h}\nlogins: {a: {auth: trust}}");
        assertError("tls.mode: require needs both tls.certificate and tls.key",
                "tls: {mode: require}\nbackend: {host: h}\nlogins: {a: {auth: trust}}");
        assertError("pool.wait_timeout: must be a duration such as 500ms, 10s or 5m, was \"soon\"",
                "pool: {wait_timeout: soon}\nbackend: {host: h}\nlogins: {a: {auth: trust}}");
        assertError("audit.file: is required when audit.target is file",
                "audit: {target: file}\nbackend: {host: h}\nlogins: {a: {auth: trust}}");
        assertError("logins.a.row_cap: must be a whole number from 1 to 2147483647, was \"0\"",
                "backend: {host: h}\nlogins: {a: {auth: trust, row_cap: 0}}");
        assertError("logins.a.row_cap: applies to read-only logins only",
                "backend: {host: h}\nlogins: {a: {auth: trust, mode: read-write, row_cap: 10}}");
        assertError("logins.a.scram_verifier: must start with SCRAM-SHA-256$",
                "backend: {host: h}\nlogins: {a: {scram_verifier: md5abc}}");
        assertError("logins.a.scram_verifier: SCRAM ServerKey must be 32 bytes, was 3",
                "backend: {host: h}\nlogins: {a: {scram_verifier: \"SCRAM-SHA-256$4096:c2FsdA==$"
                        + "7PBjQ/O/OQ2kj/4C9TT8uxIIyMixFZUvFu/3guDsfrc=:QUJD\"}}");
    }

    @Test
    void neverEchoesAValueThatCameFromTheEnvironment() {
        // A secret put under a key that is not a secret's: the error names the variable, not its value.
        assertError("logins.a.mode: must be one of read-only, read-write, was \"${ANALYST_PASSWORD}\" (from the "
                + "environment; its value is not shown)",
                "backend: {host: h}\nlogins: {a: {auth: trust, mode: '${ANALYST_PASSWORD}'}}");
        assertError("backend.port: must be a whole number from 1 to 65535, was \"${APP_DB_PASSWORD}\" (from the "
                + "environment; its value is not shown)",
                "backend: {host: h, port: '${APP_DB_PASSWORD}'}\nlogins: {a: {auth: trust}}");
        assertError("listen: must be host:port such as 127.0.0.1:6432, was \"x${ANALYST_PASSWORD}\" (from the "
                + "environment; its value is not shown)",
                "listen: 'x${ANALYST_PASSWORD}'\nbackend: {host: h}\nlogins: {a: {auth: trust}}");
    }

    @Test
    void anEmptyPasswordNamesItsKey() {
        assertError("logins.a.password: must not be empty", "backend: {host: h}\nlogins: {a: {password: ''}}");
        assertError("logins.a.password: must not be empty",
                "backend: {host: h}\nlogins: {a: {auth: md5, password: '${EMPTY:-}'}}");
    }

    @Test
    void aWordYamlReadsAsABooleanIsTakenAsTheWord() {
        assertEquals(PgwardConfig.AuditTarget.OFF, loader.parse(
                "audit: {target: off}\nbackend: {host: h}\nlogins: {a: {auth: trust}}", "f").audit().target());
        assertEquals(PgwardConfig.AuditTarget.OFF, loader.parse(
                "audit: {target: no}\nbackend: {host: h}\nlogins: {a: {auth: trust}}", "f").audit().target());
        assertError("audit.target: must be one of stdout, file, off, was \"true\" (YAML reads an unquoted on, off, "
                + "yes or no as true or false)", "audit: {target: on}\nbackend: {host: h}\nlogins: {a: {auth: trust}}");
    }

    @Test
    void readsTheTableSelectionAndWhereTheCatalogCheckRuns() {
        PgwardConfig config = loader.parse("""
                backend:
                  host: replica.internal
                  catalog_check: {host: primary.internal, connections: 6}
                logins:
                  analyst:
                    auth: trust
                    tables: [public.orders, '"Sales 2026".daily']
                    rules: Only aggregate salaries by department.
                """, "f");
        assertEquals("primary.internal", config.backend().controlHost());
        assertEquals(5432, config.backend().controlPort());
        assertEquals(6, config.backend().catalogCheckConnections());
        assertEquals(java.util.List.of("public.orders", "\"Sales 2026\".daily"),
                config.logins().get("analyst").policy().tables());
        assertEquals("Only aggregate salaries by department.", config.logins().get("analyst").policy().rules());
        PgwardConfig plain = loader.parse("backend: {host: db, port: 6000}\nlogins: {a: {auth: trust}}", "f");
        assertEquals("db", plain.backend().controlHost());
        assertEquals(6000, plain.backend().controlPort());
        assertEquals(2, plain.backend().catalogCheckConnections());
    }

    @Test
    void refusesSelectionsItCannotEnforce() {
        assertError("logins.a.tables: applies to read-only logins only",
                "backend: {host: h}\nlogins: {a: {auth: trust, mode: read-write, tables: [public.t]}}");
        ConfigException bare = assertThrows(ConfigException.class, () -> loader.parse(
                "backend: {host: h}\nlogins: {a: {auth: trust, tables: [orders]}}", "f"));
        assertTrue(bare.getMessage().startsWith("logins.a.tables[0]: "), bare.getMessage());
        assertTrue(bare.getMessage().contains("schema-qualified"), bare.getMessage());
        assertError("logins.a.rules: must be at most 2,000 characters, has 2001",
                "backend: {host: h}\nlogins: {a: {auth: trust, rules: '" + "x".repeat(2001) + "'}}");
    }

    @Test
    void usesDefaultsWrittenInsideVariables() {
        PgwardConfig config = loader.parse("backend: {host: '${DB_HOST:-localhost}'}\nlogins: {a: {auth: trust}}", "f");
        assertEquals("localhost", config.backend().host());
    }

    @Test
    void refusesMalformedEmptyAndDuplicatedFiles() {
        ConfigException malformed = assertThrows(ConfigException.class,
                () -> loader.parse("backend: [unclosed\n", "pgward.yaml"));
        assertEquals(true, malformed.getMessage().startsWith("pgward.yaml is not valid YAML at line "),
                malformed.getMessage());
        assertError("pgward.yaml is empty", "");
        assertError("pgward.yaml must be a YAML mapping of settings", "- a\n- b\n");
        ConfigException duplicate = assertThrows(ConfigException.class,
                () -> loader.parse("backend: {host: a}\nbackend: {host: b}\nlogins: {a: {auth: trust}}", "pgward.yaml"));
        assertEquals(true, duplicate.getMessage().contains("Duplicate field 'backend'"), duplicate.getMessage());
    }

    @Test
    void reportsAMissingFile(@TempDir Path dir) {
        Path missing = dir.resolve("nope.yaml");
        ConfigException e = assertThrows(ConfigException.class, () -> loader.read(missing));
        assertEquals("config file " + missing + " does not exist", e.getMessage());
    }

    @Test
    void readsAFileFromDisk(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("pgward.yaml"), MINIMAL);
        assertEquals("db.internal", loader.read(file).backend().host());
    }

    @Test
    void eventLoopsAreOnePerCpuAndSleepAtOnceUnlessConfigured() {
        PgwardConfig defaults = loader.parse(MINIMAL, "pgward.yaml");
        assertEquals(PgwardConfig.Io.DEFAULT, defaults.io());
        assertEquals(2, defaults.io().threadsFor(1), "at least two event loops");
        assertEquals(8, defaults.io().threadsFor(8));
        PgwardConfig tuned = loader.parse(MINIMAL + "io: {threads: 1, busy_poll: 100us}\n", "pgward.yaml");
        assertEquals(new PgwardConfig.Io(1, Duration.ofNanos(100_000)), tuned.io());
        assertEquals(1, tuned.io().threadsFor(8));
        assertEquals(Duration.ofMillis(1), loader.parse(MINIMAL + "io: {busy_poll: 1ms}\n", "pgward.yaml").io()
                .busyPoll());
        assertError("io.busy_poll: must be at most 1ms, was \"2ms\"", MINIMAL + "io: {busy_poll: 2ms}\n");
        assertError("io.threads: must be a whole number from 0 to 1024, was \"-1\"", MINIMAL + "io: {threads: -1}\n");
        assertError("io.busy_pol: is not a setting pgward knows", MINIMAL + "io: {busy_pol: 10us}\n");
        assertError("io.busy_poll: is too long a duration, was \"99999999999999999999us\"",
                MINIMAL + "io: {busy_poll: 99999999999999999999us}\n");
        assertError("startup_timeout: is too long a duration, was \"9999999999999999h\"",
                MINIMAL + "startup_timeout: 9999999999999999h\n");
    }

    private void assertError(String expected, String yaml) {
        ConfigException e = assertThrows(ConfigException.class, () -> loader.parse(yaml, "pgward.yaml"));
        assertEquals(expected, e.getMessage());
    }

    @Test
    void adminLoginsMustBeConfiguredLoginsAndNoneIsTheDefault() {
        assertTrue(loader.parse(MINIMAL, "pgward.yaml").admins().isEmpty(), "no one reaches the console by default");
        PgwardConfig config = loader.parse(MINIMAL + "admin:\n  logins: [analyst]\n", "pgward.yaml");
        assertTrue(config.isAdmin("analyst"));
        ConfigException unknown = assertThrows(ConfigException.class,
                () -> loader.parse(MINIMAL + "admin:\n  logins: [analyst, ops]\n", "pgward.yaml"));
        assertEquals("admin.logins[1]: there is no login ops", unknown.getMessage());
        ConfigException typo = assertThrows(ConfigException.class,
                () -> loader.parse(MINIMAL + "admin:\n  login: [analyst]\n", "pgward.yaml"));
        assertTrue(typo.getMessage().startsWith("admin.login:"), typo.getMessage());
    }

    @Test
    void theAdminConsolesNameIsNotAnArangoDatabase() {
        ConfigException e = assertThrows(ConfigException.class, () -> loader.parse(MINIMAL + """
                arango:
                  pgward:
                    endpoint: http://arangodb:8529
                """, "pgward.yaml"));
        assertTrue(e.getMessage().startsWith("arango.pgward: pgward is the name of the admin console"),
                e.getMessage());
    }

    @Test
    void listenOfReadsOnlyTheAddress(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("pgward.yaml"), """
                listen: 0.0.0.0:7432
                logins:
                  analyst:
                    password: ${NOT_SET_WHERE_RELOAD_RUNS}
                """);
        assertEquals("0.0.0.0:7432", ConfigLoader.listenOf(file).toString());
    }
}
