package io.pgward.nl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Schema-retrieval recall on BIRD mini-dev (shared/nl-bench/bird): the BIRD schemas are loaded into PostgreSQL,
 * read by pgward's own {@link SchemaReflector}, and every question goes through {@link SchemaCatalog#forQuestion}
 * with retrieval forced on, per database (a login whose selection is one schema) and pooled (all 75 tables). A
 * question counts as recalled when every table its gold SQL reads is in the prompt. No language model, no network:
 * the embedding model runs in process.
 *
 * <p>Not a test (its name does not end in Test): bench/nl-retrieval.sh runs it and writes its report, a Markdown
 * table, to {@code -Dnl.bench.out}. {@code -Dnl.bench.set=steps|sweep|ablation|defaults} chooses the rows.
 */
@PostgresTest
class BirdRetrievalBench {

    private static final ObjectMapper JSON = new ObjectMapper();

    private record Question(String id, String db, String text, String textOnly, Set<String> gold) {
    }

    /** One row of the report: a retrieval configuration measured on one loaded schema variant. */
    private record Setting(String name, RetrievalSettings retrieval, int topK) {
    }

    private record Figures(int questions, int recalled, double meanShown, int maxShown) {
        double recall() {
            return (double) recalled / questions;
        }
    }

    @Test
    void measure(TestDatabase db) throws Exception {
        Path bird = Path.of(System.getProperty("pgward.shared.dir", "../shared"), "nl-bench", "bird");
        Path out = Path.of(System.getProperty("nl.bench.out", "target/nl-retrieval.md"));
        String set = System.getProperty("nl.bench.set", "steps");
        List<Question> questions = questions(bird.resolve("bird_questions.json"));
        String plain = Files.readString(bird.resolve("bird_schema.sql"));
        String withoutKeys = plain.lines().filter(l -> !l.contains("FOREIGN KEY"))
                .collect(Collectors.joining("\n"));
        String commented = Files.readString(bird.resolve("birdc_schema.sql"));
        EmbeddingModel model = new CachingModel(Embeddings.shared());

        Map<String, JdbcConnections> variants = new LinkedHashMap<>();
        variants.put("bird (foreign keys)", load(db, "nlbench_fk", plain));
        variants.put("bird without foreign keys", load(db, "nlbench_nofk", withoutKeys));
        variants.put("birdc (foreign keys, column comments)", load(db, "nlbench_comments", commented));

        StringBuilder report = new StringBuilder();
        report.append("| setting | schema | top_k | per database: recall | relations mean / max | pooled: recall "
                + "| relations mean / max | pooled, question only: recall | relations mean / max |\n");
        report.append("|---|---|---|---|---|---|---|---|---|\n");
        for (Setting setting : settings(set)) {
            for (Map.Entry<String, JdbcConnections> variant : variants.entrySet()) {
                if (!set.equals("steps") && !variant.getKey().startsWith("bird (")
                        && !variant.getKey().startsWith("bird without")) {
                    continue;
                }
                Figures perDb = perDatabase(variant.getValue(), model, setting, questions, false);
                Figures pooled = pooled(variant.getValue(), model, setting, questions, false);
                Figures pooledOnly = pooled(variant.getValue(), model, setting, questions, true);
                String row = "| %s | %s | %d | %s | %s | %s | %s | %s | %s |%n".formatted(setting.name(),
                        variant.getKey(), setting.topK(), recall(perDb), size(perDb), recall(pooled), size(pooled),
                        recall(pooledOnly), size(pooledOnly));
                report.append(row);
                System.err.print(row);
            }
        }
        report.append('\n').append(inferredAgainstDeclared(variants.get("bird (foreign keys)"),
                variants.get("bird without foreign keys"))).append('\n');
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report);
        for (String name : List.of("nlbench_fk", "nlbench_nofk", "nlbench_comments")) {
            NlAssistantTest.execute(db, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    private static List<Setting> settings(String set) {
        RetrievalSettings old = RetrievalSettings.embeddingWithNeighbours().withRelationLimit(0);
        RetrievalSettings lexical = new RetrievalSettings(0, true, RetrievalSettings.Expansion.NEIGHBOURS, false,
                false);
        RetrievalSettings bridges = new RetrievalSettings(0, true, RetrievalSettings.Expansion.BRIDGES, false, false);
        RetrievalSettings inferred = new RetrievalSettings(0, true, RetrievalSettings.Expansion.BRIDGES, true, false);
        RetrievalSettings all = RetrievalSettings.defaults().withRelationLimit(0);
        return switch (set) {
            case "steps" -> List.of(
                    new Setting("0. embedding + every FK neighbour (before)", old, 10),
                    new Setting("0. embedding + every FK neighbour (before)", old, 5),
                    new Setting("2. + lexical (BM25, RRF)", lexical, 10),
                    new Setting("3. + bridge-only expansion", bridges, 10),
                    new Setting("4. + inferred join keys", inferred, 10),
                    new Setting("5. + schema-aware ranking", all, 10),
                    new Setting("5. + schema-aware ranking", all, 8),
                    new Setting("5. + schema-aware ranking", all, 6));
            case "sweep" -> {
                List<Setting> rows = new ArrayList<>();
                for (int k : List.of(4, 5, 6, 7, 8, 10, 12)) {
                    rows.add(new Setting("all on", all, k));
                }
                yield rows;
            }
            case "ablation" -> List.of(
                    new Setting("defaults", all, 10),
                    new Setting("defaults, lexical off", new RetrievalSettings(0, false,
                            RetrievalSettings.Expansion.BRIDGES, true, true), 10),
                    new Setting("defaults, expansion neighbours", new RetrievalSettings(0, true,
                            RetrievalSettings.Expansion.NEIGHBOURS, true, true), 10),
                    new Setting("defaults, expansion none", new RetrievalSettings(0, true,
                            RetrievalSettings.Expansion.NONE, true, true), 10),
                    new Setting("defaults, inferred keys off", new RetrievalSettings(0, true,
                            RetrievalSettings.Expansion.BRIDGES, false, true), 10),
                    new Setting("defaults, inferred keys off", new RetrievalSettings(0, true,
                            RetrievalSettings.Expansion.BRIDGES, false, true), 6),
                    new Setting("defaults", all, 6),
                    new Setting("defaults, schema ranking off", new RetrievalSettings(0, true,
                            RetrievalSettings.Expansion.BRIDGES, true, false), 10));
            case "dev" -> List.of(new Setting("dev", all, Integer.getInteger("nl.bench.k", 10)));
            default -> List.of(new Setting("defaults, forced on", all, NlSettings.DEFAULT_TOP_K));
        };
    }

    /** How many of BIRD's declared joins the inferred keys find once the foreign keys are dropped, and what else. */
    private static String inferredAgainstDeclared(JdbcConnections withKeys, JdbcConnections withoutKeys)
            throws Exception {
        Set<String> declared = pairs(SchemaCatalog.builder(withKeys).build().snapshot().relations(), false);
        Set<String> inferred = pairs(SchemaCatalog.builder(withoutKeys).build().snapshot().relations(), true);
        long found = declared.stream().filter(inferred::contains).count();
        if (Boolean.getBoolean("nl.bench.misses")) {
            declared.stream().filter(p -> !inferred.contains(p)).forEach(p -> System.err.println("not inferred " + p));
            inferred.stream().filter(p -> !declared.contains(p)).forEach(p -> System.err.println("extra " + p));
        }
        return "Inferred join keys with BIRD's foreign keys dropped: %d of the %d joined pairs of tables the foreign "
                .formatted(found, declared.size())
                + "keys declare are found, with %d further pairs.".formatted(inferred.size() - found);
    }

    private static Set<String> pairs(List<Relation> relations, boolean infer) {
        JoinGraph graph = JoinGraph.build(relations, infer);
        Set<String> pairs = new TreeSet<>();
        for (int a = 0; a < relations.size(); a++) {
            for (int b : graph.neighbours(a)) {
                String x = relations.get(a).qualifiedName();
                String y = relations.get(b).qualifiedName();
                pairs.add(x.compareTo(y) < 0 ? x + " " + y : y + " " + x);
            }
        }
        return pairs;
    }

    private static Figures perDatabase(JdbcConnections connections, EmbeddingModel model, Setting setting,
                                       List<Question> questions, boolean questionOnly) throws Exception {
        Map<String, SchemaCatalog> catalogs = new LinkedHashMap<>();
        for (String db : new TreeSet<>(questions.stream().map(Question::db).toList())) {
            catalogs.put(db, catalog(connections, model, setting).selection(r -> r.schema().equals(db)).build());
        }
        return measure(questions, q -> catalogs.get(q.db()), setting, questionOnly);
    }

    private static Figures pooled(JdbcConnections connections, EmbeddingModel model, Setting setting,
                                  List<Question> questions, boolean questionOnly) throws Exception {
        SchemaCatalog catalog = catalog(connections, model, setting).build();
        return measure(questions, q -> catalog, setting, questionOnly);
    }

    private static SchemaCatalog.Builder catalog(JdbcConnections connections, EmbeddingModel model,
                                                 Setting setting) {
        return SchemaCatalog.builder(connections).embeddings(() -> model).topK(setting.topK())
                .promptBudgetChars(NlSettings.DEFAULT_PROMPT_BUDGET_CHARS).retrieval(setting.retrieval());
    }

    private interface CatalogFor {
        SchemaCatalog of(Question question);
    }

    private static Figures measure(List<Question> questions, CatalogFor catalogs, Setting setting,
                                   boolean questionOnly) throws Exception {
        int recalled = 0;
        long shownTotal = 0;
        int max = 0;
        for (Question question : questions) {
            List<Relation> shown = catalogs.of(question)
                    .forQuestion(questionOnly ? question.textOnly() : question.text(), setting.topK()).shown();
            Set<String> names = new HashSet<>();
            shown.forEach(r -> names.add(r.ref().schema() + "." + r.ref().name()));
            if (names.containsAll(question.gold())) {
                recalled++;
            } else if (Boolean.getBoolean("nl.bench.misses") && !questionOnly) {
                System.err.println("miss " + question.id() + " " + question.db() + " missing "
                        + question.gold().stream().filter(g -> !names.contains(g)).toList() + " shown " + names
                        + " q: " + question.text());
            }
            shownTotal += shown.size();
            max = Math.max(max, shown.size());
        }
        return new Figures(questions.size(), recalled, (double) shownTotal / questions.size(), max);
    }

    private static String recall(Figures f) {
        return "%.3f".formatted(f.recall());
    }

    private static String size(Figures f) {
        return "%.1f / %d".formatted(f.meanShown(), f.maxShown());
    }

    private static List<Question> questions(Path file) throws Exception {
        List<Question> questions = new ArrayList<>();
        for (JsonNode node : JSON.readTree(file.toFile())) {
            Set<String> gold = new HashSet<>();
            node.get("gold").forEach(g -> gold.add(node.get("db").asText() + "." + g.asText()));
            questions.add(new Question(node.get("id").asText(), node.get("db").asText(), node.get("question").asText(),
                    node.get("question_only").asText(), gold));
        }
        return questions;
    }

    /** A fresh database holding {@code ddl}; the schema variants cannot share one (same schema names). */
    private static JdbcConnections load(TestDatabase db, String name, String ddl) throws SQLException {
        NlAssistantTest.execute(db, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "CREATE DATABASE " + name);
        String url = "jdbc:postgresql://" + db.host() + ":" + db.port() + "/" + name;
        Properties props = new Properties();
        props.setProperty("user", db.user());
        props.setProperty("password", db.password());
        JdbcConnections connections = () -> DriverManager.getConnection(url, props);
        try (Connection c = connections.open(); Statement s = c.createStatement()) {
            s.execute(ddl);
        }
        return connections;
    }

    /** The same texts are embedded for every setting; once is enough. */
    private static final class CachingModel implements EmbeddingModel {
        private final EmbeddingModel model;
        private final Map<String, Embedding> cache = new ConcurrentHashMap<>();

        CachingModel(EmbeddingModel model) {
            this.model = model;
        }

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            List<TextSegment> missing = segments.stream().filter(s -> !cache.containsKey(s.text())).distinct().toList();
            if (!missing.isEmpty()) {
                List<Embedding> fresh = model.embedAll(missing).content();
                for (int i = 0; i < missing.size(); i++) {
                    cache.put(missing.get(i).text(), fresh.get(i));
                }
            }
            return Response.from(segments.stream().map(s -> cache.get(s.text())).toList());
        }

        @Override
        public int dimension() {
            return model.dimension();
        }
    }
}
