package io.pgward.arango;

import com.arangodb.ArangoDBException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ArangoDB's errors as the client's SQLSTATE, with the error bodies ArangoDB sends. */
class ErrorMappingTest extends FakeBridgeTest {

    @ParameterizedTest(name = "errorNum {1} -> {3}")
    @CsvSource(delimiter = '|', value = {
            "401 | 11   | not authorized to execute this request                  | 28000 | ACCESS",
            "403 | 11   | forbidden                                               | 28000 | ACCESS",
            "404 | 1202 | document not found                                      | P0002 | SERVER_ERROR",
            "500 | 32   | resource limit exceeded: too many open cursors          | 53000 | SERVER_ERROR",
            "500 | 32   | query would use more memory than allowed (while allocating) | 53200 | MEMORY_LIMIT",
            "408 | 18   | timeout waiting to lock key                             | 55P03 | SERVER_ERROR",
            "409 | 29   | deadlock detected                                       | 40P01 | SERVER_ERROR",
            "403 | 1004 | collection is read-only                                 | 25006 | SERVER_ERROR",
            "410 | 21   | canceled request                                        | 57014 | SERVER_ERROR",
            "503 | 30   | shutdown in progress                                    | 57P01 | SERVER_ERROR"})
    void eachErrorGetsItsSqlState(int status, int errorNum, String message, String sqlState, String reason) {
        String aql = "INSERT {a: 1} INTO users";
        fake.cursorError(aql, status, errorNum, message);

        AqlException e = assertThrows(AqlException.class, () -> bridge.run(aql, ExecutionMode.RAW));

        assertEquals(sqlState, e.sqlState(), e.getMessage());
        assertEquals(AqlException.Reason.valueOf(reason), e.reason());
        assertEquals(errorNum, e.errorNum());
        assertTrue(!e.sqlState().startsWith("02"), "never a completion class");
    }

    @Test
    void aClientSideTimeoutIsQueryCanceledNotUnreachable() {
        AqlException e = ArangoErrors.translate(ArangoDBException.of(new TimeoutException("request timed out")));

        assertEquals("57014", e.sqlState());
        assertEquals(AqlException.Reason.RUNTIME_LIMIT, e.reason());
    }

    @Test
    void aRefusedConnectionIsStillUnreachable() {
        AqlException e = ArangoErrors.translate(ArangoDBException.of(new java.net.ConnectException("refused")));

        assertEquals("08006", e.sqlState());
        assertEquals(AqlException.Reason.UNREACHABLE, e.reason());
    }
}
