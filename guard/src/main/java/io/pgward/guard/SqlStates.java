package io.pgward.guard;

/**
 * Every SQLSTATE the guard refuses with or reads from PostgreSQL, and those the ArangoDB bridge answers with outside
 * its table of ArangoDB error numbers ({@code ArangoErrors}), named as in PostgreSQL's errcodes.txt. The guard's
 * refusals ({@code Refusals}, {@code CatalogRefusals}) and other names ({@code ColumnHints.UNDEFINED_COLUMN}) refer to
 * these. The proxy's own codes are in {@code io.pgward.wire.protocol.SqlState}.
 */
public final class SqlStates {
    /** How a standby refuses BEGIN READ WRITE: the catalog check keeps that connection to ask why. */
    public static final String FEATURE_NOT_SUPPORTED = "0A000";
    /** connection_failure: the ArangoDB bridge cannot reach ArangoDB. */
    public static final String CONNECTION_FAILURE = "08006";
    /** read_only_sql_transaction: how a standby refuses the check's read-write transaction. */
    public static final String READ_ONLY_SQL_TRANSACTION = "25006";
    /** in_failed_sql_transaction: what PostgreSQL answers a statement in an aborted transaction block. */
    public static final String IN_FAILED_SQL_TRANSACTION = "25P02";
    /** What PostgreSQL reports for a statement the role may not run; most refusals of the guard. */
    public static final String INSUFFICIENT_PRIVILEGE = "42501";
    public static final String SYNTAX_ERROR = "42601";
    public static final String UNDEFINED_TABLE = "42P01";
    public static final String AMBIGUOUS_ALIAS = "42P09";
    public static final String UNDEFINED_COLUMN = "42703";
    public static final String AMBIGUOUS_COLUMN = "42702";
    /** What PostgreSQL reports when a statement exceeds its own limits (max_stack_depth). */
    public static final String STATEMENT_TOO_COMPLEX = "54001";
    /** program_limit_exceeded: an AQL result beyond the bridge's row cap, as the proxy answers for SQL. */
    public static final String PROGRAM_LIMIT_EXCEEDED = "54000";
    /** The check's own statement_timeout cancelled PostgreSQL's analysis. */
    public static final String QUERY_CANCELED = "57014";
    /** The guard could not decide, so it refuses (fail closed). */
    public static final String INTERNAL_ERROR = "XX000";

    private SqlStates() {
    }
}
