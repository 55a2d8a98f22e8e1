package io.pgward.wire.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The startup packet read as PostgreSQL reads it: a table of packets and the settings the server would apply, in
 * the order it applies them, plus what {@code options} holds besides settings.
 */
class StartupSettingsTest {

    static Stream<Arguments> packets() {
        return Stream.of(
                row("special keys are not settings", List.of("user", "u", "database", "d", "replication", "false",
                        "_pq_.x", "1", "application_name", "psql"), "application_name=psql", ""),
                row("special keys only in exact case", List.of("USER", "u", "Database", "d", "Options", "x"),
                        "USER=u Database=d Options=x", ""),
                row("keys keep their spelling, key() folds ASCII", List.of("DEFAULT_TRANSACTION_READ_ONLY", "off",
                        "Statement_Timeout", "0"), "DEFAULT_TRANSACTION_READ_ONLY=off Statement_Timeout=0", ""),
                row("-c with a blank", List.of("options", "-c client_encoding=SJIS"), "client_encoding=SJIS", ""),
                row("-c without a blank", List.of("options", "-cclient_encoding=SJIS"), "client_encoding=SJIS", ""),
                row("--name=value with - read as _", List.of("options", "--client-encoding=SJIS"),
                        "client_encoding=SJIS", ""),
                row("-c name with - read as _, value kept", List.of("options", "-c default-transaction-read-only=of-f"),
                        "default_transaction_read_only=of-f", ""),
                row("value after the first =", List.of("options", "-c search_path=a=b"), "search_path=a=b", ""),
                row("backslash-escaped blank", List.of("options", "-c application_name=a\\ b -c x=y"),
                        "application_name=a b x=y", ""),
                row("escaped blank joins -c and its argument", List.of("options", "-c\\ statement_timeout=0"),
                        " statement_timeout=0", ""),
                row("escaped backslash", List.of("options", "-c search_path=a\\\\b"), "search_path=a\\b", ""),
                row("trailing backslash vanishes", List.of("options", "-c search_path=ab\\"), "search_path=ab", ""),
                row("tabs and newlines separate words", List.of("options", "\t-c\na=1\r\n--b=2\f"), "a=1 b=2", ""),
                row("grouped switches", List.of("options", "-Fc statement_timeout=0"), "statement_timeout=0", "-F"),
                row("options first, then the keys in order", List.of("statement_timeout", "5", "options",
                        "-c statement_timeout=7", "Statement_Timeout", "9"),
                        "statement_timeout=7 statement_timeout=5 Statement_Timeout=9", ""),
                row("the last options key counts", List.of("options", "-c a=1", "options", "-c b=2"), "b=2", ""),
                row("a repeated key stays repeated", List.of("statement_timeout", "1", "x", "2",
                        "statement_timeout", "3"), "statement_timeout=1 x=2 statement_timeout=3", ""),
                row("-c without a value", List.of("options", "-c statement_timeout"), "", "-c statement_timeout"),
                row("-- without a value", List.of("options", "--single"), "", "--single"),
                row("-c at the end", List.of("options", "-c"), "", "-c"),
                row("-c takes the next word even if it starts with -", List.of("options", "-c -x=1"), "_x=1", ""),
                row("other switches", List.of("options", "-e -B 10 -fs -d5"), "", "-e|-B 10|-f s|-d 5"),
                row("unknown switch", List.of("options", "-X -c a=1"), "a=1", "-X"),
                row("a word that is not a switch", List.of("options", "shop -c a=1"), "a=1", "shop"),
                row("words after --", List.of("options", "-c a=1 -- -c b=2"), "a=1", "-c|b=2"),
                row("a lone dash", List.of("options", "-"), "", "-"),
                row("blank options", List.of("options", "  \t "), "", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("packets")
    void readsSettingsAsPostgresDoes(String what, List<Map.Entry<String, String>> pairs, String settings,
                                     String other) {
        StartupSettings read = StartupSettings.read(pairs);
        assertEquals(settings, String.join(" ", read.settings().stream().map(Object::toString).toList()), what);
        assertEquals(other, String.join("|", read.otherSwitches()), what);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("packets")
    void foldsOnlyAsciiLettersOfNames(String what, List<Map.Entry<String, String>> pairs, String settings,
                                      String other) {
        for (StartupSettings.Setting s : StartupSettings.read(pairs).settings()) {
            assertEquals(s.name().toLowerCase(java.util.Locale.ROOT), s.key());
        }
        assertEquals("statement_\u212Aimeout", new StartupSettings.Setting("Statement_\u212Aimeout", "0", "x").key());
    }

    private static Arguments row(String what, List<String> keysAndValues, String settings, String other) {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (int i = 0; i < keysAndValues.size(); i += 2) {
            pairs.add(Map.entry(keysAndValues.get(i), keysAndValues.get(i + 1)));
        }
        return Arguments.of(what, pairs, settings, other);
    }
}
