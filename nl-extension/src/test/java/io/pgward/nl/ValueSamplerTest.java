package io.pgward.nl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The describe sampling rules, one column per rule. */
@PostgresTest
class ValueSamplerTest {

    private final TestDatabase db;

    ValueSamplerTest(TestDatabase db) {
        this.db = db;
    }

    @BeforeAll
    static void setUp(TestDatabase db) throws Exception {
        NlAssistantTest.execute(db,
                "CREATE TYPE mood AS ENUM ('happy', 'sad', 'unused')",
                "CREATE TABLE samples (id integer, m mood, code char(3), tag varchar(20), late text,"
                        + " many text, long text, nulls text, num integer)",
                // 1,200 rows; late gets new values only after the first 1,000, many has 11 values.
                "INSERT INTO samples SELECT g, CASE WHEN g % 2 = 0 THEN 'happy' ELSE 'sad' END::mood, 'ab',"
                        + " 'x''y', CASE WHEN g <= 1000 THEN 'early' ELSE 'late ' || g END,"
                        + " 'v' || (g % 11), CASE WHEN g = 5 THEN repeat('z', 41) ELSE 'short' END, NULL, g"
                        + " FROM generate_series(1, 1200) AS g",
                "CREATE TABLE wide (c1 text, c2 text, c3 text, c4 text, c5 text, c6 text, c7 text, c8 text,"
                        + " c9 text, c10 text)",
                "INSERT INTO wide VALUES ('a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a')",
                "CREATE TABLE \"Odd Name\" (\"Col\" text)");
    }

    private Map<String, List<String>> samples(String relation, SqlGuard guard) throws Exception {
        return SchemaCatalog.builder(db::connect).sampleGuard(guard).build().snapshot().find(relation)
                .orElseThrow().samples();
    }

    @Test
    void followsTheDescribeRules() throws Exception {
        Map<String, List<String>> samples = samples("samples", SqlGuard.NONE);
        assertEquals(Map.of(
                "m", List.of("happy", "sad"),
                "code", List.of("ab"),
                "tag", List.of("x'y"),
                "late", List.of("early")), samples);
    }

    @Test
    void atMostEightColumnsPerRelationInColumnOrder() throws Exception {
        assertEquals(java.util.Set.of("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"),
                samples("wide", SqlGuard.NONE).keySet());
    }

    @Test
    void aColumnWhoseStatementTheGuardRefusesIsNotSampled() throws Exception {
        Map<String, List<String>> samples = samples("samples",
                sql -> sql.contains(" m::") ? Optional.of("refused") : Optional.empty());
        assertFalse(samples.containsKey("m"), samples.toString());
        assertEquals(List.of("ab"), samples.get("code"));
    }

    @Test
    void sampleStatementReadsTheFirstThousandRowsAsText() throws Exception {
        List<String> checked = new ArrayList<>();
        samples("\"Odd Name\"", sql -> {
            checked.add(sql);
            return Optional.empty();
        });
        assertTrue(checked.contains("SELECT DISTINCT v FROM (SELECT \"Col\"::pg_catalog.text AS v"
                + " FROM public.\"Odd Name\" LIMIT 1000) AS s WHERE v IS NOT NULL LIMIT 11"), checked.toString());
    }

    @Test
    void noColumnIsSampledWhileTheDatabaseHasARiskyDomain() throws Exception {
        NlAssistantTest.execute(db,
                "CREATE FUNCTION public.anything(text) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true'",
                "CREATE DOMAIN public.checked AS text CHECK (public.anything(VALUE))");
        try {
            assertEquals(Map.of(), samples("samples", SqlGuard.NONE));
        } finally {
            NlAssistantTest.execute(db, "DROP DOMAIN public.checked", "DROP FUNCTION public.anything(text)");
        }
        assertEquals(List.of("ab"), samples("samples", SqlGuard.NONE).get("code"));
    }
}
