package io.pgward.guard.catalog;

import io.pgward.testkit.TestDatabase;
import java.time.Duration;

/**
 * TEST ONLY: the catalog check the catalog tests run against their database: its owner's connections (two), a
 * five-second statement timeout and no schema polling, so that a test decides when the cache is dropped.
 */
final class CatalogChecks {

    private CatalogChecks() {
    }

    static CatalogCheck on(TestDatabase db) {
        return on(db, 1000);
    }

    static CatalogCheck on(TestDatabase db, int cacheSize) {
        return new CatalogCheck(CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 2),
                new CatalogCheck.Options(Duration.ofSeconds(5), cacheSize, Duration.ZERO));
    }
}
