package io.pgward.guard.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.Verdict;
import io.pgward.guard.catalog.CatalogCheck;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A catalog statement of a login with a selection, through the whole pipeline as the wire gate calls it: the first
 * sight rewrites and checks it, every later sight of the same text is answered from the served-statement cache, with
 * no rewrite and no catalog round trip, until the schema changes.
 */
@PostgresTest
class ServedCatalogStatementTest {

    private static final String SEARCH_PATH = "\"$user\", public";
    private static final String SQL = "SELECT c.relname FROM pg_catalog.pg_class c "
            + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname !~ '^pg_' ORDER BY 1";

    private final TestDatabase database;

    ServedCatalogStatementTest(TestDatabase database) {
        this.database = database;
    }

    private record Cost(long roundTrips, long rewrites) {
    }

    @Test
    void aCatalogStatementSeenBeforeIsServedWithoutRewriteOrCheck() throws Exception {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE served(id int); CREATE TABLE hidden_beside(id int)");
        }
        GuardPipeline pipeline = TestPipelines.withCatalog(database);
        LoginPolicy login = new LoginPolicy("analyst", database.user(), database.password(),
                List.of("public.served"), "logins.analyst.tables", Duration.ofSeconds(5));
        try {
            CatalogCheck check = pipeline.forLogin(login, database.name()).join().check();
            Verdict.Rewrite first = assertInstanceOf(Verdict.Rewrite.class, serve(pipeline, login));
            assertFalse(first.sql().contains("OFFSET 0"), "quiet conditions: served unfenced");
            for (int i = 0; i < 3; i++) {
                Cost before = new Cost(check.catalogRoundTrips(), check.catalogRewrites());
                assertEquals(first, serve(pipeline, login));
                assertEquals(before, new Cost(check.catalogRoundTrips(), check.catalogRewrites()));
            }
            pipeline.schemaChanged();
            long rewrites = check.catalogRewrites();
            assertEquals(first, serve(pipeline, login));
            assertTrue(check.catalogRewrites() > rewrites, "a schema change drops what was served");
        } finally {
            pipeline.close();
        }
    }

    private Verdict serve(GuardPipeline pipeline, LoginPolicy login) throws Exception {
        return pipeline.proveOrRewrite(login, database.name(), SQL, SqlLexer.split(SQL, true), SEARCH_PATH, true,
                List.of(), true).toCompletableFuture().get();
    }
}
