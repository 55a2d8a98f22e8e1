package io.pgward.arango;

import java.util.List;

/**
 * Receives a result as it streams from ArangoDB, batch by batch. {@link #columns} comes first, once, before any
 * row; it is not called at all for a write that returns no rows (the client then gets only a command tag, as
 * for a PostgreSQL INSERT). Every value is text or null.
 */
public interface RowSink {

    void columns(List<String> names);

    void row(List<String> values);
}
