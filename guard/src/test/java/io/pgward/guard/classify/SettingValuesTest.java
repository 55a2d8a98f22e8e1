package io.pgward.guard.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class SettingValuesTest {

    @Test
    void readsBooleansLikePostgres() {
        for (String t : new String[] {"on", "ON", "t", "tr", "true", "y", "yes", "1", " on "}) {
            assertEquals(Boolean.TRUE, SettingValues.parseBool(t), t);
        }
        for (String f : new String[] {"off", "of", "f", "false", "n", "no", "0"}) {
            assertEquals(Boolean.FALSE, SettingValues.parseBool(f), f);
        }
        for (String x : new String[] {"o", "", "2", "maybe", "onn"}) {
            assertNull(SettingValues.parseBool(x), x);
        }
    }

    @Test
    void readsTimeSettingsInMillisecondsLikePostgres() {
        assertEquals(5000L, SettingValues.parseMilliseconds("5000"));
        assertEquals(5000L, SettingValues.parseMilliseconds("5s"));
        assertEquals(5000L, SettingValues.parseMilliseconds(" 5 s "));
        assertEquals(90_000L, SettingValues.parseMilliseconds("1.5min"));
        assertEquals(3_600_000L, SettingValues.parseMilliseconds("1h"));
        assertEquals(86_400_000L, SettingValues.parseMilliseconds("1d"));
        assertEquals(2L, SettingValues.parseMilliseconds("1500us"));
        assertEquals(0L, SettingValues.parseMilliseconds("0.4ms"));
        assertEquals(0L, SettingValues.parseMilliseconds("0.5"));
        assertEquals(2L, SettingValues.parseMilliseconds("1.5"));
        assertEquals(Long.MAX_VALUE, SettingValues.parseMilliseconds("100000d"));
        for (String bad : new String[] {"", "-1", "+1", "0x10", "1e3", "5 S", "5 weeks", "s"}) {
            assertNull(SettingValues.parseMilliseconds(bad), bad);
        }
    }

    @Test
    void normalisesEncodingNames() {
        assertEquals("utf8", SettingValues.encodingKey("UTF-8"));
        assertEquals("utf8", SettingValues.encodingKey("utf_8"));
        assertEquals("sjis", SettingValues.encodingKey("SJIS"));
    }
}
