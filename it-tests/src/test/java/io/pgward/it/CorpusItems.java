package io.pgward.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The catalog statements BI tools and IDEs send (the shared {@code catalog-corpus/tool-catalog-sql.json}:
 * DataGrip, DBeaver, Metabase, pgAdmin, pgcli, Grafana), each run on one pgjdbc connection per target. An item
 * is {@code #<n> <tool>}; its text is every result's column names and rows, or the error.
 *
 * <p>Rows are sorted: a statement without ORDER BY returns rows in its plan's order, and the filtered catalog's
 * subqueries change the plan, not the answer.
 */
final class CorpusItems {

    private CorpusItems() {
    }

    static Path corpusFile() {
        return Path.of(System.getProperty("pgward.shared.dir", "../shared"))
                .resolve("catalog-corpus/tool-catalog-sql.json");
    }

    static Map<String, String> run(Target target) throws IOException, SQLException {
        return run(target, corpus());
    }

    /** The corpus's statements by item. */
    static Map<String, String> corpus() throws IOException {
        Path file = corpusFile();
        if (!Files.exists(file)) {
            throw new AssertionError("no catalog corpus at " + file + ": run with -Dpgward.shared.dir=<shared>");
        }
        JsonNode corpus = ClientScript.JSON.readTree(file.toFile());
        Map<String, String> statements = new LinkedHashMap<>();
        for (int i = 0; i < corpus.size(); i++) {
            JsonNode entry = corpus.get(i);
            statements.put(String.format("#%02d %s", i + 1, entry.get("tool").asText()), entry.get("sql").asText());
        }
        return statements;
    }

    /** The hostile statements of {@code catalog-oracle/probes.sql}, run on target. */
    static Map<String, String> probes(Target target) throws IOException, SQLException {
        return run(target, probes());
    }

    /** The hostile statements of {@code catalog-oracle/probes.sql}, by their names. */
    static Map<String, String> probes() throws IOException {
        Map<String, String> statements = new LinkedHashMap<>();
        String text;
        try (InputStream in = CorpusItems.class.getResourceAsStream("catalog-oracle/probes.sql")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String block : text.split("\n\\s*\n")) {
            List<String> lines = block.strip().lines().toList();
            boolean hasSql = lines.stream().skip(1).anyMatch(l -> !l.startsWith("--"));
            if (lines.size() >= 2 && lines.getFirst().startsWith("-- ") && hasSql) {
                statements.put(lines.getFirst().substring(3), String.join("\n", lines.subList(1, lines.size())));
            }
        }
        return statements;
    }

    /** Each statement in turn on one connection; item → its results or its error. */
    static Map<String, String> run(Target target, Map<String, String> statements) throws SQLException {
        Map<String, String> items = new LinkedHashMap<>();
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            statements.forEach((item, sql) -> items.put(item, execute(s, sql)));
        }
        return items;
    }

    private static String execute(Statement s, String sql) {
        try {
            StringBuilder out = new StringBuilder();
            boolean isResult = s.execute(sql);
            while (true) {
                if (isResult) {
                    try (ResultSet rs = s.getResultSet()) {
                        out.append(sortedRows(rs));
                    }
                } else if (s.getUpdateCount() == -1) {
                    break;
                } else {
                    out.append("(update count ").append(s.getUpdateCount()).append(")\n");
                }
                isResult = s.getMoreResults();
            }
            return out.toString();
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState() + ": " + e.getMessage();
        }
    }

    private static String sortedRows(ResultSet rs) throws SQLException {
        int columns = rs.getMetaData().getColumnCount();
        List<String> header = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
            header.add(rs.getMetaData().getColumnLabel(i));
        }
        List<String> rows = new ArrayList<>();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= columns; i++) {
                row.add(rs.getString(i));
            }
            rows.add(String.join("|", row));
        }
        rows.sort(null);
        return String.join("|", header) + "\n" + String.join("\n", rows) + "\n(" + rows.size() + " rows)\n";
    }
}
