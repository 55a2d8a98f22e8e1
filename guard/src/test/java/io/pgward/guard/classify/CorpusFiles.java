package io.pgward.guard.classify;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** TEST ONLY: the guard corpus for tests of other guard packages. */
public final class CorpusFiles {

    /**
     * One corpus case; {@code expect} is allow, refuse, block or no-leak (see the corpus README), {@code forbidden}
     * the words a no-leak case's result must not show.
     */
    public record Case(String id, String sql, String expect, String category, String why, List<String> forbidden) {
        public boolean allow() {
            return expect.equals("allow");
        }
    }

    private CorpusFiles() {
    }

    public static Path corpusPath() {
        return CorpusClassificationTest.corpusPath();
    }

    public static List<Case> cases() throws IOException {
        return CorpusClassificationTest.readCorpus().stream()
                .map(c -> new Case(c.id(), c.sql(), c.expect(), c.category(), c.why(), c.forbidden())).toList();
    }
}
