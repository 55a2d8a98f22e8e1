package io.pgward.nl;

import java.util.Objects;

/**
 * A natural-language entry point could not give an answer. The proxy sends {@link #getMessage()} to the client
 * as an ErrorResponse with {@link #sqlState()}.
 */
public final class NlException extends Exception {

    /** No LLM provider configured: feature_not_supported. */
    public static final String NOT_CONFIGURED = "0A000";
    /** Bad argument to a pgward.* function: invalid_parameter_value. */
    public static final String INVALID_PARAMETER = "22023";
    /** No attempt produced a statement that passed the guard and EXPLAIN, or the model failed: the generic one. */
    public static final String NO_VALID_SQL = "XX000";
    /** The catalog could not be read. */
    public static final String SCHEMA_UNAVAILABLE = "58000";
    /** Unknown relation in pgward.schema(name): undefined_table. */
    public static final String UNDEFINED_TABLE = "42P01";

    private final String sqlState;

    public NlException(String sqlState, String message) {
        super(message);
        this.sqlState = Objects.requireNonNull(sqlState, "sqlState");
    }

    public NlException(String sqlState, String message, Throwable cause) {
        super(message, cause);
        this.sqlState = Objects.requireNonNull(sqlState, "sqlState");
    }

    public String sqlState() {
        return sqlState;
    }
}
