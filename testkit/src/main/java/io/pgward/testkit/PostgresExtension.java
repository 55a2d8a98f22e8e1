package io.pgward.testkit;

import io.pgward.sampledb.LocalPostgres;
import io.pgward.sampledb.SampleDataset;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The one JUnit 5 extension every module uses for a real PostgreSQL (see {@link PostgresTest}).
 *
 * <p>Invariants: one server per JVM, started on first use and stopped at exit; one database per test class
 * (nested classes included), created before its first test and dropped after its last. Sample data is loaded
 * once per JVM into a template database and copied with {@code CREATE DATABASE ... TEMPLATE}, which takes
 * milliseconds instead of seconds.
 */
public final class PostgresExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    public static final String URL_VARIABLE = "PGWARD_TEST_PG_URL";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PostgresExtension.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final String RUN_ID = Long.toString(ProcessHandle.current().pid(), 36);
    private static final Map<SampleData, String> TEMPLATES = new EnumMap<>(SampleData.class);
    private static PostgresServer server;
    private static int serverMajor;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        PostgresServer shared = sharedServer();
        SampleData content = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), PostgresTest.class)
                .map(PostgresTest::sampleData).orElse(SampleData.NONE);
        String name = databaseName(context.getRequiredTestClass().getSimpleName());
        try (Connection admin = shared.connectAdmin(); Statement statement = admin.createStatement()) {
            String template = content == SampleData.NONE ? "template1" : template(shared, content);
            statement.execute("CREATE DATABASE " + name + " TEMPLATE " + template);
        }
        context.getStore(NAMESPACE).put(TestDatabase.class,
                new TestDatabase(shared.host(), shared.port(), name, shared.user(), shared.password(), serverMajor));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        TestDatabase database = context.getStore(NAMESPACE).remove(TestDatabase.class, TestDatabase.class);
        if (database != null) {
            try (Connection admin = sharedServer().connectAdmin(); Statement statement = admin.createStatement()) {
                statement.execute("DROP DATABASE IF EXISTS " + database.name() + " WITH (FORCE)");
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestDatabase.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
            TestDatabase database = c.getStore(NAMESPACE).get(TestDatabase.class, TestDatabase.class);
            if (database != null) {
                return database;
            }
        }
        throw new ParameterResolutionException("No test database: is the class annotated with @PostgresTest?");
    }

    /** The server every test class in this JVM shares, started on first use. */
    public static synchronized PostgresServer sharedServer() throws SQLException {
        if (server == null) {
            PostgresServer started = startServer();
            try (Connection admin = started.connectAdmin()) {
                serverMajor = admin.getMetaData().getDatabaseMajorVersion();
            }
            int wanted = requestedMajor();
            if (System.getenv(URL_VARIABLE) == null && serverMajor != wanted) {
                throw new IllegalStateException("-Dpg.version=" + wanted + " but PostgreSQL " + serverMajor
                        + " started: run Maven with the same -Dpg.version so it puts the matching binaries on the classpath");
            }
            server = started;
        }
        return server;
    }

    private static PostgresServer startServer() {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return ExternalServerUrl.parse(url);
        }
        String provider = System.getProperty("pg.provider", "embedded").toLowerCase(Locale.ROOT);
        return switch (provider) {
            case "embedded" -> {
                LocalPostgres postgres = LocalPostgres.start(0);
                yield new PostgresServer(postgres.host(), postgres.port(), postgres.superuser(), postgres.password(),
                        "postgres", "embedded PostgreSQL");
            }
            case "testcontainers" -> ContainerServer.start(requestedMajor());
            default -> throw new IllegalArgumentException(
                    "-Dpg.provider must be embedded or testcontainers, was " + provider);
        };
    }

    private static int requestedMajor() {
        return Integer.parseInt(System.getProperty("pg.version", "17"));
    }

    private static synchronized String template(PostgresServer shared, SampleData content) throws SQLException {
        String existing = TEMPLATES.get(content);
        if (existing != null) {
            return existing;
        }
        String name = "pgward_tpl_" + content.name().toLowerCase(Locale.ROOT) + "_" + RUN_ID;
        try (Connection admin = shared.connectAdmin(); Statement statement = admin.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name);
            statement.execute("CREATE DATABASE " + name);
        }
        try (Connection connection = shared.connect(name)) {
            SampleDataset.load(connection, content.size());
        }
        TEMPLATES.put(content, name);
        if (System.getenv(URL_VARIABLE) != null) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> dropQuietly(shared, name)));
        }
        return name;
    }

    private static void dropQuietly(PostgresServer shared, String name) {
        try (Connection admin = shared.connectAdmin(); Statement statement = admin.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("pgward testkit: could not drop " + name + ": " + e.getMessage());
        }
    }

    /** A lower-case identifier, unique in this JVM and across concurrent runs on one external server. */
    static String databaseName(String testClass) {
        String base = testClass.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
        String suffix = "_" + RUN_ID + "_" + SEQUENCE.incrementAndGet();
        int room = 63 - "t_".length() - suffix.length();
        return "t_" + (base.length() > room ? base.substring(0, room) : base) + suffix;
    }
}
