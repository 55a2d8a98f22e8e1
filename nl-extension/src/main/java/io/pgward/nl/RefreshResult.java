package io.pgward.nl;

import java.time.Instant;

/** What {@code pgward.refresh_schema()} reports. */
public sealed interface RefreshResult {

    /** The schema was re-reflected; both caches (snapshot and relation index) were replaced. */
    record Refreshed(Instant refreshedAt, int relations) implements RefreshResult {
    }

    /**
     * The database refused the reflection; the cached snapshot and index are unchanged.
     *
     * @param message {@code Schema refresh failed: <the database's primary message>}
     */
    record Failed(String message) implements RefreshResult {
    }
}
