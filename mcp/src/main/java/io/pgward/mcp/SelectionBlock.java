package io.pgward.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The end of the {@code query} description for a login with a table selection (seed 003):
 *
 * <pre>
 * Only these relations can be queried.
 * - &lt;name&gt; (&lt;kind&gt;): &lt;column&gt;, &lt;column&gt;, ... — &lt;comment, cut at 120 characters&gt;
 * </pre>
 *
 * One line per selected relation that exists, in the configured order, read through the login's own session
 * ({@code pgward.describe}); when the database does not answer, each line is the configured name alone.
 */
final class SelectionBlock {

    static final String HEADER = "Only these relations can be queried.";
    private static final int COLUMNS = 12;
    private static final int COMMENT = 120;

    private SelectionBlock() {
    }

    static String of(List<String> selection, Connection session) {
        if (selection.isEmpty()) {
            return "";
        }
        List<String> lines = new ArrayList<>();
        for (String name : selection) {
            if (session == null) {
                lines.add("- " + oneLine(name));
                continue;
            }
            try {
                lines.add(line(Describe.describe(session, name)));
            } catch (SQLException e) {
                if (!"42P01".equals(e.getSQLState())) {
                    // not "does not exist": the database did not answer, so names alone from here on
                    return of(selection, null);
                }
            }
        }
        return "\n\n" + HEADER + "\n" + String.join("\n", lines);
    }

    static String line(ObjectNode described) {
        StringBuilder line = new StringBuilder("- ").append(oneLine(described.path("name").asText()))
                .append(" (").append(described.path("kind").asText()).append(")");
        List<String> columns = new ArrayList<>();
        for (JsonNode column : described.path("columns")) {
            String text = column.asText();
            columns.add(oneLine(text.substring(0, Identifiers.leadingLength(text, ' '))));
        }
        String comment = described.hasNonNull("comment") ? oneLine(described.get("comment").asText()) : null;
        if (comment != null && comment.length() > COMMENT) {
            comment = comment.substring(0, COMMENT);
        }
        if (columns.isEmpty()) {
            if (comment != null) {
                line.append(": ").append(comment);
            }
            return line.toString();
        }
        line.append(": ").append(String.join(", ", columns.subList(0, Math.min(COLUMNS, columns.size()))));
        if (columns.size() > COLUMNS) {
            line.append(", …");
        }
        if (comment != null) {
            line.append(" — ").append(comment);
        }
        return line.toString();
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s+", " ").strip();
    }

    static Function<Connection, String> forSelection(List<String> selection) {
        return session -> of(selection, session);
    }
}
