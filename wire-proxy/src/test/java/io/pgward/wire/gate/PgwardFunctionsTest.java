package io.pgward.wire.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The cheap test for a pgward.* call finds the word wherever lower-casing the whole text would. */
class PgwardFunctionsTest {

    @ParameterizedTest
    @ValueSource(strings = {"select pgward.ask('x')", "SELECT PGWARD.SCHEMA()", "select * from PgWaRd.describe('t')",
            "select 1", "", "pgwar", "pgward", "xpgwardx", "p g w a r d", "select 'İpgward'", "select 'ıpgwar'",
            "\u212Apgward", "select pgwaRD", "select pgwa", "pgwarD;", "Ppgward", "ppgwar"})
    void findsTheWordAsLowerCasingTheTextWould(String text) {
        assertEquals(text.toLowerCase(Locale.ROOT).contains("pgward"),
                PgwardFunctions.containsIgnoringCase(text, "pgward"), text);
    }
}
