package io.pgward.guard.catalog;

import io.pgward.guard.Verdict;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Verdicts by request, least recently used dropped first, and an epoch that every schema change advances. A
 * verdict reached in an earlier epoch is not stored: it may rest on a schema that has changed since it was read.
 *
 * <p>Beside the verdicts by request (the statement's text), allows by {@link ShapeKey}: the same request with the
 * text replaced by its {@link ConstantShape} key. Only an allow that {@link ShapeSharing} found to hold for every
 * statement of its shape is stored there. Both maps share the epoch, are bounded by the same capacity and are
 * dropped together.
 *
 * <p>And the {@link Served} texts of statements served filtered, by the client's request: what the statement became
 * ({@link CatalogRewrite}, fenced or not) and L3's verdict on it, so that a catalog statement seen before costs a
 * lookup here and neither a rewrite nor a check. Same epoch, capacity and lifetime.
 */
final class VerdictCache {

    /**
     * Everything of a {@link CheckRequest} but the text, and the text's {@link ConstantShape} key instead.
     */
    record ShapeKey(TableSelection selection, String role, String searchPath, boolean standardConformingStrings,
                    List<Integer> parameterTypes, String shape) {

        static ShapeKey of(CheckRequest request, String shape) {
            return new ShapeKey(request.selection(), request.role(), request.searchPath(),
                    request.standardConformingStrings(), request.parameterTypes(), shape);
        }
    }

    private final int capacity;
    private final LinkedHashMap<CheckRequest, Verdict> entries;
    private final LinkedHashMap<ShapeKey, Verdict> byShape;
    private final LinkedHashMap<CheckRequest, Served> served;
    private long epoch;

    VerdictCache(int capacity) {
        this.capacity = capacity;
        this.entries = lru();
        this.byShape = lru();
        this.served = lru();
    }

    private <K, V> LinkedHashMap<K, V> lru() {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > VerdictCache.this.capacity;
            }
        };
    }

    synchronized Verdict get(CheckRequest request) {
        return entries.get(request);
    }

    /** The allow shared by every statement of this shape, or null. */
    synchronized Verdict get(ShapeKey shape) {
        return byShape.get(shape);
    }

    /** How the client's statement of this request is served, or null when it was not served filtered yet. */
    synchronized Served served(CheckRequest clientRequest) {
        return served.get(clientRequest);
    }

    /** Stores how a statement is served if the schema has not changed since {@code startedInEpoch}. */
    synchronized void put(CheckRequest clientRequest, Served how, long startedInEpoch) {
        if (startedInEpoch == epoch) {
            served.put(clientRequest, how);
        }
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

    /**
     * Stores an allow for its shape if the schema has not changed since {@code startedInEpoch}; the caller has
     * established that it holds for the whole shape.
     */
    synchronized void put(ShapeKey shape, Verdict allow, long startedInEpoch) {
        if (!(allow instanceof Verdict.Allow)) {
            throw new IllegalArgumentException("only an allow is shared by shape");
        }
        if (startedInEpoch == epoch) {
            byShape.put(shape, allow);
        }
    }

    synchronized void clear() {
        epoch++;
        entries.clear();
        byShape.clear();
        served.clear();
    }

    synchronized int size() {
        return entries.size();
    }

    synchronized int servedTexts() {
        return served.size();
    }

    synchronized int shapes() {
        return byShape.size();
    }
}
