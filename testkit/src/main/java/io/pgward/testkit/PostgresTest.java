package io.pgward.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the annotated test class its own fresh database on a real PostgreSQL; inject it as a
 * {@link TestDatabase} parameter (constructor, {@code @BeforeAll}, {@code @Test}, ...).
 *
 * <p>Which PostgreSQL: the server in {@code PGWARD_TEST_PG_URL} when that is set; otherwise the embedded
 * binaries of {@code -Dpg.version} (default 17), started once per JVM; with {@code -Dpg.provider=testcontainers},
 * a {@code postgres:<version>} container, and the class is skipped when no Docker engine answers.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(PostgresExtension.class)
public @interface PostgresTest {

    /** What the fresh database holds before the first test runs. */
    SampleData sampleData() default SampleData.NONE;
}
