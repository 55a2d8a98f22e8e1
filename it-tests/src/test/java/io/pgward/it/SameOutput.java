package io.pgward.it;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Asserts that two targets give a client the same result: the comparison pgward must pass against
 * PostgreSQL for every scenario. Results are JSON trees; object members compare regardless of order, arrays
 * element by element. A mismatch is reported as the JSON pointers that differ, with both values.
 */
final class SameOutput {

    private static final int SHOWN = 20;

    private SameOutput() {
    }

    /** Produces a target's output for one scenario. */
    @FunctionalInterface
    interface Scenario {
        JsonNode runOn(Target target) throws Exception;
    }

    /** Runs scenario on reference, then on other, and fails unless both printed the same JSON. */
    static void assertSameOutput(String scenarioName, Target reference, Target other, Scenario scenario)
            throws Exception {
        JsonNode expected = scenario.runOn(reference);
        JsonNode actual = scenario.runOn(other);
        assertSameJson(scenarioName + ": " + other.name() + " differs from " + reference.name(), expected, actual);
    }

    /** Compares the output of every scenario of script on reference and on other. */
    static void assertSameOutputs(ClientScript script, Target reference, Target other) throws Exception {
        for (String scenario : script.scenarios()) {
            assertSameOutput(script.client() + " " + scenario, reference, other,
                    target -> script.output(scenario, target));
        }
    }

    /** Fails with the differing paths unless expected and actual are equal JSON. */
    static void assertSameJson(String message, JsonNode expected, JsonNode actual) {
        List<String> differences = differences(expected, actual);
        if (!differences.isEmpty()) {
            List<String> shown = differences.subList(0, Math.min(SHOWN, differences.size()));
            String more = differences.size() > SHOWN ? "\n  ... and " + (differences.size() - SHOWN) + " more" : "";
            fail(message + " at " + differences.size() + " place(s):\n  " + String.join("\n  ", shown) + more);
        }
    }

    /** Where two JSON trees differ, as {@code pointer: expected ≠ actual} lines; empty when they are equal. */
    static List<String> differences(JsonNode expected, JsonNode actual) {
        List<String> out = new ArrayList<>();
        collect("", expected, actual, out);
        return out;
    }

    private static void collect(String pointer, JsonNode expected, JsonNode actual, List<String> out) {
        if (expected.equals(actual)) {
            return;
        }
        if (expected.isObject() && actual.isObject()) {
            TreeSet<String> names = new TreeSet<>();
            expected.fieldNames().forEachRemaining(names::add);
            actual.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                String child = pointer + "/" + name.replace("~", "~0").replace("/", "~1");
                if (!actual.has(name)) {
                    out.add(child + ": " + expected.get(name) + " ≠ (missing)");
                } else if (!expected.has(name)) {
                    out.add(child + ": (missing) ≠ " + actual.get(name));
                } else {
                    collect(child, expected.get(name), actual.get(name), out);
                }
            }
        } else if (expected.isArray() && actual.isArray()) {
            if (expected.size() != actual.size()) {
                out.add(pointer + ": " + expected.size() + " elements ≠ " + actual.size() + " elements");
            }
            for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
                collect(pointer + "/" + i, expected.get(i), actual.get(i), out);
            }
        } else {
            out.add((pointer.isEmpty() ? "/" : pointer) + ": " + expected + " ≠ " + actual);
        }
    }
}
