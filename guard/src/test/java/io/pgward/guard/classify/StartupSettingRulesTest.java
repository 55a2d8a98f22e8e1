package io.pgward.guard.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.pgward.guard.Verdict;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Startup settings are judged by the SET rules: the same allow-list, the same value checks. */
class StartupSettingRulesTest {

    private static final ReadOnlyPolicy POLICY = new ReadOnlyPolicy("analyst", Duration.ofSeconds(1));

    @ParameterizedTest(name = "{0}={1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            "application_name|psql|allow",
            "DateStyle|ISO, MDY|allow",
            "TimeZone|Europe/Berlin|allow",
            "extra_float_digits|3|allow",
            "search_path|\"$user\", public|allow",
            "IntervalStyle|iso_8601|allow",
            "lock_timeout|5s|allow",
            "client_encoding|UTF8|allow",
            "CLIENT_ENCODING|utf-8|allow",
            "client_encoding|SJIS|refuse: SET client_encoding to anything but UTF8",
            "default_transaction_read_only|on|allow",
            "DEFAULT_TRANSACTION_READ_ONLY|off|refuse: SET default_transaction_read_only to off",
            "Default_Transaction_Read_Only|0|refuse: SET default_transaction_read_only to 0",
            "transaction_read_only|off|refuse: SET transaction_read_only to off",
            "statement_timeout|500ms|allow",
            "Statement_Timeout|0|refuse: SET statement_timeout to 0 (no limit)",
            "statement_timeout|2s|refuse: SET statement_timeout above the login's limit of 1s",
            "standard_conforming_strings|on|allow",
            "standard_conforming_strings|off|refuse: SET standard_conforming_strings to anything but on",
            "client_min_messages|warning|allow",
            "client_min_messages|LOG|refuse: SET client_min_messages below NOTICE with a table selection",
            "role|postgres|refuse: SET role",
            "session_authorization|postgres|refuse: SET session_authorization",
            "work_mem|1GB|refuse: SET work_mem",
            "Statement_\u212Aimeout|0|refuse: SET statement_\u212Aimeout"})
    void judgesAsTheEquivalentSet(String name, String value, String expected) {
        Verdict decision = StartupSettingRules.judge(name, value, POLICY);
        if (expected.equals("allow")) {
            assertEquals(Verdict.ALLOW, decision);
        } else {
            Verdict.Refuse refuse = assertInstanceOf(Verdict.Refuse.class, decision);
            assertEquals("pgward refused this query: " + expected.substring("refuse: ".length())
                    + " is not allowed for the read-only login \"analyst\"", refuse.message());
        }
    }
}
