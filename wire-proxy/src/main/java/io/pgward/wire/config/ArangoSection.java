package io.pgward.wire.config;

import io.pgward.arango.AqlLimits;
import io.pgward.arango.ArangoAuth;
import io.pgward.arango.ArangoConfig;
import io.pgward.arango.DriverProtocol;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code arango:} section: one entry per ArangoDB database pgward serves, keyed by the database name clients
 * give pgward (see docs/arango.md). The entries' own checks ({@link ArangoConfig}, {@link AqlLimits}) report the
 * key they concern; they are re-reported here with the full key path.
 */
final class ArangoSection {

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kib|mib|gib|tib)?");
    private static final Pattern KEYED_PROBLEM = Pattern.compile("([a-z_.]+): (.+)", Pattern.DOTALL);

    private enum Auth { USERPASS, TOKEN }

    private ArangoSection() {
    }

    static List<ArangoConfig> read(ConfigSection top) {
        List<ArangoConfig> result = new ArrayList<>();
        for (Map.Entry<String, ConfigSection> entry : top.sections("arango").entrySet()) {
            result.add(entry(entry.getKey(), entry.getValue()));
        }
        return List.copyOf(result);
    }

    private static ArangoConfig entry(String name, ConfigSection section) {
        String path = "arango." + name;
        if (name.equals(ConfigLoader.ADMIN_DATABASE)) {
            throw ConfigException.at(path, "pgward is the name of the admin console; serve the ArangoDB database "
                    + "under another name");
        }
        try {
            String endpoint = section.string("endpoint", null);
            if (endpoint == null || endpoint.isBlank()) {
                throw ConfigException.at(section.keyPath("endpoint"), "is required, e.g. http://localhost:8529");
            }
            ArangoConfig config = new ArangoConfig(name, ArangoConfig.parseEndpoint(endpoint),
                    section.string("database", null), auth(section),
                    protocol(section), limits(section.section("limits")), section.string("description", null),
                    section.readableFile("root_certificate"), loginAccounts(section));
            section.done();
            return config;
        } catch (IllegalArgumentException e) {
            Matcher keyed = KEYED_PROBLEM.matcher(String.valueOf(e.getMessage()));
            throw keyed.matches() ? ConfigException.at(path + "." + keyed.group(1), keyed.group(2))
                    : ConfigException.at(path, String.valueOf(e.getMessage()));
        }
    }

    private static ArangoAuth auth(ConfigSection section) {
        Auth auth = section.choice("auth", Auth.class, Auth.USERPASS);
        String user = section.string("user", null);
        String password = section.string("password", null);
        String token = section.string("token", null);
        return switch (auth) {
            case USERPASS -> {
                if (token != null) {
                    throw ConfigException.at(section.keyPath("token"), "applies to auth token only");
                }
                yield new ArangoAuth.UserPassword(user, password);
            }
            case TOKEN -> {
                if (user != null || password != null) {
                    throw ConfigException.at(section.keyPath(user != null ? "user" : "password"),
                            "applies to auth userpass only");
                }
                if (token == null || token.isBlank()) {
                    throw ConfigException.at(section.keyPath("token"), "is required when auth is token");
                }
                yield new ArangoAuth.Token(token);
            }
        };
    }

    /**
     * {@code logins.<login>}: the ArangoDB account a pgward login runs as on this database, with the same keys
     * as the entry's own ({@code auth}, {@code user}, {@code password}, {@code token}).
     */
    private static Map<String, ArangoAuth> loginAccounts(ConfigSection section) {
        Map<String, ArangoAuth> accounts = new LinkedHashMap<>();
        for (Map.Entry<String, ConfigSection> login : section.sections("logins").entrySet()) {
            ConfigSection account = login.getValue();
            accounts.put(login.getKey(), auth(account));
            account.done();
        }
        return accounts;
    }

    private static DriverProtocol protocol(ConfigSection section) {
        String text = section.string("protocol", null);
        return text == null ? DriverProtocol.HTTP1_JSON : DriverProtocol.fromKey(text.strip());
    }

    private static AqlLimits limits(ConfigSection section) {
        AqlLimits defaults = AqlLimits.DEFAULTS;
        AqlLimits limits = new AqlLimits(section.duration("runtime", defaults.maxRuntime()),
                size(section, "memory", defaults.memoryLimitBytes()),
                section.integer("rows", defaults.maxRows(), 1, Integer.MAX_VALUE),
                section.integer("batch_size", defaults.batchSize(), 1, 100_000));
        section.done();
        return limits;
    }

    /** {@code 1GiB}, {@code 512MiB}, {@code 64KiB}; a bare number is bytes. */
    private static long size(ConfigSection section, String key, long fallback) {
        String text = section.string(key, null);
        if (text == null) {
            return fallback;
        }
        Matcher m = SIZE.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches() || m.group(1).length() > 15) {
            throw ConfigException.at(section.keyPath(key), "must be a size such as 512MiB or 1GiB, "
                    + section.was(key));
        }
        long amount = Long.parseLong(m.group(1));
        int shift = switch (m.group(2) == null ? "b" : m.group(2)) {
            case "kib" -> 10;
            case "mib" -> 20;
            case "gib" -> 30;
            case "tib" -> 40;
            default -> 0;
        };
        if (amount == 0 || amount > (Long.MAX_VALUE >> shift)) {
            throw ConfigException.at(section.keyPath(key), "must be a positive size, " + section.was(key));
        }
        return amount << shift;
    }
}
