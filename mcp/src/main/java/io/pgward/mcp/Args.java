package io.pgward.mcp;

import java.util.Map;

/** A tool call's arguments, read leniently in form (a number may arrive as text) and strictly in meaning. */
final class Args {

    private final Map<String, Object> values;

    Args(Map<String, Object> values) {
        this.values = values == null ? Map.of() : values;
    }

    /** The first of {@code names} that is present, as text; null when none is. */
    String text(String... names) {
        for (String name : names) {
            Object value = values.get(name);
            if (value != null) {
                if (!(value instanceof String s)) {
                    throw new ToolError(name + " must be a string.");
                }
                return s;
            }
        }
        return null;
    }

    /** An integer argument, or null when absent. */
    Long integer(String name) {
        Object value = values.get(name);
        if (value == null) {
            return null;
        }
        if (value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            return n.longValue();
        }
        if (value instanceof String s && s.strip().matches("-?\\d{1,18}")) {
            return Long.parseLong(s.strip());
        }
        throw new ToolError(name + " must be an integer.");
    }

    Object raw(String name) {
        return values.get(name);
    }
}
