package io.pgward.it;

import io.pgward.testkit.TestDatabase;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place that decides which targets the real-client scenarios run on: PostgreSQL itself and pgward in
 * front of it. The tests that assert values run on both, and {@link #comparedWithReference} returns
 * {@code [pgward]}, whose output must equal PostgreSQL's scenario by scenario (see {@link SameOutput}).
 *
 * <p>One pgward per test database, started on first use through the read-write login {@code app} (the
 * scenarios create temporary tables and run pgbench's initialisation), stopped after the test class
 * ({@link StopAfterClass}): its database is dropped then, and a pgward left running would poll it for the rest of
 * the run.
 */
final class Targets {

    private static final Map<String, ProxyFixture> PROXIES = new ConcurrentHashMap<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> PROXIES.values().forEach(ProxyFixture::close)));
    }

    private Targets() {
    }

    /** Stops the pgward of every test database once the class that used them is done. */
    static final class StopAfterClass implements org.junit.jupiter.api.extension.AfterAllCallback {
        @Override
        public void afterAll(org.junit.jupiter.api.extension.ExtensionContext context) {
            PROXIES.keySet().forEach(name -> {
                ProxyFixture proxy = PROXIES.remove(name);
                if (proxy != null) {
                    proxy.close();
                }
            });
        }
    }

    /** Every target the scenarios run on; the first is the reference the others are compared with. */
    static List<Target> of(TestDatabase database) {
        return List.of(reference(database), pgward(database));
    }

    /** pgward in front of the test database, logged in as the read-write login {@code app}. */
    static Target pgward(TestDatabase database) {
        ProxyFixture proxy = PROXIES.computeIfAbsent(database.name(), name -> ProxyFixture.start(database));
        return new Target("pgward", "127.0.0.1", proxy.port(), database.name(), "app", ProxyFixture.PASSWORD);
    }

    /** The target whose behaviour is right by definition: PostgreSQL itself. */
    static Target reference(TestDatabase database) {
        return Target.direct(database);
    }

    /** The targets whose output must equal the reference's. */
    static List<Target> comparedWithReference(TestDatabase database) {
        List<Target> all = of(database);
        if (all.size() > 1) {
            return all.subList(1, all.size());
        }
        return List.of(reference(database).named("postgres (second run)"));
    }

    /** Runs check on every target; a failure names the target it happened on. */
    static void forEach(TestDatabase database, TargetCheck check) throws Exception {
        for (Target target : of(database)) {
            try {
                check.on(target);
            } catch (AssertionError e) {
                AssertionError named = new AssertionError("[" + target.name() + "] " + e.getMessage(), e);
                named.setStackTrace(e.getStackTrace());
                throw named;
            }
        }
    }

    @FunctionalInterface
    interface TargetCheck {
        void on(Target target) throws Exception;
    }
}
