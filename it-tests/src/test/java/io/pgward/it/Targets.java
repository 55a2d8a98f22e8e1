package io.pgward.it;

import io.pgward.testkit.TestDatabase;
import java.util.List;

/**
 * The one place that decides which targets the real-client scenarios run on.
 *
 * <p>Today that is PostgreSQL alone. When pgward serves, {@link #of} returns {@code [postgres, pgward]}: the
 * tests that assert values run on both, and {@link #comparedWithReference} returns {@code [pgward]}, whose
 * output must then equal PostgreSQL's scenario by scenario (see {@link SameOutput}). Until then the
 * comparison runs each scenario a second time on PostgreSQL, which proves that the scenarios print
 * deterministic output and that the comparison itself works.
 */
final class Targets {

    private Targets() {
    }

    /** Every target the scenarios run on; the first is the reference the others are compared with. */
    static List<Target> of(TestDatabase database) {
        return List.of(reference(database));
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
