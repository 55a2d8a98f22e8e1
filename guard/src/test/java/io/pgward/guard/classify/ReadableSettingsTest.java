package io.pgward.guard.classify;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.pgward.guard.SqlStates;
import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.lexer.StatementText;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reading a setting by name at L2: what SHOW may show, for every read-only login as SHOW is judged. */
class ReadableSettingsTest {

    private static final ReadOnlyClassifier CLASSIFIER = new ReadOnlyClassifier();
    private static final List<ReadOnlyPolicy.CatalogFunctions> EVERY_LOGIN = List.of(
            ReadOnlyPolicy.CatalogFunctions.DENIED, ReadOnlyPolicy.CatalogFunctions.GATED,
            ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED);

    @AfterAll
    static void close() {
        CLASSIFIER.close();
    }

    private static Verdict classify(String sql, ReadOnlyPolicy.CatalogFunctions mode) {
        List<StatementText> statements = assertDoesNotThrow(() -> SqlLexer.split(sql, true), sql);
        return CLASSIFIER.classify(statements.getFirst(), new ReadOnlyPolicy("analyst", null, mode));
    }

    private static Verdict.Refuse assertRefused(String sql, ReadOnlyPolicy.CatalogFunctions mode, String rule) {
        Verdict d = classify(sql, mode);
        Verdict.Refuse r = assertInstanceOf(Verdict.Refuse.class, d, () -> sql + " " + mode + " was allowed");
        assertEquals(rule, r.rule(), () -> sql + " " + mode + ": " + r.message());
        assertEquals(SqlStates.INSUFFICIENT_PRIVILEGE, r.sqlState());
        return r;
    }

    private static void assertAllowed(String sql, ReadOnlyPolicy.CatalogFunctions mode) {
        Verdict d = classify(sql, mode);
        assertInstanceOf(Verdict.Allow.class, d, () -> sql + " " + mode + ": " + d);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT current_setting('port')", "SELECT pg_catalog.current_setting('LISTEN_addresses')",
        "SELECT current_setting('ssl_key_file', true)", "SELECT pg_settings_get_flags('data_directory')",
        "SELECT \"current_setting\"(E'log_line_prefix')", "SELECT x FROM t WHERE current_setting('wal_level') = x"})
    void aHiddenSettingByNameGetsTheRefusalShowGets(String sql) {
        for (ReadOnlyPolicy.CatalogFunctions mode : EVERY_LOGIN) {
            assertRefused(sql, mode, Refusals.SESSION_SETTING);
        }
        assertRefused("SHOW port", ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED, Refusals.SESSION_SETTING);
    }

    @Test
    void namesTheCallAndPointsAtIt() {
        Verdict.Refuse r = assertRefused("SELECT 1, current_setting('port')", ReadOnlyPolicy.CatalogFunctions.GATED,
                Refusals.SESSION_SETTING);
        assertEquals("pgward refused this query: current_setting('port') is not allowed for the read-only login "
                + "\"analyst\"", r.message());
        assertEquals(11, r.position());
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT current_setting('server_version_num')", "SELECT current_setting('Search_Path')",
        "SELECT current_setting('application_name', true), pg_settings_get_flags('TimeZone')"})
    void aSettingShowShowsMayBeRead(String sql) {
        for (ReadOnlyPolicy.CatalogFunctions mode : EVERY_LOGIN) {
            assertAllowed(sql, mode);
        }
    }

    /** Only the catalog check behind a selection can prove such a name (a column of the filtered pg_settings). */
    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT current_setting(name) FROM unnest(array['port','listen_addresses']) name",
        "SELECT current_setting($1)", "SELECT current_setting('po' || 'rt')", "SELECT current_setting(('port'))",
        "SELECT current_setting('port'::text)", "SELECT s.name, pg_catalog.current_setting(s.name) FROM pg_settings s"})
    void aNameThatIsNoConstantIsLeftOnlyToTheCatalogCheck(String sql) {
        assertAllowed(sql, ReadOnlyPolicy.CatalogFunctions.GATED);
        assertRefused(sql, ReadOnlyPolicy.CatalogFunctions.DENIED, Refusals.SESSION_SETTING);
        Verdict.Refuse r = assertRefused(sql, ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED, Refusals.SESSION_SETTING);
        assertEquals("pgward refused this query: current_setting() of a name that is not a constant is not allowed "
                + "for the read-only login \"analyst\"", r.message());
    }

    /** As SHOW port and SHOW listen_addresses are. */
    @ParameterizedTest
    @ValueSource(strings = {"SELECT inet_server_addr()", "SELECT pg_catalog.inet_server_port()"})
    void theServersAddressIsRefusedToEveryLogin(String sql) {
        for (ReadOnlyPolicy.CatalogFunctions mode : EVERY_LOGIN) {
            assertRefused(sql, mode, Refusals.DENIED_FUNCTION);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT row_security_active('hr.salaries')", "SELECT row_security_active(16455::oid)",
        "SELECT pg_has_role('postgres', 'member')"})
    void lookupsOfAHiddenObjectAreGatedWithASelection(String sql) {
        assertRefused(sql, ReadOnlyPolicy.CatalogFunctions.DENIED, Refusals.DENIED_FUNCTION);
        assertAllowed(sql, ReadOnlyPolicy.CatalogFunctions.GATED);
        assertAllowed(sql, ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT pg_tablespace_databases(1663)", "SELECT makeaclitem(10, 10, 'SELECT', false)",
        "SELECT pg_stat_have_stats('relation', 0, 16455)", "SELECT fmgr_sql_validator(16500)",
        "SELECT pg_collation_actual_version(100)", "SELECT inet_client_port()"})
    void otherLookupsAreRefusedWithASelection(String sql) {
        assertRefused(sql, ReadOnlyPolicy.CatalogFunctions.GATED, Refusals.DENIED_FUNCTION);
        assertAllowed(sql, ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED);
    }
}
