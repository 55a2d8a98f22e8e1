package io.pgward.guard.classify;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** TEST ONLY: the guard corpus for tests of other guard packages. */
public final class CorpusFiles {

    /** One corpus case. */
    public record Case(String id, String sql, boolean allow, String category, String why) {
    }

    private CorpusFiles() {
    }

    public static Path corpusPath() {
        return CorpusClassificationTest.corpusPath();
    }

    public static List<Case> cases() throws IOException {
        return CorpusClassificationTest.readCorpus().stream()
                .map(c -> new Case(c.id(), c.sql(), c.allow(), c.category(), c.why())).toList();
    }
}
