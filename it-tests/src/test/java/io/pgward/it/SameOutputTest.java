package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.guard.SqlStates;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

class SameOutputTest {

    private static JsonNode json(String text) throws Exception {
        return ClientScript.JSON.readTree(text);
    }

    @Test
    void objectMembersCompareRegardlessOfOrder() throws Exception {
        assertEquals(List.of(), SameOutput.differences(json("{\"a\":1,\"b\":[1,2]}"), json("{\"b\":[1,2],\"a\":1}")));
    }

    @Test
    void reportsEveryDifferingPointerWithBothValues() throws Exception {
        JsonNode postgres = json("{\"row\":{\"n\":\"1.50\",\"t\":\"x\"},\"rows\":[[1],[2]],\"gone\":true}");
        JsonNode proxy = json("{\"row\":{\"n\":\"1.5\",\"t\":\"x\"},\"rows\":[[1],[3],[4]],\"extra\":null}");
        assertEquals(List.of(
                "/extra: (missing) ≠ null",
                "/gone: true ≠ (missing)",
                "/row/n: \"1.50\" ≠ \"1.5\"",
                "/rows: 2 elements ≠ 3 elements",
                "/rows/1/0: 2 ≠ 3"), SameOutput.differences(postgres, proxy));
    }

    @Test
    void arrayOrderMatters() throws Exception {
        assertEquals(List.of("/0: 1 ≠ 2", "/1: 2 ≠ 1"), SameOutput.differences(json("[1,2]"), json("[2,1]")));
    }

    @Test
    void typesMatterNotJustText() throws Exception {
        assertEquals(List.of("/: 1 ≠ \"1\""), SameOutput.differences(json("1"), json("\"1\"")));
    }

    @Test
    void comparisonFailsNamingTheTargetAndScenario() throws Exception {
        Target a = new Target("postgres", "127.0.0.1", 5432, "db", "u", "secret");
        Target b = a.named("pgward");
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> SameOutput.assertSameOutput("pg error", a, b,
                        target -> json("{\"code\":\"" + (target == a ? SqlStates.UNDEFINED_COLUMN : "XX000") + "\"}")));
        assertTrue(error.getMessage().startsWith("pg error: pgward differs from postgres at 1 place(s):"),
                error.getMessage());
        assertTrue(error.getMessage().contains("/code: \"42703\" ≠ \"XX000\""), error.getMessage());
    }
}
