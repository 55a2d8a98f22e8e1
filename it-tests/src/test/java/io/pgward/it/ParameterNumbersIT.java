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
