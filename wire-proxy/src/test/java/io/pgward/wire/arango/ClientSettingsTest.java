package io.pgward.wire.arango;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClientSettingsTest {

    @ParameterizedTest
    @ValueSource(strings = {"SET application_name = 'PostgreSQL JDBC Driver'", "SET extra_float_digits = 3",
            "set session application_name to 'psql'", "SET extra_float_digits TO -1;"})
    void settingsDriversSendOnTheirOwnAreAnsweredAsPostgresqlDoes(String sql) {
        assertEquals("SET", ClientSettings.answer(sql).orElseThrow().commandTag());
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET search_path = public", "SET application_name = 'x'; FOR u IN users RETURN u",
            "SET application_name = 'it''s'", "FOR u IN users RETURN u", "SET role = admin",
            "SET default_transaction_read_only = off"})
    void anythingElseIsNotASetting(String sql) {
        assertTrue(ClientSettings.answer(sql).isEmpty());
    }
}
