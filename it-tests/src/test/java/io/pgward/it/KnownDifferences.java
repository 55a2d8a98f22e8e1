package io.pgward.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The honest record of CatalogOracleIT: every client item whose output through pgward differs from the oracle's
 * today, one line each, {@code client | item | reason}. The test fails on a difference that is not listed and on
 * a listed one that no longer occurs, so the list only shrinks as the filtered catalog grows and never hides a
 * fixed item. Leaks are never listed: a leak always fails.
 *
 * <p>There is one file per PostgreSQL major ({@code catalog-oracle/known-differences-pg17.txt}), since psql's
 * and the drivers' catalog SQL depends on the server version. With {@code -Dpgward.oracle.rewrite=true} the test
 * rewrites the file from its run instead of failing on differences: reasons of lines that still differ are
 * kept, new lines get the refusal text or the first differing line as their reason, and clients whose test did
 * not run keep their lines.
 */
final class KnownDifferences {

    static final String REWRITE_PROPERTY = "pgward.oracle.rewrite";
    private static final String SEPARATOR = " | ";

    private final Path file;
    private final int major;
    private final Map<String, Map<String, String>> byClient;

    private KnownDifferences(Path file, int major, Map<String, Map<String, String>> byClient) {
        this.file = file;
        this.major = major;
        this.byClient = byClient;
    }

    /** The file for this PostgreSQL major, in the source tree (so that a rewrite lands where it is committed). */
    static KnownDifferences load(int major) throws IOException {
        return load(Path.of(System.getProperty("basedir", ".")).toAbsolutePath()
                .resolve("src/test/resources/io/pgward/it/catalog-oracle/known-differences-pg" + major + ".txt"), major);
    }

    static KnownDifferences load(Path file, int major) throws IOException {
        Map<String, Map<String, String>> byClient = new TreeMap<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.split(" \\| ", 3);
                if (parts.length != 3) {
                    throw new IllegalStateException(file + ": not 'client | item | reason': " + line);
                }
                byClient.computeIfAbsent(parts[0], c -> new TreeMap<>()).put(parts[1], parts[2]);
            }
        }
        return new KnownDifferences(file, major, byClient);
    }

    /**
     * A reason that begins with {@code order only:} (rows in another order where the statement has no ORDER BY) or
     * {@code timing:} (figures the server updates in the background) describes a difference that does not show on
     * every run; such an item may also come out equal without failing the test, and stays listed.
     */
    static boolean notEveryRun(String reason) {
        return reason.startsWith("order only:") || reason.startsWith("timing:");
    }

    static boolean rewriting() {
        return Boolean.getBoolean(REWRITE_PROPERTY);
    }

    /** The listed items of client with their reasons. */
    Map<String, String> of(String client) {
        return byClient.getOrDefault(client, Map.of());
    }

    /** Replaces client's lines with this run's differences (item → reason). */
    synchronized void replace(String client, Map<String, String> differences) {
        if (differences.isEmpty()) {
            byClient.remove(client);
        } else {
            byClient.put(client, new TreeMap<>(differences));
        }
    }

    synchronized void write() throws IOException {
        List<String> lines = new ArrayList<>(List.of(
                "# Differences between the oracle database and pgward's analyst login, PostgreSQL " + major + ":",
                "# client | item | reason. CatalogOracleIT fails on a difference not listed here and on a listed one",
                "# that no longer occurs. Rewritten by a run with -D" + REWRITE_PROPERTY + "=true; edit the reasons",
                "# freely, they are kept while the item still differs."));
        byClient.forEach((client, items) -> items.forEach((item, reason) ->
                lines.add(client + SEPARATOR + checked(item) + SEPARATOR + reason)));
        Files.createDirectories(file.getParent());
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    Path file() {
        return file;
    }

    /** Items are names the test chooses (psql commands, method names, corpus numbers): one line, no separator. */
    private static String checked(String item) {
        if (item.contains(SEPARATOR) || item.contains("\n")) {
            throw new IllegalArgumentException("an item name must fit on a line without ' | ': " + item);
        }
        return item;
    }
}
