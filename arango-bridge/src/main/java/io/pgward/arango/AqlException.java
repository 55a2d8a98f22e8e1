package io.pgward.arango;

import io.pgward.guard.SqlStates;

/**
 * A statement that did not run to completion, carrying what the client's ErrorResponse needs: a SQLSTATE, a
 * message, and for errors ArangoDB reported its {@code errorNum} and message unchanged.
 *
 * <p>SQLSTATEs (see {@link ArangoErrors} for the full table): 42601 AQL parse errors, 42501 gate refusals,
 * 54000 row cap, 57014 runtime limit (the query was killed), 53200 memory limit, 42P01 unknown collection or view,
 * 08006 ArangoDB unreachable, 28000 credentials or grant refused, XX000 anything ArangoDB reports that has no
 * closer match.
 */
public final class AqlException extends RuntimeException {

    /** Why the statement failed; lets callers audit and test without parsing messages. */
    public enum Reason {
        /** ArangoDB rejected the statement (parse, bind, unknown name, runtime error); errorNum is set. */
        SERVER_ERROR,
        /** The read-only gate refused the plan. */
        REFUSED,
        /** The plan reads a collection or view outside the login's selection, or a system collection. */
        NOT_SELECTED,
        /** The result had more rows than the row cap. */
        ROW_CAP,
        /** ArangoDB killed the statement at the runtime limit. */
        RUNTIME_LIMIT,
        /** ArangoDB stopped the statement at the memory limit. */
        MEMORY_LIMIT,
        /** ArangoDB could not be reached, or answered in a way pgward cannot read. */
        UNREACHABLE,
        /**
         * ArangoDB refused pgward's credentials or their grant (errorNum 11 or 401): a matter for the security team,
         * never fed back to a model as if the query were wrong.
         */
        ACCESS
    }

    private final Reason reason;
    private final String sqlState;
    private final int errorNum;
    private final String arangoMessage;

    AqlException(Reason reason, String sqlState, int errorNum, String arangoMessage, String message,
                 Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.sqlState = sqlState;
        this.errorNum = errorNum;
        this.arangoMessage = arangoMessage;
    }

    static AqlException refused(String message) {
        return new AqlException(Reason.REFUSED, SqlStates.INSUFFICIENT_PRIVILEGE, 0, null, message, null);
    }

    static AqlException notSelected(String message) {
        return new AqlException(Reason.NOT_SELECTED, SqlStates.INSUFFICIENT_PRIVILEGE, 0, null, message, null);
    }

    static AqlException rowCap(int maxRows) {
        return new AqlException(Reason.ROW_CAP, SqlStates.PROGRAM_LIMIT_EXCEEDED, 0, null,
                "AQL result has more than " + maxRows + " rows, the row limit of this database; "
                        + "add a LIMIT or a FILTER to the query", null);
    }

    static AqlException unknownCollection(String name) {
        return new AqlException(Reason.SERVER_ERROR, SqlStates.UNDEFINED_TABLE,
                ArangoErrors.DATA_SOURCE_NOT_FOUND, null,
                "collection " + name + " does not exist", null);
    }

    public Reason reason() {
        return reason;
    }

    /** The five-character PostgreSQL error code for the client's ErrorResponse. */
    public String sqlState() {
        return sqlState;
    }

    /** ArangoDB's {@code errorNum}, or 0 when the error is pgward's own. */
    public int errorNum() {
        return errorNum;
    }

    /** ArangoDB's {@code errorMessage} as it sent it, or null when the error is pgward's own. */
    public String arangoMessage() {
        return arangoMessage;
    }
}
