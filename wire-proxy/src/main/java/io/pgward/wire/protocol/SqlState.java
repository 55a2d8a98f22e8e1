package io.pgward.wire.protocol;

/** The SQLSTATE codes pgward itself sends, named as in PostgreSQL's errcodes.txt. */
public final class SqlState {
    public static final String PROTOCOL_VIOLATION = "08P01";
    public static final String CONNECTION_FAILURE = "08006";
    public static final String SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION = "08001";
    public static final String INVALID_AUTHORIZATION_SPECIFICATION = "28000";
    public static final String INVALID_PASSWORD = "28P01";
    public static final String INSUFFICIENT_PRIVILEGE = "42501";
    public static final String INVALID_PARAMETER_VALUE = "22023";
    public static final String SYNTAX_ERROR = "42601";
    public static final String IN_FAILED_SQL_TRANSACTION = "25P02";
    public static final String FEATURE_NOT_SUPPORTED = "0A000";
    public static final String TOO_MANY_CONNECTIONS = "53300";
    public static final String QUERY_CANCELED = "57014";
    public static final String PROGRAM_LIMIT_EXCEEDED = "54000";
    public static final String OUT_OF_MEMORY = "53200";
    public static final String ADMIN_SHUTDOWN = "57P01";
    public static final String INTERNAL_ERROR = "XX000";
    public static final String CHARACTER_NOT_IN_REPERTOIRE = "22021";
    public static final String SUCCESSFUL_COMPLETION = "00000";
    public static final String INVALID_BINARY_REPRESENTATION = "22P03";
    public static final String INVALID_TEXT_REPRESENTATION = "22P02";
    public static final String DUPLICATE_PREPARED_STATEMENT = "42P05";
    public static final String INVALID_SQL_STATEMENT_NAME = "26000";
    public static final String DUPLICATE_CURSOR = "42P03";
    public static final String UNDEFINED_PARAMETER = "42P02";
    public static final String INVALID_CURSOR_NAME = "34000";

    private SqlState() {
    }
}
