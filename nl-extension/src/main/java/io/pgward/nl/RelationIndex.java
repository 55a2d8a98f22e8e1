package io.pgward.nl;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Chooses the relations to show for a question when the whole schema does not fit the prompt: the top k by
 * cosine similarity between the question and a short description of each relation (name, kind, comment,
 * columns), then their foreign-key neighbours in both directions, so a join path between two relevant tables is
 * not lost. Built once per reflected schema.
 */
final class RelationIndex {

    private final EmbeddingModel model;
    private final List<Relation> relations;
    private final List<float[]> vectors;
    private final Map<Long, Set<Long>> neighbours;

    private RelationIndex(EmbeddingModel model, List<Relation> relations, List<float[]> vectors,
                          Map<Long, Set<Long>> neighbours) {
        this.model = model;
        this.relations = relations;
        this.vectors = vectors;
        this.neighbours = neighbours;
    }

    static RelationIndex build(EmbeddingModel model, List<Relation> relations) {
        List<TextSegment> segments = relations.stream().map(r -> TextSegment.from(describe(r))).toList();
        List<float[]> vectors = model.embedAll(segments).content().stream().map(Embedding::vector).toList();
        Map<Long, Set<Long>> neighbours = new HashMap<>();
        for (Relation relation : relations) {
            for (Relation.ForeignKey key : relation.foreignKeys()) {
                neighbours.computeIfAbsent(relation.ref().oid(), oid -> new HashSet<>()).add(key.target().oid());
                neighbours.computeIfAbsent(key.target().oid(), oid -> new HashSet<>()).add(relation.ref().oid());
            }
        }
        return new RelationIndex(model, List.copyOf(relations), vectors, neighbours);
    }

    /** Relations in the order to show them: the top k by similarity, then the neighbours of those. */
    List<Relation> choose(String question, int topK) {
        float[] q = model.embed(question).content().vector();
        List<Integer> ranked = IntStream.range(0, relations.size()).boxed()
                .sorted(Comparator.comparingDouble((Integer i) -> -cosine(q, vectors.get(i))))
                .limit(topK)
                .toList();
        Map<Long, Relation> byOid = relations.stream()
                .collect(Collectors.toMap(r -> r.ref().oid(), r -> r));
        LinkedHashSet<Long> chosen = new LinkedHashSet<>();
        ranked.forEach(i -> chosen.add(relations.get(i).ref().oid()));
        for (Integer i : ranked) {
            chosen.addAll(neighbours.getOrDefault(relations.get(i).ref().oid(), Set.of()));
        }
        List<Relation> result = new ArrayList<>();
        chosen.forEach(oid -> result.add(byOid.get(oid)));
        return result;
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
