package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/** CatalogOracleIT's verdicts on outputs whose verdict is known, against a known-differences file of the test's own. */
class OracleComparisonTest {

    @TempDir
    Path directory;

    private OracleComparison comparison(String... lines) throws Exception {
        Path file = directory.resolve("known.txt");
        Files.write(file, List.of(lines));
        return new OracleComparison(KnownDifferences.load(file, 17),
                new OracleNormalisation("t_db_1", "o_db_1", 99001, 99002), directory.resolve("outputs"));
    }

    @Test
    void equalOutputsAndListedDifferencesPass() throws Exception {
        OracleComparison c = comparison("psql | \\dt | refused: pg_get_userbyid");
        assertDoesNotThrow(() -> c.check("psql", Map.of("\\dt", "4 rows", "\\l", "t_db_1 99001"),
                Map.of("\\dt", "ERROR: refused", "\\l", "o_db_1 99002")));
    }

    @Test
    void anUnlistedDifferenceFails() throws Exception {
        OracleComparison c = comparison();
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> c.check("psql", Map.of("\\dt", "4 rows"), Map.of("\\dt", "3 rows")));
        assertTrue(e.getMessage().contains("differs and is not listed"), e.getMessage());
    }

    @Test
    void aListedItemThatIsEqualAgainFails() throws Exception {
        OracleComparison c = comparison("psql | \\dt | refused: pg_get_userbyid");
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> c.check("psql", Map.of("\\dt", "4 rows"), Map.of("\\dt", "4 rows")));
        assertTrue(e.getMessage().contains("now equal to the oracle"), e.getMessage());
    }

    @Test
    void aLeakFailsEvenWhenTheDifferenceIsListed() throws Exception {
        OracleComparison c = comparison("psql | \\dt | differs");
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> c.check("psql", Map.of("\\dt", "orders"), Map.of("\\dt", "orders\nsalaries")));
        assertTrue(e.getMessage().contains("LEAK psql \\dt: salaries ×1"), e.getMessage());
    }

    @Test
    void anErrorMayEchoTheClientsOwnTextButRowsMayNot() throws Exception {
        String sql = "SELECT relname FROM pg_class WHERE relname = 'salaries'";
        OracleComparison error = comparison("probes | q | differs");
        assertDoesNotThrow(() -> error.check("probes", Map.of("q", sql), Map.of("q", "ERROR 3F000: no schema"),
                Map.of("q", "ERROR 42501: it reads salaries")));
        OracleComparison rows = comparison("probes | r | differs");
        AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> rows.check("probes", Map.of("r", sql),
                Map.of("r", "relname\n(0 rows)"), Map.of("r", "relname\nsalaries\n(1 rows)")));
        assertTrue(e.getMessage().contains("LEAK probes r: salaries ×1"), e.getMessage());
    }
}
