package io.pgward.testkit;

import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * {@code postgres:<major>} in a container, for machines with a Docker engine. Where none answers, the
 * calling test class is skipped (aborted), never failed. Loaded only when asked for, so machines without
 * Docker never touch Testcontainers.
 */
final class ContainerServer {

    private ContainerServer() {
    }

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    static PostgresServer start(int major) {
        Assumptions.assumeTrue(dockerAvailable(),
                "-Dpg.provider=testcontainers needs a Docker engine, and none answers here; skipped");
        @SuppressWarnings("resource") // stopped by Testcontainers' own reaper when the JVM exits
        PostgreSQLContainer container = new PostgreSQLContainer("postgres:" + major);
        container.start();
        return new PostgresServer(container.getHost(), container.getFirstMappedPort(), container.getUsername(),
                container.getPassword(), container.getDatabaseName(), "postgres:" + major + " container");
    }
}
