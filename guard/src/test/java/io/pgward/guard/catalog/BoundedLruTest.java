package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgward.guard.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The verdict cache's bounds: entries by count and by the characters they hold, least recently used first. */
class BoundedLruTest {

    private static BoundedLru<String, String> lru(int capacity, long budget) {
        return new BoundedLru<>(capacity, budget, (k, v) -> k.length() + v.length());
    }

    @Test
    void dropsTheLeastRecentlyUsedBeyondItsCount() {
        BoundedLru<String, String> lru = lru(2, 1_000);
        lru.put("a", "1");
        lru.put("b", "2");
        lru.get("a");
        lru.put("c", "3");
        assertNull(lru.get("b"));
        assertNotNull(lru.get("a"));
        assertEquals(2, lru.size());
    }

    @Test
    void dropsTheLeastRecentlyUsedBeyondItsWeight() {
        BoundedLru<String, String> lru = lru(1_000, 100);
        for (int i = 0; i < 10; i++) {
            lru.put("k" + i, "x".repeat(38));
        }
        assertEquals(2, lru.size(), "two entries of 40 fit in 100");
        assertEquals(80, lru.weight());
        assertNotNull(lru.get("k9"));
        lru.put("k9", "y");
        assertEquals(43, lru.weight(), "a replaced value gives its weight back");
        lru.put("huge", "x".repeat(200));
        assertNull(lru.get("huge"), "an entry heavier than the budget is not kept");
        assertEquals(2, lru.size());
        lru.clear();
        assertEquals(0, lru.weight());
    }

    /** 10,000 statements of a megabyte each would be 20 GB of strings in a cache bounded by count alone. */
    @Test
    void theVerdictCacheHoldsLargeStatementsWithinItsBudget() {
        VerdictCache cache = new VerdictCache(10_000, 4L << 20);
        String padding = "x".repeat(1 << 20);
        for (int i = 0; i < 100; i++) {
            CheckRequest request = CheckRequest.of(TableSelection.NONE, "r", "public", "SELECT " + i + padding);
            cache.put(request, new Verdict.Refuse("42501", "refused " + padding), cache.epoch());
            cache.put(request, new Served(padding, Verdict.ALLOW), cache.epoch());
        }
        assertEquals(1, cache.size(), "a statement and its refusal weigh 2 Mi characters of the 4 Mi");
        assertEquals(1, cache.servedTexts(), "so does a statement and its served text");
    }
}
