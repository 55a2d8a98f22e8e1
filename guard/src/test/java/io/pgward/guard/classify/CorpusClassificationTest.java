package io.pgward.guard.classify;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replays the guard corpus ({@code shared/guard-corpus/cases.jsonl}, beside the repository) through
 * {@link ReadOnlyClassifier#classify} and checks the verdict of every case in the categories L2 owns. Cases of
 * other categories (relation selection, catalog reads, name resolution, user objects, limits: L3 and later) are not
 * asserted; the summary says how many of them L2 happens to refuse already.
 *
 * <p>A case is split with the guard's own {@link SqlLexer} (standard_conforming_strings on, PostgreSQL's default) and is allowed only when every statement is; a cursor one statement declares may be
 * fetched by a later one. Text the lexer rejects counts as refused.
 */
class CorpusClassificationTest {

    /** Where the build says the corpus is (guard/pom.xml passes it to Surefire). */
    static final String CORPUS_PROPERTY = "pgward.guard.corpus";
    private static final String CORPUS_IN_SHARED = "shared/guard-corpus/cases.jsonl";

    private static final Set<String> OWNED = Set.of("dml", "dml-in-cte", "ddl", "multi-statement",
            "select-into-locking", "copy", "prepare-execute-cursor", "listen-notify-lock", "procedural",
            "maintenance", "explain-analyze", "file-and-program", "side-effect-function", "sql-string-function",
            "transaction-escape", "session-state");

    private static final ReadOnlyPolicy POLICY = new ReadOnlyPolicy("analyst", Duration.ofSeconds(30));
    private static ReadOnlyClassifier classifier;

    /**
     * One corpus case. {@code expect} is allow, refuse, block (anything but a successful run) or no-leak (may run
     * when nothing in {@code forbidden} shows in its result); block and no-leak are catalog cases, decided by L3
     * and the proxy, not L2.
     */
    record Case(String id, String sql, String expect, String category, String why, List<String> forbidden) {
        boolean allow() {
            return expect.equals("allow");
        }
    }

    @BeforeAll
    static void start() {
        classifier = new ReadOnlyClassifier();
    }

    @AfterAll
    static void stop() {
        classifier.close();
    }

    @Test
    void everyCaseOfTheCategoriesL2OwnsGetsItsVerdict() throws IOException {
        List<Case> cases = readCorpus();
        Map<String, int[]> perCategory = new TreeMap<>();   // cases, as expected, refused by L2
        List<String> mismatches = new ArrayList<>();
        List<String> notOwnedRefused = new ArrayList<>();
        int notOwned = 0;
        for (Case c : cases) {
            String verdict = verdict(c.sql());
            boolean allowed = verdict == null;
            int[] counts = perCategory.computeIfAbsent(c.category(), k -> new int[3]);
            counts[0]++;
            counts[2] += allowed ? 0 : 1;
            boolean owned = owns(c.category());
            if (!owned) {
                notOwned++;
                if (!allowed) {
                    notOwnedRefused.add(c.id());
                }
                continue;
            }
            boolean expectAllow = c.allow();
            if (!c.expect().equals("allow") && !c.expect().equals("refuse")) {
                mismatches.add(c.id() + " [" + c.category() + "] is " + c.expect() + ", which L2's categories do "
                        + "not use");
            } else if (expectAllow == allowed) {
                counts[1]++;
            } else {
                mismatches.add(c.id() + " [" + c.category() + "] expected " + (expectAllow ? "allow" : "refuse")
                        + ": " + c.sql() + (allowed ? "" : "\n    -> " + verdict));
            }
        }
        printSummary(perCategory, notOwned, notOwnedRefused);
        assertTrue(mismatches.isEmpty(), () -> mismatches.size() + " corpus case(s) got the wrong verdict:\n"
                + String.join("\n", mismatches));
    }

    private static boolean owns(String category) {
        return OWNED.contains(category) || category.startsWith("allow-");
    }

    /** Null when every statement is allowed, otherwise the first refusal (or lexer error) as text. */
    private static String verdict(String sql) {
        List<StatementText> statements;
        try {
            statements = SqlLexer.split(sql, true);
        } catch (LexerException e) {
            return "lexer: " + e.getMessage();
        }
        if (statements.isEmpty()) {
            return "no statement";
        }
        Set<String> cursors = new HashSet<>();
        for (StatementText s : statements) {
            switch (classifier.classify(s, POLICY, cursors)) {
                case Verdict.Allow a -> ReadOnlyClassifier.declaredCursor(s).ifPresent(cursors::add);
                case Verdict.Refuse r -> {
                    return r.rule() + " @" + r.position() + ": " + r.message();
                }
                case Verdict.Answer a -> throw new AssertionError("L2 does not answer: " + a);
                case Verdict.Rewrite w -> throw new AssertionError("L2 does not rewrite: " + w);
            }
        }
        return null;
    }

    private static void printSummary(Map<String, int[]> perCategory, int notOwned, List<String> notOwnedRefused) {
        StringBuilder out = new StringBuilder("\nGuard corpus through L2 (ReadOnlyClassifier)\n");
        out.append(String.format("%-24s %-6s %5s %11s %10s%n", "category", "owner", "cases", "as expected",
                "refused"));
        perCategory.forEach((category, n) -> out.append(String.format("%-24s %-6s %5d %11s %10d%n", category,
                owns(category) ? "L2" : "later", n[0], owns(category) ? String.valueOf(n[1]) : "-", n[2])));
        out.append(String.format("Not asserted here: %d cases of later layers' categories, %d of them already "
                + "refused by L2: %s%n", notOwned, notOwnedRefused.size(), String.join(", ", notOwnedRefused)));
        System.out.println(out);
    }

    // ---------------------------------------------------------------------------------------------------------

    static Path corpusPath() {
        List<Path> tried = new ArrayList<>();
        String configured = System.getProperty(CORPUS_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path p = Path.of(configured).toAbsolutePath().normalize();
            if (Files.isRegularFile(p)) {
                return p;
            }
            tried.add(p);
        }
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null;
                dir = dir.getParent()) {
            Path p = dir.resolve(CORPUS_IN_SHARED);
            if (Files.isRegularFile(p)) {
                return p;
            }
            tried.add(p);
        }
        return fail("The guard corpus is missing. It must be at ../" + CORPUS_IN_SHARED + " relative to the "
                + "repository root (shared/ beside the clone), or named with -D" + CORPUS_PROPERTY + "=<file>. "
                + "Looked for: " + tried);
    }

    private static final Set<String> EXPECTS = Set.of("allow", "refuse", "block", "no-leak");

    static List<Case> readCorpus() throws IOException {
        Path path = corpusPath();
        List<Case> cases = new ArrayList<>();
        int line = 0;
        for (String text : Files.readAllLines(path, StandardCharsets.UTF_8)) {
            line++;
            if (text.isBlank()) {
                continue;
            }
            Map<String, Object> o = JsonLine.parse(text, path + ":" + line);
            String expect = (String) o.get("expect");
            if (!EXPECTS.contains(expect)) {
                fail(path + ":" + line + ": expect must be one of " + EXPECTS + ", was " + expect);
            }
            @SuppressWarnings("unchecked")
            List<String> forbidden = (List<String>) o.getOrDefault("forbidden", List.of());
            if (expect.equals("no-leak") && !o.containsKey("forbidden")) {
                fail(path + ":" + line + ": a no-leak case needs forbidden");
            }
            cases.add(new Case((String) o.get("id"), (String) o.get("sql"), expect, (String) o.get("category"),
                    (String) o.get("why"), forbidden));
        }
        assertTrue(cases.size() > 100, "the corpus at " + path + " has only " + cases.size() + " cases");
        return cases;
    }

    /** TEST ONLY: reads one JSON object whose values are strings or arrays of strings (the corpus format). */
    static final class JsonLine {
        private final String s;
        private final String where;
        private int i;

        private JsonLine(String s, String where) {
            this.s = s;
            this.where = where;
        }

        static Map<String, Object> parse(String s, String where) {
            JsonLine p = new JsonLine(s, where);
            Map<String, Object> out = new LinkedHashMap<>();
            p.expect('{');
            p.blanks();
            if (p.peek() == '}') {
                return out;
            }
            do {
                p.blanks();
                String key = p.string();
                p.expect(':');
                p.blanks();
                out.put(key, p.peek() == '[' ? p.strings() : p.string());
                p.blanks();
            } while (p.accept(','));
            p.expect('}');
            return out;
        }

        private char peek() {
            if (i >= s.length()) {
                throw new IllegalArgumentException(where + ": unexpected end of line");
            }
            return s.charAt(i);
        }

        private void blanks() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private boolean accept(char c) {
            blanks();
            if (i < s.length() && s.charAt(i) == c) {
                i++;
                return true;
            }
            return false;
        }

        private void expect(char c) {
            if (!accept(c)) {
                throw new IllegalArgumentException(where + ": expected " + c + " at " + i);
            }
        }

        private List<String> strings() {
            expect('[');
            List<String> out = new ArrayList<>();
            if (accept(']')) {
                return out;
            }
            do {
                blanks();
                out.add(string());
            } while (accept(','));
            expect(']');
            return List.copyOf(out);
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = peek();
                i++;
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = peek();
                i++;
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> b.append(e);
                }
            }
        }
    }
}
