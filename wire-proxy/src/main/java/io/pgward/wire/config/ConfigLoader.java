package io.pgward.wire.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.pgward.guard.selection.SelectedNames;
import io.pgward.scram.ScramVerifier;
import io.pgward.wire.config.PgwardConfig.AuthMethod;
import io.pgward.wire.config.PgwardConfig.Backend;
import io.pgward.wire.config.PgwardConfig.Listen;
import io.pgward.wire.config.PgwardConfig.Login;
import io.pgward.wire.config.PgwardConfig.Mode;
import io.pgward.wire.config.PgwardConfig.Policy;
import io.pgward.wire.config.PgwardConfig.Pool;
import io.pgward.wire.config.PgwardConfig.SslMode;
import io.pgward.wire.config.PgwardConfig.Tls;
import io.pgward.wire.config.PgwardConfig.TlsMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code pgward.yaml} into a {@link PgwardConfig}. Nothing is guessed: an unknown key, a missing
 * required value, an unset environment variable or a file that does not exist stops pgward with a
 * {@link ConfigException} naming the key. Secrets may come from the environment ({@code ${VAR}}).
 */
public final class ConfigLoader {

    private static final Pattern HOST_PORT = Pattern.compile("(?:\\[([^]]+)]|([^:\\[\\]]+)):(\\d{1,5})");
    // A key given twice is refused: in a security team's file, "the last one wins" hides mistakes.
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /** The database name of the admin console, as PgBouncer's is {@code pgbouncer}: never relayed to PostgreSQL. */
    public static final String ADMIN_DATABASE = "pgward";

    private final Function<String, String> environment;

    public ConfigLoader(Function<String, String> environment) {
        this.environment = environment;
    }

    public static PgwardConfig load(Path file) {
        return new ConfigLoader(System::getenv).read(file);
    }

    public PgwardConfig read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("config file " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
        }
        return parse(text, file.toString());
    }

    /**
     * Only the {@code listen} address of a configuration file, for commands that talk to a running pgward: the rest
     * of the file (its secrets' environment variables among it) is not read.
     */
    public static Listen listenOf(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
        }
        try {
            JsonNode root = YAML.readTree(text);
            return listen(new ConfigSection("", root == null || !root.isObject() ? null : root, System::getenv));
        } catch (JacksonException e) {
            throw new ConfigException(file + " is not valid YAML: " + e.getOriginalMessage());
        }
    }

    PgwardConfig parse(String text, String source) {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (JacksonException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
            throw new ConfigException(source + " is not valid YAML" + where + ": "
                    + e.getOriginalMessage().strip().replaceAll("\\s*\\R\\s*", " "));
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw new ConfigException(source + " is empty");
        }
        if (!root.isObject()) {
            throw new ConfigException(source + " must be a YAML mapping of settings");
        }
        ConfigSection top = new ConfigSection("", root, environment);
        Map<String, Login> logins = logins(top);
        PgwardConfig config = new PgwardConfig(listen(top), top.duration("startup_timeout", Duration.ofSeconds(10)),
                tls(top.section("tls")), backend(top.section("backend")), pool(top.section("pool")), logins,
                audit(top.section("audit")), ArangoSection.read(top), NlConfig.read(top), metrics(top.section("metrics")),
                top.duration("drain_timeout", PgwardConfig.DEFAULT_DRAIN_TIMEOUT), admins(top.section("admin"), logins),
                Optional.empty());
        config = config.withIo(io(top.section("io")));
        if (top.has("mcp")) {
            config = config.withMcp(McpSection.read(top.section("mcp"), config.logins(), config.arango()));
        } else {
            top.section("mcp");
        }
        top.done();
        return config;
    }

    /** {@code admin.logins}: configured logins, each named once; none by default, so no one reaches the console. */
    private static List<String> admins(ConfigSection section, Map<String, Login> logins) {
        List<String> names = section.strings("logins");
        section.done();
        for (int i = 0; i < names.size(); i++) {
            if (!logins.containsKey(names.get(i))) {
                throw ConfigException.at("admin.logins[" + i + "]", "there is no login " + names.get(i));
            }
            if (names.indexOf(names.get(i)) != i) {
                throw ConfigException.at("admin.logins[" + i + "]", names.get(i) + " is listed twice");
            }
        }
        return names;
    }

    private static Listen listen(ConfigSection top) {
        String text = top.string("listen", null);
        return text == null ? Listen.DEFAULT : address(top, "listen", text, "127.0.0.1:6432");
    }

    /** Metrics and health over HTTP only when {@code metrics.listen} is set. */
    private static Optional<Listen> metrics(ConfigSection section) {
        String text = section.string("listen", null);
        Optional<Listen> metrics = text == null ? Optional.empty()
                : Optional.of(address(section, "listen", text, "127.0.0.1:9187"));
        section.done();
        return metrics;
    }

    static Listen address(ConfigSection section, String key, String text, String example) {
        Matcher m = HOST_PORT.matcher(text.strip());
        int port = m.matches() ? Integer.parseInt(m.group(3)) : -1;
        if (port < 0 || port > 65535) {
            throw ConfigException.at(section.keyPath(key), "must be host:port such as " + example + ", "
                    + section.was(key));
        }
        return new Listen(m.group(1) != null ? m.group(1) : m.group(2), port);
    }

    private static Tls tls(ConfigSection section) {
        String certificate = section.string("certificate", null);
        String key = section.string("key", null);
        TlsMode mode = section.choice("mode", TlsMode.class, certificate == null ? TlsMode.DISABLE : TlsMode.ALLOW);
        if (mode != TlsMode.DISABLE && (certificate == null || key == null)) {
            throw ConfigException.at(section.keyPath("mode"), ConfigSection.spelling(mode)
                    + " needs both tls.certificate and tls.key");
        }
        section.done();
        return new Tls(mode, section.readableFile("certificate"), section.readableFile("key"));
    }

    private static Backend backend(ConfigSection section) {
        if (!section.has("host")) {
            throw ConfigException.at("backend.host", "is required (the PostgreSQL server pgward forwards to)");
        }
        String host = section.requiredString("host");
        int port = section.integer("port", 5432, 1, 65535);
        ConfigSection control = section.section("catalog_check");
        String controlHost = control.string("host", null);
        int controlPort = control.integer("port", controlHost == null ? port : 5432, 1, 65535);
        int controlConnections = control.integer("connections", Backend.DEFAULT_CATALOG_CHECK_CONNECTIONS, 1, 100);
        control.done();
        Backend backend = new Backend(host, port, section.choice("sslmode", SslMode.class, SslMode.DISABLE),
                section.readableFile("root_certificate"),
                controlHost, controlPort, controlConnections);
        section.done();
        return backend;
    }

    private static PgwardConfig.Io io(ConfigSection section) {
        PgwardConfig.Io io = new PgwardConfig.Io(section.integer("threads", 0, 0, 1024),
                section.duration("busy_poll", Duration.ZERO));
        if (io.busyPoll().compareTo(PgwardConfig.Io.MAX_BUSY_POLL) > 0) {
            throw ConfigException.at(section.keyPath("busy_poll"), "must be at most 1ms, " + section.was("busy_poll"));
        }
        section.done();
        return io;
    }

    private static Pool pool(ConfigSection section) {
        Pool pool = new Pool(section.integer("max_size", 20, 1, 10_000),
                section.duration("wait_timeout", Duration.ofSeconds(5)),
                section.duration("idle_timeout", Pool.DEFAULT_IDLE_TIMEOUT));
        section.done();
        return pool;
    }

    /** Audit lines go to stdout unless a file is given or the audit is turned off. */
    private static PgwardConfig.Audit audit(ConfigSection section) {
        String file = section.string("file", null);
        PgwardConfig.AuditTarget target = section.choice("target", PgwardConfig.AuditTarget.class,
                file == null ? PgwardConfig.AuditTarget.STDOUT : PgwardConfig.AuditTarget.FILE);
        if (target == PgwardConfig.AuditTarget.FILE && file == null) {
            throw ConfigException.at(section.keyPath("file"), "is required when audit.target is file");
        }
        section.done();
        return new PgwardConfig.Audit(target, file == null ? null : Path.of(file));
    }

    private static Map<String, Login> logins(ConfigSection top) {
        Map<String, Login> result = new LinkedHashMap<>();
        for (Map.Entry<String, ConfigSection> entry : top.sections("logins").entrySet()) {
            result.put(entry.getKey(), login(entry.getKey(), entry.getValue()));
        }
        if (result.isEmpty()) {
            throw ConfigException.at("logins", "at least one login is required");
        }
        return Collections.unmodifiableMap(result);
    }

    private static Login login(String name, ConfigSection section) {
        AuthMethod auth = section.choice("auth", AuthMethod.class, AuthMethod.SCRAM_SHA_256);
        Secret password = secret(section.string("password", null));
        Secret verifier = secret(section.string("scram_verifier", null));
        if (auth != AuthMethod.TRUST && password == null && (verifier == null || auth == AuthMethod.MD5)) {
            throw ConfigException.at(section.keyPath("password"), "is required for auth "
                    + ConfigSection.spelling(auth) + (auth == AuthMethod.SCRAM_SHA_256 ? " (or give scram_verifier)" : ""));
        }
        if (auth != AuthMethod.TRUST && password != null && password.value().isEmpty()) {
            // PostgreSQL refuses an empty password too: a login anyone could guess is no login.
            throw ConfigException.at(section.keyPath("password"), "must not be empty");
        }
        if (verifier != null && !verifier.value().startsWith("SCRAM-SHA-256$")) {
            throw ConfigException.at(section.keyPath("scram_verifier"), "must start with SCRAM-SHA-256$");
        }
        if (verifier != null) {
            requireVerifier(section.keyPath("scram_verifier"), verifier.value());
        }
        Login login = new Login(name, auth, password, verifier, section.string("backend_user", name),
                secret(section.string("backend_password", null)), policy(section));
        section.done();
        return login;
    }

    /** Read when the file is loaded, so a bad verifier is a refusal naming its key; the message never holds the keys. */
    private static void requireVerifier(String key, String text) {
        try {
            ScramVerifier.parse(text);
        } catch (IllegalArgumentException e) {
            throw ConfigException.at(key, e.getMessage());
        }
    }

    private static Policy policy(ConfigSection section) {
        // Fail closed: a login that does not say otherwise is read-only.
        Mode mode = section.choice("mode", Mode.class, Mode.READ_ONLY);
        int rowCap = section.integer("row_cap", 0, 1, Integer.MAX_VALUE);
        if (rowCap > 0 && mode == Mode.READ_WRITE) {
            // A capped write could have committed before the cap stops it; the client would be told it failed.
            throw ConfigException.at(section.keyPath("row_cap"), "applies to read-only logins only");
        }
        List<String> tables = section.strings("tables");
        if (!tables.isEmpty() && mode == Mode.READ_WRITE) {
            throw ConfigException.at(section.keyPath("tables"), "applies to read-only logins only");
        }
        try {
            SelectedNames.parse(section.keyPath("tables"), tables);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
        String rules = section.string("rules", null);
        if (rules != null && rules.length() > Policy.RULES_LIMIT) {
            throw ConfigException.at(section.keyPath("rules"), "must be at most 2,000 characters, has "
                    + rules.length());
        }
        return new Policy(mode, section.duration("statement_timeout", null), rowCap, tables, rules);
    }

    private static Secret secret(String value) {
        return value == null ? null : new Secret(value);
    }
}
