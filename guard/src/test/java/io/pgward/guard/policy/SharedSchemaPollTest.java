package io.pgward.guard.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.catalog.CatalogCheck;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The logins of two backend roles on one database: their catalog checks are two, the schema poll that tells both of
 * a change made outside pgward is one.
 */
@PostgresTest
class SharedSchemaPollTest {

    private final TestDatabase database;

    SharedSchemaPollTest(TestDatabase database) {
        this.database = database;
    }

    private void owner(String sql) throws Exception {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    @Test
    void oneSchemaPollTellsTheChecksOfEveryRole() throws Exception {
        owner("DO $$ BEGIN CREATE ROLE pgward_shared_poll LOGIN PASSWORD 'shared'; "
                + "EXCEPTION WHEN duplicate_object THEN NULL; END $$");
        owner("GRANT CONNECT, TEMP ON DATABASE \"" + database.name() + "\" TO pgward_shared_poll");
        try (GuardPipeline pipeline = TestPipelines.withCatalog(database)) {
            LoginPolicy owners = new LoginPolicy("owners", database.user(), database.password(), List.of(),
                    "logins.owners.tables", Duration.ofSeconds(5));
            LoginPolicy others = new LoginPolicy("others", "pgward_shared_poll", "shared", List.of(),
                    "logins.others.tables", Duration.ofSeconds(5));
            CatalogCheck first = pipeline.forLogin(owners, database.name()).get(30, TimeUnit.SECONDS).check();
            CatalogCheck second = pipeline.forLogin(others, database.name()).get(30, TimeUnit.SECONDS).check();
            assertTrue(first != second, "a check per backend role");
            assertEquals(Set.of(database.name()), pipeline.polledDatabases());

            Semaphore firstHeard = new Semaphore(0);
            Semaphore secondHeard = new Semaphore(0);
            first.onSchemaChange(firstHeard::release);
            second.onSchemaChange(secondHeard::release);
            owner("CREATE TABLE public.shared_poll_new(id int)");
            assertTrue(firstHeard.tryAcquire(10, TimeUnit.SECONDS), "the owners' check heard of the change");
            assertTrue(secondHeard.tryAcquire(10, TimeUnit.SECONDS), "the other role's check heard of it");
        }
    }
}
