package io.pgward.arango;

import com.arangodb.ArangoDBException;
import io.pgward.guard.SqlStates;

import java.util.Locale;
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
    /** What real servers answer to bad credentials, a missing grant, and a missing database for non-root users. */
    static final int FORBIDDEN = 11;
    static final int NOT_AUTHORIZED = 401;

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
            // document not found: never 02000, a completion class a client would take for success
            Map.entry(1202, "P0002"),                         // no_data_found
            Map.entry(1210, "23505"),                         // unique constraint violated
            Map.entry(1200, "40001"),                         // write-write conflict
            Map.entry(DATABASE_NOT_FOUND, "3D000"),           // database not found
            Map.entry(FORBIDDEN, "28000"),                    // forbidden: credentials or grant refused
            Map.entry(NOT_AUTHORIZED, "28000"),               // not authorized
            Map.entry(18, "55P03"),                           // lock timeout: lock_not_available
            Map.entry(21, "57014"),                           // request canceled: query_canceled
            Map.entry(29, "40P01"),                           // deadlock: deadlock_detected
            Map.entry(30, "57P01"),                           // shutting down: admin_shutdown
            Map.entry(1004, "25006"),                         // read-only: read_only_sql_transaction
            Map.entry(QUERY_KILLED, "57014"),                 // query_canceled: killed at maxRuntime
            Map.entry(RESOURCE_LIMIT, "53000"));              // insufficient_resources; 53200 when it is memory

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
            if (timedOut(e)) {
                // The driver's request timeout is the runtime limit plus a margin: the statement ran too long.
                return new AqlException(AqlException.Reason.RUNTIME_LIMIT, SqlStates.QUERY_CANCELED, 0, null,
                        "AQL query stopped: ArangoDB did not answer within the runtime limit of this database ("
                                + rootMessage(e) + ")", e);
            }
            return new AqlException(AqlException.Reason.UNREACHABLE, SqlStates.CONNECTION_FAILURE, 0, null,
                    "ArangoDB cannot be reached: " + rootMessage(e), e);
        }
        String arangoMessage = e.getErrorMessage() == null ? "" : e.getErrorMessage();
        boolean memory = errorNum == RESOURCE_LIMIT && arangoMessage.toLowerCase(Locale.ROOT).contains("memory");
        AqlException.Reason reason = switch (errorNum) {
            case QUERY_KILLED -> AqlException.Reason.RUNTIME_LIMIT;
            case RESOURCE_LIMIT -> memory ? AqlException.Reason.MEMORY_LIMIT : AqlException.Reason.SERVER_ERROR;
            case FORBIDDEN, NOT_AUTHORIZED -> AqlException.Reason.ACCESS;
            // An error number pgward does not know, answered with 401 or 403, is about the account.
            default -> !SQLSTATE_BY_ERROR_NUM.containsKey(errorNum) && e.getResponseCode() != null
                    && (e.getResponseCode() == 401 || e.getResponseCode() == 403)
                    ? AqlException.Reason.ACCESS : AqlException.Reason.SERVER_ERROR;
        };
        String sqlState = memory ? "53200" : SQLSTATE_BY_ERROR_NUM.getOrDefault(errorNum,
                reason == AqlException.Reason.ACCESS ? "28000" : SqlStates.INTERNAL_ERROR);
        String message = switch (reason) {
            case RUNTIME_LIMIT -> "AQL query stopped at the runtime limit of this database (ArangoDB error "
                    + errorNum + ": " + arangoMessage + ")";
            case MEMORY_LIMIT -> "AQL query stopped at the memory limit of this database (ArangoDB error "
                    + errorNum + ": " + arangoMessage + ")";
            case ACCESS -> "ArangoDB refused the credentials of this database or their grant (ArangoDB error "
                    + errorNum + ": " + arangoMessage + ")";
            default -> "ArangoDB error " + errorNum + ": " + arangoMessage;
        };
        return new AqlException(reason, sqlState, errorNum, arangoMessage, message, e);
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.util.concurrent.TimeoutException || t instanceof java.net.SocketTimeoutException
                    || t.getClass().getSimpleName().contains("Timeout")) {
                return true;
            }
        }
        return false;
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
