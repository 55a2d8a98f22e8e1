package io.pgward.guard.catalog;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongBiFunction;

/**
 * A map that drops its least recently used entries once it holds more than {@code capacity} of them or more than
 * {@code budget} by the weight of what they hold: a count alone would let a few thousand entries of the largest
 * statements the guard accepts fill the heap. Not thread-safe; {@link VerdictCache} synchronizes.
 */
final class BoundedLru<K, V> {

    private final int capacity;
    private final long budget;
    private final ToLongBiFunction<K, V> weigher;
    private final LinkedHashMap<K, V> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long weight;

    /** @param weigher an entry's weight, the characters of its texts for one */
    BoundedLru(int capacity, long budget, ToLongBiFunction<K, V> weigher) {
        this.capacity = capacity;
        this.budget = budget;
        this.weigher = weigher;
    }

    V get(K key) {
        return entries.get(key);
    }

    /** Stores the entry unless it alone weighs more than the budget; then drops the eldest until both bounds hold. */
    void put(K key, V value) {
        long added = weigher.applyAsLong(key, value);
        if (added > budget) {
            return;
        }
        V old = entries.put(key, value);
        if (old != null) {
            weight -= weigher.applyAsLong(key, old);
        }
        weight += added;
        Iterator<Map.Entry<K, V>> eldest = entries.entrySet().iterator();
        while ((entries.size() > capacity || weight > budget) && eldest.hasNext()) {
            Map.Entry<K, V> e = eldest.next();
            weight -= weigher.applyAsLong(e.getKey(), e.getValue());
            eldest.remove();
        }
    }

    void clear() {
        entries.clear();
        weight = 0;
    }

    int size() {
        return entries.size();
    }

    long weight() {
        return weight;
    }
}
