package io.pgward.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The red-team corpus in {@code shared/guard-corpus}: statements with the verdict pgward must reach, and the
 * fixtures they run against. CI puts {@code shared/} beside the repository; the build passes its path as
 * {@code pgward.shared.dir}.
 */
final class GuardCorpus {

    /** The kinds of expectation the corpus README defines. */
    enum Expect {
        /** The statement runs. */
        ALLOW,
        /** pgward refuses it, or PostgreSQL stops it before it touches data (unknown name, timeout). */
        REFUSE,
        /** Anything but a successful run. */
        BLOCK,
        /** Refused, failed, or ran without any of the case's forbidden words in its result. */
        NO_LEAK
    }

    /**
     * @param forbidden for {@link Expect#NO_LEAK}: words that must not appear in a result (names and values of
     *                  relations outside the selection)
     */
    record Case(String id, String sql, Expect expect, String category, String why, List<String> forbidden) {

        boolean refuse() {
            return expect == Expect.REFUSE;
        }

        /** Names the domain fixture-domain.sql adds: only such a case may change verdict when it exists. */
        boolean namesTheDomain() {
            return sql.toLowerCase(Locale.ROOT).contains(DOMAIN);
        }
    }

    /** The domain fixture-domain.sql creates. */
    static final String DOMAIN = "mytype";

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
            String expect = node.get("expect").asText();
            Expect kind = switch (expect) {
                case "allow" -> Expect.ALLOW;
                case "refuse" -> Expect.REFUSE;
                case "block" -> Expect.BLOCK;
                case "no-leak" -> Expect.NO_LEAK;
                default -> throw new AssertionError("case " + node.get("id") + ": unknown expect " + expect);
            };
            List<String> forbidden = new ArrayList<>();
            node.path("forbidden").forEach(word -> forbidden.add(word.asText()));
            if (kind == Expect.NO_LEAK && !node.has("forbidden")) {
                throw new AssertionError("case " + node.get("id") + ": a no-leak case needs forbidden");
            }
            cases.add(new Case(node.get("id").asText(), node.get("sql").asText(), kind,
                    node.get("category").asText(), node.path("why").asText(), List.copyOf(forbidden)));
        }
        return cases;
    }

    /**
     * The fixture's statements, one per element. The role it creates is cluster-wide, so creating it
     * tolerates an earlier run having made it already.
     */
    static List<String> fixture() throws IOException {
        return statements("fixture.sql");
    }

    /** fixture-domain.sql: applied on top of {@link #fixture()} for the second run. */
    static List<String> domainFixture() throws IOException {
        return statements("fixture-domain.sql");
    }

    private static List<String> statements(String file) throws IOException {
        List<String> statements = new ArrayList<>();
        for (String statement : Files.readString(directory().resolve(file)).split(";\\s*\\n")) {
            String sql = statement.strip();
            if (sql.isEmpty() || sql.lines().allMatch(l -> l.isBlank() || l.strip().startsWith("--"))) {
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
