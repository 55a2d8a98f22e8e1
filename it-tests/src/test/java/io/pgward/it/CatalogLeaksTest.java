package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The leak check of CatalogOracleIT on texts whose verdict is known. */
class CatalogLeaksTest {

    @Test
    void findsHiddenNamesInRowsAndErrorTexts() {
        assertEquals(List.of("salaries ×1"), CatalogLeaks.leaks(" hr_x | salaries_pkey ", ""));
        assertEquals(List.of("salaries ×1", "hr ×1"),
                CatalogLeaks.leaks("ERROR: relation \"hr.salaries\" does not exist", ""));
        assertEquals(List.of("payment_tokens ×1", "tok_ ×1"),
                CatalogLeaks.leaks("payment_tokens|tok_9f3a", "orders"));
        assertEquals(List.of("SENSITIVE ×1"), CatalogLeaks.leaks("SENSITIVE: employee pay", ""));
        assertEquals(List.of("token ×1"), CatalogLeaks.leaks("{\"name\": \"token\"}", ""));
        assertEquals(List.of("Engineering ×1"), CatalogLeaks.leaks("most_common_vals {Engineering}", ""));
    }

    @Test
    void excusesWhatTheOracleAlsoPrintsButNeverARole() {
        String echo = "Did not find any relation named \"hr.salaries\".";
        assertEquals(List.of(), CatalogLeaks.leaks(echo, echo));
        assertEquals(List.of("salaries ×1"), CatalogLeaks.leaks(echo + " salaries", echo));
        assertEquals(List.of("pgward_app ×1"), CatalogLeaks.leaks("{pgward_app=UC/postgres}", "pgward_app"));
    }

    @Test
    void ignoresWordsThatOnlyContainAShortHiddenName() {
        assertEquals(List.of(), CatalogLeaks.leaks("three threads through ts_token_type; tokenize; engineering", ""));
    }
}
