package io.pgward.guard.selection;

import java.util.List;

/**
 * A result pgward answers itself: named text columns and rows of text values (null for SQL NULL), in the shape
 * the session's local-answer writer takes.
 */
public record LocalRows(List<String> columns, List<List<String>> rows) {

    public LocalRows {
        columns = List.copyOf(columns);
        rows = List.copyOf(rows);
        for (List<String> row : rows) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("row has " + row.size() + " values for " + columns.size() + " columns");
            }
        }
    }
}
