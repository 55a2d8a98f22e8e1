package io.pgward.nl;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Okapi BM25 over one word list per document (k1 = 1.2, b = 0.75, the usual values). A word that appears in every
 * document still scores a little (the idf keeps a floor), so a schema of near-identical tables ranks by length
 * rather than not at all. Immutable.
 */
final class LexicalIndex {

    private static final double K1 = 1.2;
    private static final double B = 0.75;

    private final List<Map<String, Integer>> frequencies;
    private final int[] lengths;
    private final double averageLength;
    private final Map<String, Double> idf;

    private LexicalIndex(List<Map<String, Integer>> frequencies, int[] lengths, double averageLength,
                         Map<String, Double> idf) {
        this.frequencies = frequencies;
        this.lengths = lengths;
        this.averageLength = averageLength;
        this.idf = idf;
    }

    static LexicalIndex build(List<List<String>> documents) {
        int n = documents.size();
        int[] lengths = new int[n];
        Map<String, Integer> documentFrequency = new HashMap<>();
        List<Map<String, Integer>> frequencies = new java.util.ArrayList<>();
        long total = 0;
        for (int i = 0; i < n; i++) {
            Map<String, Integer> tf = new HashMap<>();
            documents.get(i).forEach(w -> tf.merge(w, 1, Integer::sum));
            tf.keySet().forEach(w -> documentFrequency.merge(w, 1, Integer::sum));
            frequencies.add(tf);
            lengths[i] = documents.get(i).size();
            total += lengths[i];
        }
        Map<String, Double> idf = new HashMap<>();
        documentFrequency.forEach((w, df) -> idf.put(w, Math.log(1 + (n - df + 0.5) / (df + 0.5))));
        return new LexicalIndex(List.copyOf(frequencies), lengths, n == 0 ? 0 : (double) total / n, Map.copyOf(idf));
    }

    /** One score per document; each distinct query word counts once. */
    double[] scores(List<String> query) {
        double[] scores = new double[lengths.length];
        for (String word : new java.util.LinkedHashSet<>(query)) {
            Double weight = idf.get(word);
            if (weight == null) {
                continue;
            }
            for (int i = 0; i < lengths.length; i++) {
                Integer tf = frequencies.get(i).get(word);
                if (tf != null) {
                    double norm = K1 * (1 - B + B * lengths[i] / Math.max(averageLength, 1e-9));
                    scores[i] += weight * tf * (K1 + 1) / (tf + norm);
                }
            }
        }
        return scores;
    }
}
