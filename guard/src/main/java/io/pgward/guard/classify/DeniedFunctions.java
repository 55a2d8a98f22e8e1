package io.pgward.guard.classify;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The built-in functions a read-only login may not call, read once from {@code denied-functions.txt} next to this
 * class: the single place the list lives. Names are matched as PostgreSQL resolves them (see the file's header);
 * callers pass the unqualified name already folded.
 */
final class DeniedFunctions {

    static final String RESOURCE = "denied-functions.txt";

    private final Map<String, String> exact;
    private final List<Pattern> patterns;

    private record Pattern(String prefix, String suffix, String family) {
        boolean matches(String name) {
            return name.length() >= prefix.length() + suffix.length()
                    && name.startsWith(prefix) && name.endsWith(suffix);
        }
    }

    private DeniedFunctions(Map<String, String> exact, List<Pattern> patterns) {
        this.exact = Map.copyOf(exact);
        this.patterns = List.copyOf(patterns);
    }

    static DeniedFunctions load() {
        try (InputStream in = DeniedFunctions.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the guard's function deny-list " + RESOURCE + " is missing");
            }
            return parse(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList());
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the guard's function deny-list " + RESOURCE, e);
        }
    }

    static DeniedFunctions parse(List<String> lines) {
        Map<String, String> exact = new HashMap<>();
        List<Pattern> patterns = new ArrayList<>();
        String family = null;
        int number = 0;
        for (String raw : lines) {
            number++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                family = line.substring(1, line.length() - 1);
                continue;
            }
            if (family == null || !line.matches("[a-z0-9_*]+") || line.indexOf('*') != line.lastIndexOf('*')
                    || line.equals("*")) {
                throw new IllegalStateException(RESOURCE + " line " + number + ": not a name or pattern in a family: "
                        + raw);
            }
            int star = line.indexOf('*');
            if (star < 0) {
                exact.put(line, family);
            } else {
                patterns.add(new Pattern(line.substring(0, star), line.substring(star + 1), family));
            }
        }
        return new DeniedFunctions(exact, patterns);
    }

    /** The family that denies {@code name} (unqualified, folded as PostgreSQL folds it), or empty. */
    Optional<String> familyOf(String name) {
        String family = exact.get(name);
        if (family != null) {
            return Optional.of(family);
        }
        for (Pattern p : patterns) {
            if (p.matches(name)) {
                return Optional.of(p.family());
            }
        }
        return Optional.empty();
    }

    /** Families a table selection brings, which a login without one is not held to. */
    static final String SELECTION = "selection";
    static final String GATED = "gated";

    /** Whether {@code name} is refused for a login whose catalog functions are judged as {@code mode} says. */
    boolean denies(String name, ReadOnlyPolicy.CatalogFunctions mode) {
        return familyOf(name).map(family -> switch (family) {
            case SELECTION -> mode != ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED;
            case GATED -> mode == ReadOnlyPolicy.CatalogFunctions.DENIED;
            default -> true;
        }).orElse(false);
    }
}
