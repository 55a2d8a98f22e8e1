package io.pgward.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The red-team corpus in {@code shared/guard-corpus}: statements with the verdict pgward must reach, and the
 * fixture they run against. CI puts {@code shared/} beside the repository; the build passes its path as
 * {@code pgward.shared.dir}.
 */
final class GuardCorpus {

    record Case(String id, String sql, boolean refuse, String category, String why) {
    }

    private GuardCorpus() {
    }

    static Path directory() {
        String shared = System.getProperty("pgward.shared.dir");
        Path dir = shared == null ? null : Path.of(shared, "guard-corpus");
        if (dir == null || !Files.isRegularFile(dir.resolve("cases.jsonl"))) {
            throw new AssertionError("the guard corpus is missing: expected shared/guard-corpus beside the "
                    + "repository (pgward.shared.dir=" + shared + ")");
        }
        return dir;
    }

    static List<Case> cases() throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<Case> cases = new ArrayList<>();
        for (String line : Files.readAllLines(directory().resolve("cases.jsonl"))) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode node = json.readTree(line);
            cases.add(new Case(node.get("id").asText(), node.get("sql").asText(),
                    "refuse".equals(node.get("expect").asText()), node.get("category").asText(),
                    node.path("why").asText()));
        }
        return cases;
    }

    /**
     * The fixture's statements, one per element. The role it creates is cluster-wide, so creating it
     * tolerates an earlier run having made it already.
     */
    static List<String> fixture() throws IOException {
        List<String> statements = new ArrayList<>();
        for (String statement : Files.readString(directory().resolve("fixture.sql")).split(";\\s*\\n")) {
            String sql = statement.strip();
            if (sql.isEmpty()) {
                continue;
            }
            if (sql.startsWith("CREATE ROLE ")) {
                sql = "DO $$ BEGIN " + sql + "; EXCEPTION WHEN duplicate_object THEN NULL; END $$";
            }
            statements.add(sql);
        }
        return statements;
    }
}
