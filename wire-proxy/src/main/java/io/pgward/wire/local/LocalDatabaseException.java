package io.pgward.wire.local;

/** A failure a {@link LocalDatabase} reports to the client as a PostgreSQL ERROR. */
public class LocalDatabaseException extends RuntimeException {

    private final String sqlState;
    private final String detail;
    private final String hint;
    /** For the audit log: {@code refuse} for a statement the policy refused, {@code error} otherwise. */
    private final String verdict;
    private final String rule;

    public LocalDatabaseException(String sqlState, String message, String detail, String hint, String verdict,
                                  String rule) {
        super(message);
        this.sqlState = sqlState;
        this.detail = detail;
        this.hint = hint;
        this.verdict = verdict;
        this.rule = rule;
    }

    public static LocalDatabaseException error(String sqlState, String message) {
        return new LocalDatabaseException(sqlState, message, null, null, "error", null);
    }

    public static LocalDatabaseException refusal(String sqlState, String message, String rule) {
        return new LocalDatabaseException(sqlState, message, null, null, "refuse", rule);
    }

    public String sqlState() {
        return sqlState;
    }

    public String detail() {
        return detail;
    }

    public String hint() {
        return hint;
    }

    public String verdict() {
        return verdict;
    }

    public String rule() {
        return rule;
    }
}
