package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Verdicts by request, least recently used dropped first, and an epoch that every schema change advances. A
 * verdict reached in an earlier epoch is not stored: it may rest on a schema that has changed since it was read.
 */
final class VerdictCache {

    private final int capacity;
    private final LinkedHashMap<CheckRequest, Verdict> entries;
    private long epoch;

    VerdictCache(int capacity) {
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<CheckRequest, Verdict> eldest) {
                return size() > VerdictCache.this.capacity;
            }
        };
    }

    synchronized Verdict get(CheckRequest request) {
        return entries.get(request);
    }

    synchronized long epoch() {
        return epoch;
    }

    /** Stores the verdict if the schema has not changed since {@code startedInEpoch}. */
    synchronized void put(CheckRequest request, Verdict verdict, long startedInEpoch) {
        if (startedInEpoch == epoch) {
            entries.put(request, verdict);
        }
    }

    synchronized void clear() {
        epoch++;
        entries.clear();
    }

    synchronized int size() {
        return entries.size();
    }
}
