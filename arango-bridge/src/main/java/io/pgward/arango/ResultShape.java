package io.pgward.arango;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * How AQL values become PostgreSQL rows. Decided once, from the first batch: if every non-null value in it is
 * an object, the columns are the keys of those objects in order of first appearance; otherwise one column,
 * {@code value}. Column values are text: strings as they are, numbers and booleans as JSON writes them, arrays and
 * objects as JSON, null as SQL NULL. A key first seen after the first batch has no column (the row description is
 * already on its way to the client), and a later value that is not an object gives a row of NULLs.
 */
final class ResultShape {

    static final String VALUE_COLUMN = "value";

    private final List<String> columns;
    private final boolean objects;

    private ResultShape(List<String> columns, boolean objects) {
        this.columns = columns;
        this.objects = objects;
    }

    static ResultShape of(List<JsonNode> firstBatch) {
        boolean anyObject = false;
        for (JsonNode value : firstBatch) {
            if (value != null && value.isObject()) {
                anyObject = true;
            } else if (value != null && !value.isNull()) {
                return new ResultShape(List.of(VALUE_COLUMN), false);
            }
        }
        if (!anyObject) {
            return new ResultShape(List.of(VALUE_COLUMN), false);
        }
        Set<String> keys = new LinkedHashSet<>();
        for (JsonNode value : firstBatch) {
            if (value != null && value.isObject()) {
                value.fieldNames().forEachRemaining(keys::add);
            }
        }
        return new ResultShape(List.copyOf(keys), true);
    }

    List<String> columns() {
        return columns;
    }

    List<String> row(JsonNode value) {
        if (!objects) {
            return Collections.singletonList(text(value));
        }
        List<String> row = new ArrayList<>(columns.size());
        for (String column : columns) {
            row.add(value != null && value.isObject() ? text(value.get(column)) : null);
        }
        return row;
    }

    static String text(JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return null;
        }
        if (value.isTextual()) {
            return value.textValue();
        }
        if (value.isContainerNode()) {
            return value.toString();
        }
        return value.asText();
    }
}
