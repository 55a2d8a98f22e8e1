package io.pgward.nl;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Ranks the relations of a schema that does not fit the prompt for one question. Up to three rankings are fused by
 * reciprocal rank (score = sum of 1 / (60 + rank), the constant of Cormack et al.): cosine similarity between the
 * question and a short description of each relation (in-process embedding model), BM25 over the words of its names,
 * columns, comments and value samples ({@link LexicalIndex}).
 *
 * <p>With schema ranking, schemas are ranked first, the same two ways over a description of each (its name and its
 * relations' names and columns), and the ranking is schema by schema: every relation of the best-matching schema,
 * best first, then those of the next. A question usually stays within one domain, and a schema is how a warehouse
 * names its domains; on the pooled BIRD schemas this is what lifts recall at ten relations from 0.97 to 0.99
 * (docs/nl.md). A question that spans schemas gets the second schema's relations after the first's, and through
 * the join tables the expansion adds; logins that mostly ask such questions turn schema ranking off. One schema:
 * no effect. Ties keep the reflected order (schema, then name): the same question always gets the same ranking.
 * Built once per reflected schema; {@link RelationChooser} turns a ranking into the relations shown.
 */
final class RelationIndex {

    /** Cormack, Clarke and Buettcher's k for reciprocal rank fusion; damps the difference between top ranks. */
    private static final double RRF_K = 60;
    private static final int SCHEMA_TEXT_CHARS = 2_000;

    private final EmbeddingModel model;
    private final List<Relation> relations;
    private final RetrievalSettings settings;
    private final List<float[]> vectors;
    private final LexicalIndex lexical;
    private final List<String> schemas;
    private final int[] schemaOf;
    private final List<float[]> schemaVectors;
    private final LexicalIndex schemaLexical;
    private final JoinGraph joins;

    private RelationIndex(EmbeddingModel model, List<Relation> relations, RetrievalSettings settings,
                          List<float[]> vectors, LexicalIndex lexical, List<String> schemas, int[] schemaOf,
                          List<float[]> schemaVectors, LexicalIndex schemaLexical, JoinGraph joins) {
        this.model = model;
        this.relations = relations;
        this.settings = settings;
        this.vectors = vectors;
        this.lexical = lexical;
        this.schemas = schemas;
        this.schemaOf = schemaOf;
        this.schemaVectors = schemaVectors;
        this.schemaLexical = schemaLexical;
        this.joins = joins;
    }

    static RelationIndex build(EmbeddingModel model, List<Relation> relations, RetrievalSettings settings) {
        List<Relation> all = List.copyOf(relations);
        List<float[]> vectors = embed(model, all.stream().map(RelationIndex::describe).toList());
        LexicalIndex lexical = LexicalIndex.build(all.stream().map(RelationIndex::words).toList());
        Map<String, List<Relation>> bySchema = new LinkedHashMap<>();
        all.forEach(r -> bySchema.computeIfAbsent(r.ref().schema(), s -> new ArrayList<>()).add(r));
        List<String> schemas = List.copyOf(bySchema.keySet());
        int[] schemaOf = all.stream().mapToInt(r -> schemas.indexOf(r.ref().schema())).toArray();
        boolean rankSchemas = settings.schemaRanking() && schemas.size() > 1;
        List<float[]> schemaVectors = rankSchemas
                ? embed(model, bySchema.entrySet().stream().map(e -> describe(e.getKey(), e.getValue())).toList())
                : List.of();
        LexicalIndex schemaLexical = LexicalIndex.build(rankSchemas
                ? bySchema.entrySet().stream().map(e -> words(e.getKey(), e.getValue())).toList() : List.of());
        return new RelationIndex(model, all, settings, vectors, lexical, schemas, schemaOf, schemaVectors,
                schemaLexical, JoinGraph.build(all, settings.inferredKeys()));
    }

    List<Relation> relations() {
        return relations;
    }

    JoinGraph joins() {
        return joins;
    }

    RetrievalSettings settings() {
        return settings;
    }

    /** Positions in {@link #relations()}, best match first; every relation appears once. */
    List<Integer> rank(String question) {
        float[] q = model.embed(question).content().vector();
        double[] fused = new double[relations.size()];
        addReciprocalRanks(fused, cosines(q, vectors));
        if (settings.lexical()) {
            addReciprocalRanks(fused, lexical.scores(Words.of(question)));
        }
        int[] schemaRank = new int[schemas.size()];
        if (!schemaVectors.isEmpty()) {
            double[] bySchema = new double[schemas.size()];
            addReciprocalRanks(bySchema, cosines(q, schemaVectors));
            if (settings.lexical()) {
                addReciprocalRanks(bySchema, schemaLexical.scores(Words.of(question)));
            }
            List<Integer> order = IntStream.range(0, schemas.size()).boxed()
                    .sorted(Comparator.comparingDouble((Integer s) -> -bySchema[s]).thenComparingInt(s -> s))
                    .toList();
            for (int r = 0; r < order.size(); r++) {
                schemaRank[order.get(r)] = r;
            }
        }
        return IntStream.range(0, relations.size()).boxed()
                .sorted(Comparator.comparingInt((Integer i) -> schemaRank[schemaOf[i]])
                        .thenComparingDouble(i -> -fused[i]).thenComparingInt(i -> i))
                .toList();
    }

    /**
     * Adds 1 / (k + rank) to each element's total, rank 1 being the highest score; ties share the better rank. A
     * score of zero adds nothing: a relation no question word matches must not share a rank with the matches.
     */
    private static void addReciprocalRanks(double[] totals, double[] scores) {
        Integer[] order = IntStream.range(0, scores.length).boxed()
                .sorted(Comparator.comparingDouble((Integer i) -> -scores[i]).thenComparingInt(i -> i))
                .toArray(Integer[]::new);
        int rank = 0;
        for (int position = 0; position < order.length; position++) {
            if (position == 0 || scores[order[position]] != scores[order[position - 1]]) {
                rank = position + 1;
            }
            if (scores[order[position]] > 0) {
                totals[order[position]] += 1 / (RRF_K + rank);
            }
        }
    }

    private static double[] cosines(float[] q, List<float[]> vectors) {
        return vectors.stream().mapToDouble(v -> cosine(q, v)).toArray();
    }

    private static List<float[]> embed(EmbeddingModel model, List<String> texts) {
        if (texts.isEmpty()) {
            return List.of();
        }
        return model.embedAll(texts.stream().map(TextSegment::from).toList()).content().stream()
                .map(Embedding::vector).toList();
    }

    static String describe(Relation relation) {
        StringBuilder text = new StringBuilder();
        text.append(relation.kind().label()).append(' ').append(relation.ref().schema()).append('.')
                .append(relation.ref().name().replace('_', ' '));
        relation.comment().ifPresent(c -> text.append(": ").append(SchemaText.oneLine(c)));
        text.append(". Columns: ");
        text.append(relation.columns().stream()
                .map(c -> c.name().replace('_', ' ') + c.comment().map(x -> " (" + SchemaText.oneLine(x) + ")")
                        .orElse(""))
                .collect(Collectors.joining(", ")));
        return text.toString();
    }

    /**
     * The schema's name and its relations' names and comments, cut at {@link #SCHEMA_TEXT_CHARS}: the model reads
     * only its first few hundred tokens anyway, and a schema of thousands of relations must not cost thousands of
     * model passes.
     */
    private static String describe(String schema, List<Relation> members) {
        String text = "schema " + schema.replace('_', ' ') + ": " + members.stream()
                .map(r -> r.ref().name().replace('_', ' ') + r.comment().map(c -> " (" + SchemaText.oneLine(c) + ")")
                        .orElse(""))
                .collect(Collectors.joining(", "));
        return text.length() > SCHEMA_TEXT_CHARS ? text.substring(0, SCHEMA_TEXT_CHARS) : text;
    }

    /**
     * The words BM25 matches a question against. The relation's own name counts three times: a question that names
     * a table almost always needs it, while a column word alone is weaker evidence.
     */
    static List<String> words(Relation relation) {
        List<String> words = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            words.addAll(Words.of(relation.ref().name()));
        }
        relation.comment().ifPresent(c -> words.addAll(Words.of(c)));
        for (Relation.Column column : relation.columns()) {
            words.addAll(Words.of(column.name()));
            column.comment().ifPresent(c -> words.addAll(Words.of(c)));
        }
        relation.samples().values().forEach(values -> values.forEach(v -> words.addAll(Words.of(v))));
        return words;
    }

    private static List<String> words(String schema, List<Relation> members) {
        List<String> words = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            words.addAll(Words.of(schema));
        }
        members.forEach(r -> words.addAll(words(r)));
        return words;
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
    }
}
