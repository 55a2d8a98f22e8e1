package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * What the drivers' own test suites check about the connection itself, on PostgreSQL and through pgward's
 * read-write login: the process id a driver is told (BackendKeyData) is its backend's, so it matches
 * {@code pg_backend_pid()}, {@code pg_stat_activity}, the pid in a notification and what
 * {@code pg_terminate_backend} takes; a statement may carry up to 65,535 parameters; a Terminate sent before
 * the startup packet gets no answer. The scenarios are in {@code it-tests/clients} ({@code *-fidelity-*}).
 */
@PostgresTest
@ExtendWith(Targets.StopAfterClass.class)
class DriverFidelityIT {

    static final ClientScript NODE_POSTGRES = ClientScript.node("node-postgres", "pg-fidelity-scenarios.mjs",
            "backendPid", "quickDisconnect");
    static final ClientScript POSTGRES_JS = ClientScript.node("postgres.js", "postgresjs-fidelity-scenarios.mjs",
            "listenReconnects", "manyParameters");
    static final ClientScript PSYCOPG = ClientScript.python("psycopg", "psycopg_fidelity_scenarios.py",
            "psycopg", "python3-psycopg", "backendPid", "terminateByPid", "manyParameters", "preparedParameterTypes");

    private final TestDatabase database;

    DriverFidelityIT(TestDatabase database) {
        this.database = database;
    }

    @Test
    void nodePostgresIsToldItsBackendsPid() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("pids", json("""
                {"toldIsPgBackendPid": true, "inPgStatActivity": 1, "notificationPidIsNotifiers": true,
                 "listenerAndNotifierDiffer": true}
                """), NODE_POSTGRES.output("backendPid", target)));
    }

    @Test
    void nodePostgresConnectAndEndBackToBackHearsNothing() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("quick disconnect",
                json("{\"heard\": [], \"afterwards\": 1}"), NODE_POSTGRES.output("quickDisconnect", target)));
    }

    @Test
    void postgresJsListensAgainAfterItsListenerIsTerminatedByThePidItWasTold() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("listen reconnects",
                json("{\"terminated\": true, \"payloads\": [\"a\", \"b\"]}"),
                POSTGRES_JS.output("listenReconnects", target)));
    }

    @Test
    void postgresJsSendsMoreThan32767Parameters() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("many parameters", json("""
                {"32767": {"n": 32767, "total": "536854528"}, "32768": {"n": 32768, "total": "536887296"},
                 "50000": {"n": 50000, "total": "1250025000"}, "65533": {"n": 65533, "total": "2147319811"},
                 "tooMany": {"code": "MAX_PARAMETERS_EXCEEDED",
                             "message": "MAX_PARAMETERS_EXCEEDED: Max number of parameters (65534) exceeded"},
                 "afterwards": 1}
                """), POSTGRES_JS.output("manyParameters", target)));
    }

    @Test
    void psycopgIsToldItsBackendsPid() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("pids", json("""
                {"toldIsPgBackendPid": true, "inPgStatActivity": 1, "notifications": 1,
                 "notificationPidIsNotifiers": true}
                """), PSYCOPG.output("backendPid", target)));
    }

    @Test
    void psycopgTerminatesABackendByThePidItWasTold() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("terminate", json("""
                {"terminated": true, "victim": {"class": "OperationalError", "sqlstate": null},
                 "victimClosed": true, "killerUsable": 1}
                """), PSYCOPG.output("terminateByPid", target)));
    }

    @Test
    void psycopgSends65535ParametersAndGetsPostgresqlsErrorForMore() throws Exception {
        Targets.forEach(database, target -> SameOutput.assertSameJson("many parameters", json("""
                {"32767": {"n": 32767, "total": "536854528"}, "32768": {"n": 32768, "total": "536887296"},
                 "50000": {"n": 50000, "total": "1250025000"}, "65535": {"n": 65535, "total": "2147450880"},
                 "sixtyFiveThousandFiveHundredThirtySixth": {"class": "ProtocolViolation", "sqlstate": "08P01",
                   "severity": "ERROR",
                   "message": "bind message supplies 65535 parameters, but prepared statement \\"\\" requires 65536"},
                 "tooMany": {"class": "OperationalError", "sqlstate": null,
                   "message": "sending query and params failed: number of parameters must be between 0 and 65535"},
                 "afterwards": 1}
                """), PSYCOPG.output("manyParameters", target)));
    }

    @Test
    void aParseWith65535ParameterTypesIsPreparedAndBoundAlsoForTheReadOnlyLogin() throws Exception {
        Target pgward = Targets.pgward(database);
        Target readOnly = new Target("pgward read-only", pgward.host(), pgward.port(), pgward.database(), "analyst",
                ProxyFixture.PASSWORD);
        JsonNode expected = json("""
                {"32768": {"prepared": true, "error": null, "row": ["1", "32768"]},
                 "65535": {"prepared": true, "error": null, "row": ["1", "65535"]}, "afterwards": 1}
                """);
        Targets.forEach(database, target -> SameOutput.assertSameJson("parameter types", expected,
                PSYCOPG.output("preparedParameterTypes", target)));
        // The guard judges the statement with all 65,535 types, within its bounds.
        SameOutput.assertSameJson("[pgward read-only] parameter types", expected,
                PSYCOPG.output("preparedParameterTypes", readOnly));
    }

    @Test
    void pgjdbcIsToldItsBackendsPid() throws Exception {
        Targets.forEach(database, target -> {
            try (Connection listener = target.connect(); Connection notifier = target.connect();
                 Statement listening = listener.createStatement(); Statement notifying = notifier.createStatement()) {
                int told = notifier.unwrap(PGConnection.class).getBackendPID();
                assertEquals(told, intOf(notifying, "SELECT pg_backend_pid()"));
                assertEquals(1, intOf(listening, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + told));
                listening.execute("LISTEN pgward_jdbc_pids");
                notifying.execute("NOTIFY pgward_jdbc_pids, 'from the notifier'");
                PGNotification[] notes = listener.unwrap(PGConnection.class).getNotifications(10_000);
                assertNotNull(notes, "no notification within 10 s");
                assertEquals(told, notes[0].getPID(), "the notifier's pid, as the notifier was told it");
                listening.execute("UNLISTEN *");
            }
        });
    }

    @Test
    void pgjdbcTerminatesABackendByThePidItWasTold() throws Exception {
        Map<String, String> outcomes = new LinkedHashMap<>();
        Targets.forEach(database, target -> {
            try (Connection killer = target.connect(); Connection victim = target.connect();
                 Statement killing = killer.createStatement()) {
                int pid = victim.unwrap(PGConnection.class).getBackendPID();
                try (ResultSet rs = killing.executeQuery("SELECT pg_terminate_backend(" + pid + ", 10000)")) {
                    assertTrue(rs.next() && rs.getBoolean(1), "pg_terminate_backend(" + pid + ")");
                }
                SQLException e = assertThrows(SQLException.class, () -> intOf(victim.createStatement(), "SELECT 1"));
                outcomes.put(target.name(), e.getSQLState());
                assertTrue(victim.isClosed() || !victim.isValid(1));
                assertEquals(1, intOf(killing, "SELECT 1"));
            }
        });
        assertEquals(1, outcomes.values().stream().distinct().count(), "the victim sees the same on each: " + outcomes);
    }

    @Test
    void pgjdbcSends65535Parameters() throws Exception {
        Map<String, String> tooMany = new LinkedHashMap<>();
        Targets.forEach(database, target -> {
            try (Connection c = target.connect()) {
                assertEquals("65535 2147450880", sumOf(c, 65_535));
                assertEquals("32768 536887296", sumOf(c, 32_768));
                SQLException e = assertThrows(SQLException.class, () -> sumOf(c, 65_536));
                tooMany.put(target.name(), e.getSQLState() + " " + e.getMessage());
                assertTrue(c.isValid(2));
            }
        });
        assertEquals(1, tooMany.values().stream().distinct().count(), "pgjdbc's own error on each: " + tooMany);
    }

    @Test
    void everyScenarioPrintsTheSameOutputOnEveryTarget() throws Exception {
        Target reference = Targets.reference(database);
        for (Target other : Targets.comparedWithReference(database)) {
            for (ClientScript script : new ClientScript[] {NODE_POSTGRES, POSTGRES_JS, PSYCOPG}) {
                SameOutput.assertSameOutputs(script, reference, other);
            }
        }
    }

    /** A VALUES list of count parameters, summed by the server: "count sum". */
    private static String sumOf(Connection c, int count) throws SQLException {
        String rows = String.join(", ", Collections.nCopies(count, "(?::int)"));
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT count(*), sum(x)::text FROM (VALUES " + rows + ") v(x)")) {
            for (int i = 1; i <= count; i++) {
                ps.setInt(i, i);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) + " " + rs.getString(2);
            }
        }
    }

    private static int intOf(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static JsonNode json(String text) throws Exception {
        return ClientScript.JSON.readTree(text);
    }
}
