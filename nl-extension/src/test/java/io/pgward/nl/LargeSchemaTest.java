package io.pgward.nl;

import static io.pgward.testkit.ScriptedChatModel.Language.SQL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.ScriptedChatModel;
import io.pgward.testkit.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** 500 tables: the prompt holds the ones a question is about, the join tables between them, and no others. */
@PostgresTest
class LargeSchemaTest {

    private static final List<String> TOPICS = List.of("invoice", "payroll", "sensor", "warehouse", "marketing",
            "inventory", "supplier", "recipe", "library", "course", "patient", "energy", "crop", "music", "weather",
            "garden", "chemistry", "insurance", "tax", "school");
    private static final List<String> ASPECTS = List.of("log", "archive", "summary", "detail", "history", "queue",
            "audit", "snapshot", "rule", "setting", "batch", "metric", "note", "tag", "event", "link", "version",
            "stat", "plan", "draft", "report", "status", "type", "group", "member");

    private static SchemaCatalog catalog;
    private static SchemaCatalog withNeighbours;

    @BeforeAll
    static void createSchema(TestDatabase db) throws Exception {
        List<String> ddl = new ArrayList<>();
        ddl.add("CREATE SCHEMA big");
        ddl.add("CREATE TABLE big.airports (id integer PRIMARY KEY, iata_code text, city text, country text)");
        ddl.add("COMMENT ON TABLE big.airports IS 'Airports that flights depart from and arrive at.'");
        ddl.add("CREATE TABLE big.flight_bookings (id integer PRIMARY KEY, airport_id integer REFERENCES big.airports,"
                + " passenger_id integer, booked_at timestamptz, fare numeric)");
        ddl.add("CREATE TABLE big.passengers (id integer PRIMARY KEY, full_name text)");
        ddl.add("ALTER TABLE big.flight_bookings ADD FOREIGN KEY (passenger_id) REFERENCES big.passengers");
        int n = 3;
        for (String topic : TOPICS) {
            for (String aspect : ASPECTS) {
                if (n++ < 500) {
                    ddl.add("CREATE TABLE big." + topic + "_" + aspect + " (id integer PRIMARY KEY, "
                            + topic + "_name text, " + aspect + "_value numeric, recorded_at timestamptz)");
                }
            }
        }
        NlAssistantTest.execute(db, ddl.toArray(String[]::new));
        catalog = SchemaCatalog.builder(db::connect).promptBudgetChars(4_000).topK(3).build();
        withNeighbours = SchemaCatalog.builder(db::connect).promptBudgetChars(4_000).topK(3)
                .retrieval(new RetrievalSettings(RetrievalSettings.DEFAULT_RELATION_LIMIT, true,
                        RetrievalSettings.Expansion.NEIGHBOURS, true, true))
                .build();
    }

    @Test
    void promptHoldsTheRelevantTablesAndTheirNeighboursAndSaysMoreExist() throws Exception {
        assertEquals(500, catalog.snapshot().relations().size());
        ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.valid(SQL, "SELECT 1 LIMIT 1"));
        NlAssistant assistant = NlAssistant.builder("analyst", NlSettings.defaults(), catalog).chatModel(model)
                .validator(sql -> Optional.empty()).build();

        assistant.ask("Which airports had the most flight bookings?", OptionalInt.empty());

        String prompt = model.systemText(0);
        assertTrue(prompt.contains("table big.airports -- Airports"), prompt);
        assertTrue(prompt.contains("table big.flight_bookings"), prompt);
        Matcher shown = Pattern.compile("(?m)^table big\\.\\w+").matcher(prompt);
        int tables = 0;
        while (shown.find()) {
            tables++;
        }
        assertTrue(tables <= 10, tables + " tables shown:\n" + prompt);
        assertTrue(prompt.contains((500 - tables) + " more relations exist"), prompt);
        assertTrue(prompt.length() < 8_000, "prompt of " + prompt.length() + " characters");
    }

    @Test
    void theJoinTableBetweenTwoChosenTablesIsShownAndNoOtherNeighbour() throws Exception {
        List<String> shown = catalog.forQuestion("Full names beside IATA codes", 2).shown()
                .stream().map(Relation::qualifiedName).toList();
        assertEquals(3, shown.size(), shown.toString());
        assertTrue(shown.containsAll(List.of("big.airports", "big.passengers", "big.flight_bookings")),
                shown.toString());
    }

    @Test
    void withNeighbourExpansionTheForeignKeyNeighboursOfTheBestMatchesAreShown() throws Exception {
        List<String> shown = withNeighbours.forQuestion("how many bookings per flight?", 1).shown().stream()
                .map(Relation::qualifiedName).toList();
        assertEquals("big.flight_bookings", shown.getFirst());
        assertTrue(shown.containsAll(List.of("big.airports", "big.passengers")), shown.toString());
        assertEquals(3, shown.size(), shown.toString());
        assertEquals(List.of("big.flight_bookings"), catalog.forQuestion("how many bookings per flight?", 1).shown()
                .stream().map(Relation::qualifiedName).toList(), "bridges only: a single table needs no join");
    }
}
