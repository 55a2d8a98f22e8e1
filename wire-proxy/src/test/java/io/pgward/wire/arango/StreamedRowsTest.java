package io.pgward.wire.arango;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pgward.wire.local.LocalDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamedRowsTest {

    @Test
    void rowsGoOnInBatchesOfTheCursorsSizeAndNoneAreKept() {
        List<String> events = new ArrayList<>();
        ArangoLocalDatabase.StreamedRows rows = new ArangoLocalDatabase.StreamedRows(new LocalDatabase.ResultStream() {
            @Override
            public void columns(List<String> names) {
                events.add("columns " + names);
            }

            @Override
            public void rows(List<List<String>> batch) {
                events.add("rows " + batch);
            }
        }, 2);

        rows.columns(List.of("n"));
        for (int i = 1; i <= 5; i++) {
            rows.row(List.of(String.valueOf(i)));
        }
        rows.finish();

        assertEquals(List.of("columns [n]", "rows [[1], [2]]", "rows [[3], [4]]", "rows [[5]]"), events);
        assertEquals(List.of(), rows.rows, "nothing is held once handed on");
        assertEquals(List.of("n"), rows.columns, "the answer still says the statement had a result set");
    }
}
