package io.pgward.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Compares one client's items between the oracle and pgward, classifies each (equal, differs and listed,
 * differs and not listed, listed but equal again, leak), keeps the rows for the run's report, and fails the
 * calling test for leaks, unlisted differences and listed items that no longer differ.
 */
final class OracleComparison {

    enum Outcome { EQUAL, DIFFERS_KNOWN, DIFFERS_UNLISTED, LISTED_BUT_EQUAL, LEAK }

    record Row(String client, String item, Outcome outcome, String detail) {
    }

    private final KnownDifferences known;
    private final OracleNormalisation normalisation;
    private final Path outputs;
    private final List<Row> rows = new ArrayList<>();

    /** outputs: a directory for each client's raw outputs on both sides, for reading a difference in full. */
    OracleComparison(KnownDifferences known, OracleNormalisation normalisation, Path outputs) {
        this.known = known;
        this.normalisation = normalisation;
        this.outputs = outputs;
    }

    /** Compares client's items (item → printed text) and fails the test as described above. */
    void check(String client, Map<String, String> onOracle, Map<String, String> throughPgward) throws IOException {
        check(client, Map.of(), onOracle, throughPgward);
    }

    /** As above, knowing what the client sent for some items (item → command or statement), which it may echo. */
    void check(String client, Map<String, String> inputs, Map<String, String> onOracle,
               Map<String, String> throughPgward) throws IOException {
        keep(client, onOracle, throughPgward);
        TreeSet<String> items = new TreeSet<>(onOracle.keySet());
        items.addAll(throughPgward.keySet());
        Map<String, String> listed = known.of(client);
        Map<String, String> differences = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (String item : items) {
            String rawOracle = onOracle.getOrDefault(item, "(no output)");
            String rawPgward = throughPgward.getOrDefault(item, "(no output)");
            // Only an error may echo the input: rows that repeat a hidden name the client asked for are a leak.
            boolean onlyAnError = rawPgward.startsWith("ERROR ") || rawPgward.startsWith("[stderr]");
            List<String> leaks = CatalogLeaks.leaks(rawPgward, rawOracle,
                    onlyAnError ? inputs.getOrDefault(item, "") : "");
            String oracle = normalisation.apply(rawOracle);
            String pgward = normalisation.apply(rawPgward);
            boolean equal = oracle.equals(pgward);
            if (!equal && leaks.isEmpty()) {   // a leak is never listed: it fails whatever the list says
                differences.put(item, listed.getOrDefault(item, reason(pgward, oracle)));
            }
            Row row;
            if (!leaks.isEmpty()) {
                row = new Row(client, item, Outcome.LEAK, String.join(", ", leaks) + " in:\n" + rawPgward);
                problems.add("LEAK " + client + " " + item + ": " + row.detail());
            } else if (equal && listed.containsKey(item) && KnownDifferences.notEveryRun(listed.get(item))) {
                row = new Row(client, item, Outcome.EQUAL, "");
                differences.put(item, listed.get(item));
            } else if (equal && listed.containsKey(item)) {
                row = new Row(client, item, Outcome.LISTED_BUT_EQUAL, listed.get(item));
                problems.add("now equal to the oracle, remove it from " + known.file().getFileName() + ": " + client
                        + " | " + item);
            } else if (equal) {
                row = new Row(client, item, Outcome.EQUAL, "");
            } else if (listed.containsKey(item)) {
                row = new Row(client, item, Outcome.DIFFERS_KNOWN, listed.get(item));
            } else {
                row = new Row(client, item, Outcome.DIFFERS_UNLISTED, firstDifference(oracle, pgward));
                problems.add("differs and is not listed in " + known.file().getFileName() + ": " + client + " | "
                        + item + "\n" + row.detail());
            }
            synchronized (rows) {
                rows.add(row);
            }
        }
        for (String stale : listed.keySet()) {
            if (!items.contains(stale)) {
                problems.add("listed but not produced by the test: " + client + " | " + stale);
            }
        }
        if (KnownDifferences.rewriting()) {
            known.replace(client, differences);
            problems.removeIf(p -> !p.startsWith("LEAK"));
        }
        if (!problems.isEmpty()) {
            fail(client + ": " + problems.size() + " problem(s):\n" + String.join("\n\n", problems));
        }
    }

    private void keep(String client, Map<String, String> onOracle, Map<String, String> throughPgward)
            throws IOException {
        StringBuilder text = new StringBuilder();
        TreeSet<String> items = new TreeSet<>(onOracle.keySet());
        items.addAll(throughPgward.keySet());
        for (String item : items) {
            text.append("=== ").append(item).append("\n--- oracle\n").append(onOracle.get(item))
                    .append("\n--- pgward\n").append(throughPgward.get(item)).append("\n\n");
        }
        Files.createDirectories(outputs);
        Files.writeString(outputs.resolve(client + ".txt"), text, StandardCharsets.UTF_8);
    }

    /** The reason a new line gets: the refusal or error pgward's side printed, else where the outputs part. */
    private static String reason(String pgward, String oracle) {
        String error = pgward.lines().filter(l -> l.contains("ERROR")).findFirst().orElse(null);
        if (error != null && !oracle.contains(error)) {
            return "refused: " + shorten(error.replaceFirst(".*?ERROR[: ]*", "")
                    .replaceFirst("^[0-9A-Z]{5}: ", "").replaceFirst("^ERROR: *", "")
                    .replaceFirst("^pgward refused this query: ", "").replaceFirst(" Selected: .*", ""));
        }
        return "differs: " + shorten(firstDifference(oracle, pgward).replace('\n', ' '));
    }

    /** The first line where the two texts part, with both versions. */
    static String firstDifference(String oracle, String pgward) {
        List<String> a = oracle.lines().toList();
        List<String> b = pgward.lines().toList();
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            String x = i < a.size() ? a.get(i) : "(end)";
            String y = i < b.size() ? b.get(i) : "(end)";
            if (!x.equals(y)) {
                return "line " + (i + 1) + ": oracle " + shorten(x) + "\n        pgward " + shorten(y);
            }
        }
        return "(same lines, different line ends)";
    }

    private static String shorten(String s) {
        return s.length() > 160 ? s.substring(0, 160) + "…" : s;
    }

    /** A table of outcome counts per client and one line per item, written beside the test reports. */
    void writeReport(Path file) throws IOException {
        Map<String, Map<Outcome, Integer>> counts = new TreeMap<>();
        StringBuilder details = new StringBuilder();
        List<Row> sorted;
        synchronized (rows) {
            sorted = new ArrayList<>(rows);
        }
        for (Row r : sorted) {
            counts.computeIfAbsent(r.client(), c -> new LinkedHashMap<>()).merge(r.outcome(), 1, Integer::sum);
            details.append(r.client()).append(" | ").append(r.item()).append(" | ").append(r.outcome())
                    .append(r.detail().isEmpty() ? "" : " | " + r.detail().lines().findFirst().orElse(""))
                    .append('\n');
        }
        StringBuilder out = new StringBuilder("| client | items | equal | differs (listed) | differs (not listed) | "
                + "listed but equal | leak |\n|---|---|---|---|---|---|---|\n");
        counts.forEach((client, c) -> out.append("| ").append(client).append(" | ")
                .append(c.values().stream().mapToInt(Integer::intValue).sum()).append(" | ")
                .append(c.getOrDefault(Outcome.EQUAL, 0)).append(" | ")
                .append(c.getOrDefault(Outcome.DIFFERS_KNOWN, 0)).append(" | ")
                .append(c.getOrDefault(Outcome.DIFFERS_UNLISTED, 0)).append(" | ")
                .append(c.getOrDefault(Outcome.LISTED_BUT_EQUAL, 0)).append(" | ")
                .append(c.getOrDefault(Outcome.LEAK, 0)).append(" |\n"));
        out.append('\n').append(details);
        Files.createDirectories(file.getParent());
        Files.writeString(file, out, StandardCharsets.UTF_8);
        System.out.println("CatalogOracleIT report (" + file + "):\n" + out);
    }
}
