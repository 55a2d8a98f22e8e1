package io.pgward.wire.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One mapping of the YAML file, read key by key. Every error names the full key path
 * ({@code logins.analyst.mode}); {@link #done()} refuses keys nobody asked for, so a typo never passes
 * silently. Strings go through {@code ${VAR}} / {@code ${VAR:-default}} interpolation from the environment.
 */
final class ConfigSection {

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(us|ms|s|m|h)?");

    private final String path;
    private final JsonNode node;
    private final Function<String, String> environment;
    private final Set<String> read = new HashSet<>();

    ConfigSection(String path, JsonNode node, Function<String, String> environment) {
        this.path = path;
        this.node = node;
        this.environment = environment;
        if (node != null && !node.isObject()) {
            throw ConfigException.at(path, "must be a mapping of keys to values");
        }
    }

    boolean has(String key) {
        return node != null && node.has(key) && !node.get(key).isNull();
    }

    /** Whether the key is written at all, even with an empty value ({@code nl:} alone). */
    boolean present(String key) {
        return node != null && node.has(key);
    }

    String string(String key, String fallback) {
        read.add(key);
        if (!has(key)) {
            return fallback;
        }
        JsonNode value = node.get(key);
        if (!value.isValueNode()) {
            throw ConfigException.at(keyPath(key), "must be a single value");
        }
        return interpolate(keyPath(key), value.asText());
    }

    /** A list of single values ({@code tables: [public.orders, hr."Pay"]}); empty when absent. */
    java.util.List<String> strings(String key) {
        read.add(key);
        if (!has(key)) {
            return java.util.List.of();
        }
        JsonNode value = node.get(key);
        if (!value.isArray()) {
            throw ConfigException.at(keyPath(key), "must be a list");
        }
        java.util.List<String> result = new java.util.ArrayList<>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            if (!item.isValueNode() || item.isNull()) {
                throw ConfigException.at(keyPath(key) + "[" + i + "]", "must be a single value");
            }
            result.add(interpolate(keyPath(key) + "[" + i + "]", item.asText()));
        }
        return java.util.List.copyOf(result);
    }

    /**
     * How an error shows the value of {@code key}: as written, or, when it came from the environment
     * ({@code ${VAR}}), only the variable's name: a secret put under the wrong key must not be echoed.
     */
    String was(String key) {
        String raw = node != null && node.has(key) && node.get(key).isValueNode() ? node.get(key).asText() : "";
        return VARIABLE.matcher(raw).find() ? "was \"" + raw + "\" (from the environment; its value is not shown)"
                : "was \"" + raw + "\"";
    }

    /** The path of a file that exists and can be read; null when the key is absent. */
    Path readableFile(String key) {
        String value = string(key, null);
        if (value == null) {
            return null;
        }
        Path path = Path.of(value);
        if (!Files.isReadable(path)) {
            throw ConfigException.at(keyPath(key), "file " + path + " does not exist or cannot be read");
        }
        return path;
    }

    String requiredString(String key) {
        String value = string(key, null);
        if (value == null || value.isBlank()) {
            throw ConfigException.at(keyPath(key), "is required");
        }
        return value;
    }

    int integer(String key, int fallback, int min, int max) {
        String text = string(key, null);
        if (text == null) {
            return fallback;
        }
        try {
            int value = Integer.parseInt(text.strip());
            if (value < min || value > max) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw ConfigException.at(keyPath(key), "must be a whole number from " + min + " to " + max
                    + ", " + was(key));
        }
    }

    /** {@code 100us}, {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}; a bare number is seconds. */
    Duration duration(String key, Duration fallback) {
        String text = string(key, null);
        if (text == null) {
            return fallback;
        }
        Matcher m = DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw ConfigException.at(keyPath(key), "must be a duration such as 500ms, 10s or 5m, " + was(key));
        }
        String unit = m.group(2) == null ? "s" : m.group(2);
        try {
            long amount = Long.parseLong(m.group(1));
            return switch (unit) {
                case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1000L));
                case "ms" -> Duration.ofMillis(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofSeconds(amount);
            };
        } catch (ArithmeticException | NumberFormatException e) {
            throw ConfigException.at(keyPath(key), "is too long a duration, " + was(key));
        }
    }

    <E extends Enum<E>> E choice(String key, Class<E> type, E fallback) {
        String text = string(key, null);
        if (text == null) {
            return fallback;
        }
        // YAML 1.1 reads an unquoted off, no, on or yes as a boolean; where a word is meant, take the word.
        Set<String> words = node.get(key).isBoolean()
                ? (node.get(key).booleanValue() ? Set.of("on", "yes", "true") : Set.of("off", "no", "false"))
                : Set.of(text.strip().toLowerCase(Locale.ROOT));
        StringBuilder allowed = new StringBuilder();
        for (E constant : type.getEnumConstants()) {
            String spelling = spelling(constant);
            if (words.contains(spelling)) {
                return constant;
            }
            allowed.append(allowed.isEmpty() ? "" : ", ").append(spelling);
        }
        throw ConfigException.at(keyPath(key), "must be one of " + allowed + ", " + was(key)
                + (node.get(key).isBoolean() ? " (YAML reads an unquoted on, off, yes or no as true or false)" : ""));
    }

    /** How an enum constant is written in the file: {@code READ_ONLY} as {@code read-only}. */
    static String spelling(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    ConfigSection section(String key) {
        read.add(key);
        return new ConfigSection(keyPath(key), has(key) ? node.get(key) : null, environment);
    }

    /** The sub-sections of a mapping of names to mappings ({@code logins:}), in file order. */
    Map<String, ConfigSection> sections(String key) {
        ConfigSection parent = section(key);
        Map<String, ConfigSection> result = new LinkedHashMap<>();
        if (parent.node == null) {
            return result;
        }
        Iterator<Map.Entry<String, JsonNode>> fields = parent.node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            result.put(field.getKey(), new ConfigSection(parent.keyPath(field.getKey()), field.getValue(), environment));
        }
        return result;
    }

    /** Refuses any key of this mapping that was not read. */
    void done() {
        if (node == null) {
            return;
        }
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!read.contains(name)) {
                throw ConfigException.at(keyPath(name), "is not a setting pgward knows");
            }
        }
    }

    /** This section's own key path ({@code mcp.logins.analyst}). */
    String path() {
        return path;
    }

    String keyPath(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private String interpolate(String keyPath, String text) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder result = new StringBuilder();
        while (m.find()) {
            String value = environment.apply(m.group(1));
            if (value == null) {
                value = m.group(2);
            }
            if (value == null) {
                throw ConfigException.at(keyPath, "environment variable " + m.group(1) + " is not set");
            }
            m.appendReplacement(result, Matcher.quoteReplacement(value));
        }
        m.appendTail(result);
        return result.toString();
    }
}
