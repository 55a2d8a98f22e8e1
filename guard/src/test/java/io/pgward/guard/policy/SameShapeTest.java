package io.pgward.guard.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.ReadOnlyGuard;
import io.pgward.guard.Verdict;
import io.pgward.guard.catalog.CatalogCheck;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A session keeps a text every layer allowed ({@link GuardPipeline#sameShape}) and allows a text of the same shape
 * from the caches' shared allows, without lexing it and without a catalog round trip; never a text of another shape,
 * in another context, after the schema changed, or when a layer keeps its allow to the text.
 */
@PostgresTest
class SameShapeTest {

    private static final String SEARCH_PATH = "\"$user\", public";
    private static final String FIRST = "SELECT * FROM orders WHERE id = 1";

    private final TestDatabase database;
    private GuardPipeline pipeline;

    SameShapeTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void start() throws Exception {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS orders, hidden; "
                    + "CREATE TABLE orders(id int, status text); CREATE TABLE hidden(id int)");
        }
        pipeline = TestPipelines.withCatalog(database);
    }

    @AfterEach
    void stop() {
        pipeline.close();
    }

    private LoginPolicy login(List<String> tables) {
        return new LoginPolicy("analyst" + tables.size(), database.user(), database.password(), tables,
                "logins.analyst.tables", Duration.ofSeconds(5));
    }

    @Test
    void aTextOfTheSameShapeIsAllowedFromTheSharedAllowsWithoutARoundTrip() throws Exception {
        for (LoginPolicy login : List.of(login(List.of()), login(List.of("public.orders")))) {
            assertEquals(Verdict.ALLOW, fullPath(login, FIRST));
            SameShape same = sameShape(login, FIRST);
            assertNotNull(same, login.name());
            CatalogCheck check = pipeline.forLogin(login, database.name()).join().check();
            long trips = check.catalogRoundTrips();
            assertTrue(allowsAsSame(same, "SELECT * FROM orders WHERE id = 42"), login.name());
            assertTrue(allowsAsSame(same, "SELECT * FROM orders WHERE id = 7"), login.name());
            assertEquals(trips, check.catalogRoundTrips(), "no catalog round trip");

            assertFalse(allowsAsSame(same, "SELECT * FROM hidden WHERE id = 42"), "another relation");
            assertFalse(allowsAsSame(same, "SELECT * FROM orders WHERE id = 42 OR true"), "more text");
            assertFalse(pipeline.allowsAsSame(same, "SELECT * FROM orders WHERE id = 42", true, "public", List.of(),
                    true), "another search_path");
            assertFalse(pipeline.allowsAsSame(same, "SELECT * FROM orders WHERE id = 42", true, SEARCH_PATH,
                    List.of(), false), "a Parse, which L3 judges with its parameter types");

            pipeline.schemaChanged();
            assertFalse(allowsAsSame(same, "SELECT * FROM orders WHERE id = 43"), "the schema changed");
        }
    }

    @Test
    void nothingIsKeptOfATextWhoseAllowALayerKeepsToItsText() throws Exception {
        LoginPolicy open = login(List.of());
        String rowConstant = "SELECT '(1,x)'::orders AS o FROM orders WHERE id = 1";
        assertEquals(Verdict.ALLOW, fullPath(open, rowConstant));
        assertNull(sameShape(open, rowConstant), "a constant of a row type is never shared");

        LoginPolicy selected = login(List.of("public.orders"));
        String catalog = "SELECT relname FROM pg_class WHERE relname = 'orders'";
        assertInstanceOf(Verdict.Rewrite.class, fullPath(selected, catalog));
        assertNull(sameShape(selected, catalog), "served with catalog filters");

        assertNull(sameShape(open, "SELECT * FROM orders WHERE id = 99"), "never allowed before: nothing shared");
    }

    private Verdict fullPath(LoginPolicy login, String sql) throws Exception {
        ReadOnlyGuard.Classification classification = pipeline.classify(sql, true, login, Set.of());
        assertEquals(Verdict.ALLOW, classification.verdict(), sql);
        return pipeline.proveOrRewrite(login, database.name(), sql, classification.reads(), SEARCH_PATH, true,
                List.of(), true).toCompletableFuture().get();
    }

    private SameShape sameShape(LoginPolicy login, String sql) {
        return pipeline.sameShape(login, database.name(), sql, true, SEARCH_PATH, List.of(), true);
    }

    private boolean allowsAsSame(SameShape same, String sql) {
        return pipeline.allowsAsSame(same, sql, true, SEARCH_PATH, List.of(), true);
    }
}
