package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@code $n} that no message gives a value, sent by the read-only login (every guard layer) and to PostgreSQL
 * directly, must get the same error. A simple Query carries no parameters, so PostgreSQL answers any {@code $n} in
 * it with 42P02 "there is no parameter $n" at its place, whatever its number; the catalog check once inferred
 * parameter types as for a Parse and answered 42P18, 54001 or a failed check instead. A Parse without types has
 * them inferred, and its errors are PostgreSQL's too.
 */
@PostgresTest
class ParameterNumbersIT {

    private static ProxyFixture proxy;
    private static TestDatabase database;

    @BeforeAll
    static void start(TestDatabase db) {
        database = db;
        proxy = ProxyFixture.start(db);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"select $70000", "select $65535", "select $65536::int", "select $3", "select $1",
            "select $0", "select $2147483647", "select 1 where $2 is null", "explain select $4",
            "select relname from pg_class where oid = $1", "select 1 from (select $5) s, (select $2) t"})
    void aSimpleQueryGetsPostgresqlsOwnErrorForAnyParameter(String sql) throws Exception {
        String direct = psqlError(Target.direct(database), sql);
        assertTrue(direct.startsWith("ERROR:  42P02: there is no parameter $"), direct);
        assertEquals(direct, psqlError(readOnly(), sql));
    }

    /** pgjdbc sends a Parse without parameter types and a Bind without values. */
    @ParameterizedTest
    @ValueSource(strings = {"select $0", "select $3", "select $2 is null"})
    void aParseGetsPostgresqlsOwnErrorForParametersItCannotHave(String sql) throws Exception {
        String direct = jdbcError(Target.direct(database), sql);
        assertEquals(direct, jdbcError(readOnly(), sql));
    }

    /**
     * A number beyond int32 is no parameter a Bind could fill: PostgreSQL 17 and older wrap it ($2147483648 is
     * "there is no parameter $-2147483648", $4294967297 "$1"), 18 refuses it as it scans. The login gets the very
     * same error for a Query and for a Parse, not a refusal of its own.
     */
    @ParameterizedTest
    @ValueSource(strings = {"select $2147483648", "select $4294967297", "select $99999999999999999999",
            "select 1 where $2147483648 is null", "select $0002147483648::int"})
    void aParameterNumberBeyondInt32GetsPostgresqlsOwnError(String sql) throws Exception {
        String direct = psqlError(Target.direct(database), sql);
        assertTrue(direct.startsWith("ERROR:  42P02: ") || direct.startsWith("ERROR:  42601: "), direct);
        assertEquals(direct, psqlError(readOnly(), sql));
        String directParse = jdbcError(Target.direct(database), sql);
        // $4294967297 is $1 to PostgreSQL 17, and its Parse fails on the Bind; see the test below.
        if (directParse.startsWith("42P02") || directParse.startsWith("42601")) {
            assertEquals(directParse, jdbcError(readOnly(), sql));
        }
    }

    /**
     * As PostgreSQL 17 and older read it, {@code $4294967297} in a Parse is {@code $1}, a parameter the Bind fills;
     * pgward does not follow that platform-dependent wrap and answers "there is no parameter $1" as for a Query.
     */
    @org.junit.jupiter.api.Test
    void aParseDoesNotBindAWrappedParameterNumber() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(database.serverMajor() < 18, "PostgreSQL 18 does not wrap");
        assertEquals("42P02: ERROR: there is no parameter $1\n  Position: 8",
                jdbcError(readOnly(), "select $4294967297::int"));
    }

    private static Target readOnly() {
        return new Target("pgward", "127.0.0.1", proxy.port(), database.name(), "analyst", ProxyFixture.PASSWORD);
    }

    /** psql's error in full (verbose: SQLSTATE, position), without the server's source location. */
    private static String psqlError(Target target, String sql) throws Exception {
        RealClients.Result result = RealClients.run(List.of(RealClients.require("psql").toString(), "-X",
                "-v", "VERBOSITY=verbose", "-d", target.uri() + "?sslmode=disable", "-c", sql));
        assertEquals(1, result.exit(), target + ": " + result.out() + result.err());
        return result.err().lines().filter(line -> !line.startsWith("LOCATION:"))
                .collect(Collectors.joining("\n"));
    }

    private static String jdbcError(Target target, String sql) throws SQLException {
        try (Connection c = target.connect(); Statement s = c.createStatement()) {
            s.executeQuery(sql).close();
            return "no error";
        } catch (SQLException e) {
            return e.getSQLState() + ": " + e.getMessage();
        }
    }
}
