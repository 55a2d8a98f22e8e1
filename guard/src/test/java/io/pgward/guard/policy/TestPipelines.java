package io.pgward.guard.policy;

import io.pgward.testkit.TestDatabase;
import java.time.Duration;

/** Pipelines for tests against the test kit's PostgreSQL. */
final class TestPipelines {

    private TestPipelines() {
    }

    /**
     * A pipeline with a catalog layer whose control connections reach the database a login names on the test
     * database's server, two per backend role, closed after {@code idleTimeout} without a statement.
     */
    static GuardPipeline withCatalog(TestDatabase database, Duration idleTimeout) {
        return GuardPipeline.withCatalog(new GuardPipeline.ControlConnections() {
            @Override
            public String jdbcUrl(String name) {
                return "jdbc:postgresql://" + database.host() + ":" + database.port() + "/" + name;
            }

            @Override
            public int checkConnections() {
                return 2;
            }

            @Override
            public Duration idleTimeout() {
                return idleTimeout;
            }
        });
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
