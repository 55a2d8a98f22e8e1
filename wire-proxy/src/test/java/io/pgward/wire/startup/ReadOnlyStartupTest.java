package io.pgward.wire.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.pool.PinnedSettings;
import io.pgward.wire.protocol.SqlState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What a read-only login's client may send at startup, and the parameters its backend session gets instead. */
class ReadOnlyStartupTest {

    private static final PgwardConfig.Login ANALYST = new PgwardConfig.Login("analyst", PgwardConfig.AuthMethod.TRUST,
            null, null, "reader", null, PgwardConfig.Mode.READ_ONLY);
    private static final PgwardConfig.Login WITH_TIMEOUT = ANALYST.withPolicy(
            ANALYST.policy().withStatementTimeout(Duration.ofSeconds(1)));
    private static final PgwardConfig.Login SELECTION = ANALYST.withPolicy(
            ANALYST.policy().withTables(List.of("public.orders")));

    /** What real drivers send: pgjdbc, libpq (psql, psycopg), asyncpg, node-postgres and postgres.js. */
    static Stream<Arguments> driverPackets() {
        return Stream.of(
                Arguments.of("pgjdbc", pairs("user", "analyst", "database", "shop", "client_encoding", "UTF8",
                        "DateStyle", "ISO", "TimeZone", "Europe/Berlin", "extra_float_digits", "2",
                        "application_name", "PostgreSQL JDBC Driver")),
                Arguments.of("psql", pairs("user", "analyst", "database", "shop", "application_name", "psql",
                        "client_encoding", "UTF8")),
                Arguments.of("asyncpg", pairs("user", "analyst", "database", "shop", "client_encoding", "utf-8")),
                Arguments.of("node-postgres", pairs("user", "analyst", "database", "shop", "client_encoding",
                        "'utf-8'".replace("'", ""), "options", "-c search_path=public,shop")),
                Arguments.of("postgres.js", pairs("user", "analyst", "database", "shop", "client_encoding", "UTF8",
                        "DateStyle", "ISO, MDY", "application_name", "postgres.js", "search_path", "public")),
                Arguments.of("libpq with PGOPTIONS", pairs("user", "analyst", "database", "shop", "options",
                        "-c lock_timeout=5s --intervalstyle=iso_8601 -c TimeZone=UTC -c statement_timeout=500")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("driverPackets")
    void realDriversConnect(String driver, List<Map.Entry<String, String>> pairs) {
        ReadOnlyStartup.Accepted accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class,
                ReadOnlyStartup.decide(pairs, WITH_TIMEOUT), driver);
        assertEquals("UTF8", accepted.parameters().get("client_encoding"));
        assertEquals("on", accepted.parameters().get("default_transaction_read_only"));
        assertEquals("on", accepted.parameters().get("standard_conforming_strings"));
        assertNull(accepted.parameters().get("options"));
    }

    @Test
    void givesTheBackendCanonicalNamesThePolicysPinsAndNoOptions() {
        ReadOnlyStartup.Accepted accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class, ReadOnlyStartup.decide(
                pairs("user", "analyst", "options", "-c search_path=a --application-name=x", "DateStyle", "ISO",
                        "Application_Name", "y", "client_encoding", "unicode", "Default_Transaction_Read_Only", "yes",
                        "transaction_read_only", "on", "standard_conforming_strings", "true",
                        "statement_timeout", "250ms"), WITH_TIMEOUT));
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("search_path", "a");
        expected.put("datestyle", "ISO");
        expected.put("application_name", "y");
        expected.put("client_encoding", "UTF8");
        expected.put("standard_conforming_strings", "on");
        expected.put("default_transaction_read_only", "on");
        expected.put("statement_timeout", "250");
        assertEquals(expected, accepted.parameters());
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(accepted.parameters().keySet()));
        assertEquals(new PinnedSettings(250L, null), accepted.pins());
    }

    @Test
    void pinsTheLoginsTimeoutWhenTheClientGivesNone() {
        ReadOnlyStartup.Accepted accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class,
                ReadOnlyStartup.decide(pairs("user", "analyst"), WITH_TIMEOUT));
        assertEquals("1000", accepted.parameters().get("statement_timeout"));
        assertEquals(new PinnedSettings(1000L, null), accepted.pins());
    }

    @Test
    void leavesStatementTimeoutToTheClientWhenTheLoginHasNone() {
        ReadOnlyStartup.Accepted accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class,
                ReadOnlyStartup.decide(pairs("user", "analyst", "Statement_Timeout", "0"), ANALYST));
        assertEquals("0", accepted.parameters().get("statement_timeout"));
        assertEquals(new PinnedSettings(null, null), accepted.pins());
    }

    @Test
    void startsASelectionsSessionAtNoticeWhateverTheServerWouldSay() {
        ReadOnlyStartup.Accepted accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class,
                ReadOnlyStartup.decide(pairs("user", "analyst"), SELECTION));
        assertEquals("notice", accepted.parameters().get("client_min_messages"));
        assertEquals(new PinnedSettings(null, "notice"), accepted.pins());
    }

    @Test
    void pinsTheHigherLevelASelectionsClientAsksFor() {
        ReadOnlyStartup.Accepted accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class, ReadOnlyStartup.decide(
                pairs("options", "-c client_min_messages=error", "Client_Min_Messages", "WARNING"), SELECTION));
        assertEquals("warning", accepted.parameters().get("client_min_messages"));
        assertEquals(new PinnedSettings(null, "warning"), accepted.pins());
        assertEquals(1, accepted.parameters().keySet().stream().filter(k -> k.equals("client_min_messages")).count());
    }

    @Test
    void refusesALevelBelowNoticeAtStartupWithASelection() {
        ReadOnlyStartup.Refused refused = assertInstanceOf(ReadOnlyStartup.Refused.class,
                ReadOnlyStartup.decide(pairs("options", "--client-min-messages=log"), SELECTION));
        assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, refused.error().sqlState());
    }

    @Test
    void leavesTheLevelUnpinnedWithoutASelection() {
        ReadOnlyStartup.Accepted accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class,
                ReadOnlyStartup.decide(pairs("user", "analyst"), ANALYST));
        assertNull(accepted.parameters().get("client_min_messages"));
        assertNull(accepted.pins().clientMinMessages());
        accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class,
                ReadOnlyStartup.decide(pairs("client_min_messages", "WARNING"), ANALYST));
        assertEquals("WARNING", accepted.parameters().get("client_min_messages"));
        assertNull(accepted.pins().clientMinMessages());
        // As SET client_min_messages = log is allowed in such a session, so is the startup setting.
        accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class,
                ReadOnlyStartup.decide(pairs("options", "-c client_min_messages=log"), ANALYST));
        assertEquals("log", accepted.parameters().get("client_min_messages"));
    }

    @Test
    void readsEscapedBlanksAsPartOfTheValue() {
        ReadOnlyStartup.Accepted accepted = assertInstanceOf(ReadOnlyStartup.Accepted.class, ReadOnlyStartup.decide(
                pairs("options", "-c application_name=a\\ -c\\ statement_timeout=0"), WITH_TIMEOUT));
        assertEquals("a -c statement_timeout=0", accepted.parameters().get("application_name"));
        assertEquals("1000", accepted.parameters().get("statement_timeout"));
    }

    static Stream<Arguments> refusedPackets() {
        return Stream.of(
                refused(pairs("options", "-c client_encoding=SJIS"), SqlState.FEATURE_NOT_SUPPORTED,
                        "pgward does not accept client_encoding "
                        + "\"SJIS\" for the read-only login \"analyst\": statements in it cannot be checked reliably; "
                        + "use UTF8"),
                refused(pairs("options", "-cclient_encoding=SJIS"), SqlState.FEATURE_NOT_SUPPORTED,
                        "client_encoding \"SJIS\""),
                refused(pairs("options", "--client-encoding=SJIS"), SqlState.FEATURE_NOT_SUPPORTED,
                        "client_encoding \"SJIS\""),
                refused(pairs("CLIENT_ENCODING", "SJIS"), SqlState.FEATURE_NOT_SUPPORTED, "client_encoding \"SJIS\""),
                refused(pairs("Client_Encoding", "BIG5"), SqlState.FEATURE_NOT_SUPPORTED, "client_encoding \"BIG5\""),
                refused(pairs("client_encoding", "GB18030"), SqlState.FEATURE_NOT_SUPPORTED,
                        "client_encoding \"GB18030\""),
                refused(pairs("client_encoding", "LATIN1"), SqlState.FEATURE_NOT_SUPPORTED,
                        "client_encoding \"LATIN1\""),
                refused(pairs("client_encoding", "UTF8", "client_encoding", "SJIS"), SqlState.FEATURE_NOT_SUPPORTED,
                        "\"SJIS\""),
                refused(pairs("DEFAULT_TRANSACTION_READ_ONLY", "off"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "pgward does not accept the setting "
                        + "DEFAULT_TRANSACTION_READ_ONLY=off (startup packet) for the read-only login \"analyst\""),
                refused(pairs("Default_Transaction_Read_Only", "0"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "Default_Transaction_Read_Only=0"),
                refused(pairs("options", "-c default_transaction_read_only=off"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "default_transaction_read_only=off (options)"),
                refused(pairs("options", "--default-transaction-read-only=off"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "default_transaction_read_only=off (options)"),
                refused(pairs("transaction_read_only", "off"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "transaction_read_only=off"),
                refused(pairs("Statement_Timeout", "0"), SqlState.INSUFFICIENT_PRIVILEGE, "Statement_Timeout=0"),
                refused(pairs("statement_timeout", "2s"), SqlState.INSUFFICIENT_PRIVILEGE, "statement_timeout=2s"),
                refused(pairs("options", "-c statement_timeout=0"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "statement_timeout=0 (options)"),
                refused(pairs("options", "-c\\ statement_timeout=0"), SqlState.INSUFFICIENT_PRIVILEGE,
                        " statement_timeout=0 (options)"),
                refused(pairs("standard_conforming_strings", "off"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "standard_conforming_strings=off"),
                refused(pairs("role", "postgres"), SqlState.INSUFFICIENT_PRIVILEGE, "role=postgres"),
                refused(pairs("session_authorization", "postgres"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "session_authorization=postgres"),
                refused(pairs("work_mem", "1GB"), SqlState.INSUFFICIENT_PRIVILEGE, "work_mem=1GB"),
                refused(pairs("plpgsql.variable_conflict", "use_column"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "plpgsql.variable_conflict"),
                refused(pairs("Options", "-c a=1"), SqlState.INSUFFICIENT_PRIVILEGE, "Options=-c a=1"),
                refused(pairs("options", "-e"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "pgward does not accept \"-e\" in options for the read-only "
                        + "login \"analyst\": options may only hold settings (-c name=value or --name=value)"),
                refused(pairs("options", "-c statement_timeout"), SqlState.INSUFFICIENT_PRIVILEGE,
                        "\"-c statement_timeout\" in options"),
                refused(pairs("options", "shop"), SqlState.INSUFFICIENT_PRIVILEGE, "\"shop\" in options"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("refusedPackets")
    void refusesSettingsThePolicyOwnsOrDoesNotAllow(List<Map.Entry<String, String>> pairs, String sqlState,
                                                   String message) {
        ReadOnlyStartup.Refused refused = assertInstanceOf(ReadOnlyStartup.Refused.class,
                ReadOnlyStartup.decide(pairs, WITH_TIMEOUT), pairs.toString());
        assertEquals("FATAL", refused.error().severity());
        assertEquals(sqlState, refused.error().sqlState());
        if (!refused.error().message().contains(message)) {
            assertEquals(message, refused.error().message());
        }
    }

    private static Arguments refused(List<Map.Entry<String, String>> pairs, String sqlState, String message) {
        return Arguments.of(pairs, sqlState, message);
    }

    private static List<Map.Entry<String, String>> pairs(String... keysAndValues) {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            pairs.add(Map.entry(keysAndValues[i], keysAndValues[i + 1]));
        }
        return pairs;
    }
}
