package io.pgward.arango;

import com.arangodb.ArangoDBException;
import io.pgward.guard.SqlStates;

import java.util.Map;

/**
 * Maps ArangoDB's errors to {@link AqlException}s with a PostgreSQL SQLSTATE. Error numbers are ArangoDB's
 * ({@code lib/Basics/errors.dat}); a number not listed keeps its message and gets XX000.
 */
final class ArangoErrors {

    static final int QUERY_KILLED = 1500;
    static final int QUERY_PARSE = 1501;
    static final int RESOURCE_LIMIT = 32;
    static final int DATABASE_NOT_FOUND = 1228;
    static final int DATA_SOURCE_NOT_FOUND = 1203;

    private static final Map<Integer, String> SQLSTATE_BY_ERROR_NUM = Map.ofEntries(
            Map.entry(QUERY_PARSE, "42601"),                  // syntax_error
            Map.entry(1502, "42601"),                         // query empty
            Map.entry(1504, "22003"),                         // number out of range
            Map.entry(1505, "22023"),                         // invalid geo value
            Map.entry(1510, "42602"),                         // variable name invalid
            Map.entry(1511, "42712"),                         // variable redeclared
            Map.entry(1512, "42703"),                         // variable name unknown
            Map.entry(1540, "42883"),                         // function name unknown
            Map.entry(1541, "42883"),                         // function argument number mismatch
            Map.entry(1542, "42804"),                         // function argument type mismatch
            Map.entry(1550, "42P02"),                         // bind parameters invalid
            Map.entry(1551, "42P02"),                         // bind parameter missing
            Map.entry(1552, "42P02"),                         // bind parameter undeclared
            Map.entry(1553, "42804"),                         // bind parameter type
            Map.entry(1562, "22012"),                         // division by zero
            Map.entry(1563, "22023"),                         // array expected
            Map.entry(DATA_SOURCE_NOT_FOUND, "42P01"),        // collection or view not found
            Map.entry(1202, "02000"),                         // document not found
            Map.entry(1210, "23505"),                         // unique constraint violated
            Map.entry(1200, "40001"),                         // write-write conflict
            Map.entry(DATABASE_NOT_FOUND, "3D000"),           // database not found
            Map.entry(11, "42501"),                           // forbidden
            Map.entry(401, "28000"),                          // not authorized
            Map.entry(QUERY_KILLED, "57014"),                 // query_canceled: killed at maxRuntime
            Map.entry(RESOURCE_LIMIT, "53200"));              // out_of_memory: memoryLimit reached

    private ArangoErrors() {
    }

    static AqlException translate(ArangoDBException e) {
        Integer errorNum = e.getErrorNum();
        if (errorNum == null) {
            if (e.getResponseCode() != null) {
                return new AqlException(AqlException.Reason.UNREACHABLE, SqlStates.CONNECTION_FAILURE, 0, null,
                        "ArangoDB answered HTTP " + e.getResponseCode() + " without an error body: "
                                + e.getMessage(), e);
            }
            return new AqlException(AqlException.Reason.UNREACHABLE, SqlStates.CONNECTION_FAILURE, 0, null,
                    "ArangoDB cannot be reached: " + rootMessage(e), e);
        }
        String arangoMessage = e.getErrorMessage() == null ? "" : e.getErrorMessage();
        AqlException.Reason reason = switch (errorNum) {
            case QUERY_KILLED -> AqlException.Reason.RUNTIME_LIMIT;
            case RESOURCE_LIMIT -> AqlException.Reason.MEMORY_LIMIT;
            default -> AqlException.Reason.SERVER_ERROR;
        };
        String sqlState = SQLSTATE_BY_ERROR_NUM.getOrDefault(errorNum, e.getResponseCode() != null
                && e.getResponseCode() == 403 ? SqlStates.INSUFFICIENT_PRIVILEGE : SqlStates.INTERNAL_ERROR);
        String message = switch (reason) {
            case RUNTIME_LIMIT -> "AQL query stopped at the runtime limit of this database (ArangoDB error "
                    + errorNum + ": " + arangoMessage + ")";
            case MEMORY_LIMIT -> "AQL query stopped at the memory limit of this database (ArangoDB error "
                    + errorNum + ": " + arangoMessage + ")";
            default -> "ArangoDB error " + errorNum + ": " + arangoMessage;
        };
        return new AqlException(reason, sqlState, errorNum, arangoMessage, message, e);
    }

    static String sqlStateFor(int errorNum) {
        return SQLSTATE_BY_ERROR_NUM.getOrDefault(errorNum, SqlStates.INTERNAL_ERROR);
    }

    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
