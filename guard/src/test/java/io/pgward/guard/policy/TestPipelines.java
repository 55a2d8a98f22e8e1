package io.pgward.guard.policy;

import io.pgward.testkit.TestDatabase;

/** Pipelines for tests against the test kit's PostgreSQL. */
final class TestPipelines {

    private TestPipelines() {
    }

    /** A pipeline with a catalog layer whose control connections reach the test database, two per backend role. */
    static GuardPipeline withCatalog(TestDatabase database) {
        return GuardPipeline.withCatalog(new GuardPipeline.ControlConnections() {
            @Override
            public String jdbcUrl(String name) {
                return database.jdbcUrl();
            }

            @Override
            public int checkConnections() {
                return 2;
            }
        });
    }
}
