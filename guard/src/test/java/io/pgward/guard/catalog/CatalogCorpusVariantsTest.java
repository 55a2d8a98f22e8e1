package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.guard.classify.CorpusFiles;
import io.pgward.guard.lexer.LexerException;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shape cache against the catalog check itself: every statement of the guard corpus is checked, then the same
 * statement with other values of its constants ({@link LiteralVariants}). Whenever the variant is answered by the
 * shape cache, a check that has never seen it (another instance, empty cache) must reach the same verdict. Every
 * statement goes to L3 here, whatever L1 and L2 would say, so shapes L2 refuses are tried too; for the login with
 * the corpus's selection and for a read-only login without one.
 */
@PostgresTest
class CatalogCorpusVariantsTest {

    private static final String PATH = "\"$user\", public";

    private static CatalogCheck warm;
    private static CatalogCheck cold;
    private static TableSelection selection;

    @BeforeAll
    static void start(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            GuardFixture.load(c);
            selection = GuardFixture.selection(c);
        }
        CatalogCheck.Options options = new CatalogCheck.Options(Duration.ofSeconds(5), 10_000, Duration.ZERO);
        warm = new CatalogCheck(CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 2), options);
        cold = new CatalogCheck(CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 2), options);
    }

    @AfterAll
    static void stop() {
        warm.close();
        cold.close();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aVerdictSharedByShapeIsTheVerdictTheCheckReachesForTheVariant(boolean withSelection) throws Exception {
        TableSelection login = withSelection ? selection : TableSelection.NONE;
        warm.invalidate();
        List<String> wrong = new ArrayList<>();
        int variants = 0;
        int shared = 0;
        for (CorpusFiles.Case c : CorpusFiles.cases()) {
            String variant = LiteralVariants.of(c.sql());
            List<StatementText> original;
            List<StatementText> changed;
            try {
                original = SqlLexer.split(c.sql(), true);
                changed = variant == null ? List.of() : SqlLexer.split(variant, true);
            } catch (LexerException e) {
                continue;
            }
            if (variant == null) {
                continue;
            }
            variants++;
            assertEquals(original.size(), changed.size(), c.id() + ": " + variant);
            for (StatementText s : original) {
                warm.checkNow(CheckRequest.of(login, null, PATH, s.text()), s);
            }
            for (StatementText s : changed) {
                long before = warm.catalogRoundTrips();
                Verdict fromShape = warm.checkNow(CheckRequest.of(login, null, PATH, s.text()), s);
                if (warm.catalogRoundTrips() != before) {
                    continue;
                }
                shared++;
                Verdict own = cold.checkNow(CheckRequest.of(login, null, PATH, s.text()), s);
                if (!own.equals(fromShape)) {
                    wrong.add(c.id() + ": " + s.text() + "\n    by shape: " + fromShape + "\n    its own check: "
                            + own);
                }
            }
        }
        System.out.printf("%nGuard corpus with other constants (%s): %d cases with constants, %d statements "
                + "answered by shape%n", withSelection ? "selection" : "no selection", variants, shared);
        assertTrue(shared > 0, "some variants are answered by shape");
        assertTrue(wrong.isEmpty(), wrong.size() + " variant(s) got another verdict by shape than by their own "
                + "check:\n" + String.join("\n", wrong));
    }
}
