package io.pgward.nl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.SampleData;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

@PostgresTest(sampleData = SampleData.SMALL)
class ExplainValidatorTest {

    private final TestDatabase db;

    ExplainValidatorTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    static void setUp(TestDatabase db) throws Exception {
        NlAssistantTest.execute(db, "CREATE ROLE nl_explain NOLOGIN", "CREATE SCHEMA reporting",
                "CREATE TABLE reporting.daily (day date, amount numeric)",
                "GRANT USAGE ON SCHEMA public, reporting TO nl_explain",
                "GRANT SELECT ON customers, reporting.daily TO nl_explain");
    }

    private ExplainValidator validator(String searchPath) {
        return new ExplainValidator(db::connect, Optional.of("nl_explain"), Optional.of(searchPath),
                Duration.ofSeconds(5));
    }

    @Test
    void validQueryPasses() {
        assertEquals(Optional.empty(), validator("public").problem("SELECT name FROM customers ORDER BY 1 LIMIT 3;"));
    }

    @Test
    void errorIsTheDatabasesPrimaryMessage() {
        assertEquals(Optional.of("column \"nme\" does not exist"),
                validator("public").problem("SELECT nme FROM customers LIMIT 3"));
    }

    @Test
    void runsAsTheLoginsRole() {
        assertEquals(Optional.of("permission denied for table orders"),
                validator("public").problem("SELECT * FROM orders LIMIT 3"));
    }

    @Test
    void resolvesNamesWithTheSessionsSearchPath() {
        assertEquals(Optional.of("relation \"daily\" does not exist"),
                validator("public").problem("SELECT * FROM daily LIMIT 1"));
        assertEquals(Optional.empty(), validator("reporting, public").problem("SELECT * FROM daily LIMIT 1"));
    }

    @Test
    void aSecondStatementNeverReachesTheDatabase() throws Exception {
        long before = customers();
        Optional<String> problem = validator("public").problem("SELECT 1; DELETE FROM customers");
        assertTrue(problem.orElseThrow().startsWith(QueryShape.NOT_ONE_QUERY), problem.toString());
        assertEquals(before, customers());
        for (String notAQuery : List.of("DELETE FROM customers", "SET ROLE postgres", "EXPLAIN ANALYZE SELECT 1")) {
            assertTrue(validator("public").problem(notAQuery).orElseThrow().startsWith(QueryShape.NOT_ONE_QUERY));
        }
    }

    private long customers() throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM customers")) {
            r.next();
            return r.getLong(1);
        }
    }
}
