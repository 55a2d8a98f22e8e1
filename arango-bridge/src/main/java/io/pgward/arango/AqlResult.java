package io.pgward.arango;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;

/**
 * A whole result, for callers that do not stream: column names (all of type text), rows of nullable strings and
 * the completion. {@code columns} is empty only for a raw write that returned no rows. Held in memory, which the
 * row cap bounds.
 */
public record AqlResult(List<String> columns, List<List<String>> rows, AqlCompletion completion) {

    public AqlResult {
        columns = List.copyOf(columns);
        rows = Collections.unmodifiableList(rows);
    }

    public String commandTag() {
        return completion.commandTag();
    }

    public OptionalLong affectedRows() {
        return completion.affectedRows();
    }

    /** A sink that keeps everything, then {@link #result} builds the record. */
    static final class Collector implements RowSink {

        private List<String> columns = List.of();
        private final List<List<String>> rows = new ArrayList<>();

        @Override
        public void columns(List<String> names) {
            columns = names;
        }

        @Override
        public void row(List<String> values) {
            rows.add(Collections.unmodifiableList(new ArrayList<>(values)));
        }

        AqlResult result(AqlCompletion completion) {
            return new AqlResult(columns, rows, completion);
        }
    }
}
