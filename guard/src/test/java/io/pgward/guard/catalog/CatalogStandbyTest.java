package io.pgward.guard.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.guard.selection.DescribeResult;
import io.pgward.guard.selection.RelationDescriber;
import io.pgward.guard.selection.ResolvedSelection;
import io.pgward.guard.selection.RiskyDomains;
import io.pgward.sampledb.LocalPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A read replica: the statement cannot be proven there (the check needs a temporary view), so it is refused with
 * the seed's standby message and pgward's describe leaves the value samples out. A real hot standby: a server
 * restarted in recovery with no primary.
 */
class CatalogStandbyTest {

    @Test
    void aStandbyGetsTheStandbyMessageAndDescribeWithoutValues() throws Exception {
        LocalPostgres primary = LocalPostgres.start(0);
        try (Connection c = primary.connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE stores (id int PRIMARY KEY, region text NOT NULL)");
            s.execute("INSERT INTO stores VALUES (1, 'north'), (2, 'south')");
        }
        try (LocalPostgres standby = primary.restartAsStandby()) {
            try (Connection c = standby.connect("postgres"); Statement s = c.createStatement();
                 var rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
                rs.next();
                assertTrue(rs.getBoolean(1), "the server is a standby");
            }
            try (CatalogCheck check = new CatalogCheck(CatalogCheck.controlPool(standby.jdbcUrl("postgres"),
                    standby.superuser(), standby.password(), 1), new CatalogCheck.Options(Duration.ofSeconds(5),
                    10, Duration.ZERO))) {
                Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, check.checkNow(
                        CheckRequest.of(TableSelection.NONE, null, "\"$user\", public", "SELECT region FROM stores")));
                assertEquals(CatalogRefusals.STANDBY, refuse.rule(), refuse.message());
                assertEquals(SqlStates.READ_ONLY_SQL_TRANSACTION, refuse.sqlState());
                assertEquals("pgward refused this query: it could not be checked: the database is a read-only standby",
                        refuse.message());
            }
            try (Connection c = standby.connect("postgres")) {
                DescribeResult.Described described = assertInstanceOf(DescribeResult.Described.class,
                        new RelationDescriber(RiskyDomains.CATALOG_DEPENDENCIES).describe(c, null,
                                ResolvedSelection.NONE, "stores"));
                assertTrue(described.description().toRows().rows().stream()
                        .noneMatch(row -> row.getFirst().equals("values")), "no value samples on a standby");
                assertTrue(described.description().toRows().rows().stream()
                        .anyMatch(row -> row.get(1).equals("region text not null")),
                        described.description().toRows().rows().toString());
            }
        }
    }
}
