package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The catalog check's bounds: what it will not read back or wait for is refused as too complex (54001). */
@PostgresTest
class CatalogCheckBoundsTest {

    private static final String PATH = "\"$user\", public";

    private static String inList(int values) {
        return "select count(*) from generate_series(1, 10) g where g in ("
                + IntStream.rangeClosed(1, values).mapToObj(Integer::toString).collect(Collectors.joining(", ")) + ")";
    }

    private static CatalogCheck check(TestDatabase db, Duration timeout) {
        return new CatalogCheck(CatalogCheck.controlPool(db.jdbcUrl(), db.user(), db.password(), 1),
                new CatalogCheck.Options(timeout, 100, Duration.ZERO));
    }

    @Test
    void aParseTreeLargerThanTheCheckReadsIsNotReadBackButRefused(TestDatabase db) {
        try (CatalogCheck check = check(db, Duration.ofSeconds(30))) {
            assertInstanceOf(Verdict.Allow.class,
                    check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH, inList(1_000))));
            // About 150 bytes of tree per value: 40,000 values make some 6 MB.
            Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class,
                    check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH, inList(40_000))));
            assertEquals(CatalogRefusals.TOO_COMPLEX, refuse.rule());
            assertEquals(SqlStates.STATEMENT_TOO_COMPLEX, refuse.sqlState());
            assertEquals("pgward refused this query: it is too complex to check (PostgreSQL's parse tree of it is "
                    + "larger than the 4194304 bytes the catalog check reads)", refuse.message());
        }
    }

    @Test
    void anAnalysisCancelledByTheChecksStatementTimeoutIsTooComplex(TestDatabase db) {
        // PostgreSQL took 70-330 ms to store a view of 20,000 constants on the machine this was written on; 80,000
        // take several times that, and the check allows 100 ms.
        try (CatalogCheck check = check(db, Duration.ofMillis(100))) {
            Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class,
                    check.checkNow(CheckRequest.of(TableSelection.NONE, null, PATH, inList(80_000))));
            assertEquals(CatalogRefusals.TOO_COMPLEX, refuse.rule(), refuse.message());
            assertEquals(SqlStates.STATEMENT_TOO_COMPLEX, refuse.sqlState());
            assertTrue(refuse.message().endsWith("(PostgreSQL's analysis of it did not finish within the catalog "
                    + "check's 100 ms)"), refuse.message());
        }
    }
}
