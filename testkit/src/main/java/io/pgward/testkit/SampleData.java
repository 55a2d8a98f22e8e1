package io.pgward.testkit;

import io.pgward.sampledb.DatasetSize;

/** The content a {@link PostgresTest} database starts with. */
public enum SampleData {
    /** An empty database. */
    NONE(null),
    /** The demo shop at {@link DatasetSize#SMALL}: every table, type, view and comment, few rows. */
    SMALL(DatasetSize.SMALL),
    /** The demo shop at the demo's own size. */
    DEMO(DatasetSize.DEFAULT);

    private final DatasetSize size;

    SampleData(DatasetSize size) {
        this.size = size;
    }

    DatasetSize size() {
        return size;
    }
}
