package io.pgward.guard.lexer;

/**
 * Text PostgreSQL's scanner would reject (an unterminated string, comment or quoted identifier, an invalid
 * escape), or text it would take too long to scan ({@link TooComplex}). The guard refuses such text rather than
 * guess how the server would read it.
 */
public sealed class LexerException extends Exception {

    private final int position;

    public LexerException(String message, int position) {
        super(message);
        this.position = position;
    }

    /** 0-based offset in the input where the problem starts. */
    public int position() {
        return position;
    }

    /**
     * Text PostgreSQL's scanner would accept, but only after reading it over and over ({@link OperatorRunReads}):
     * refused as too complex (SQLSTATE 54001), never shown to PostgreSQL, not even to have its grammar's error.
     */
    public static final class TooComplex extends LexerException {

        TooComplex(String message, int position) {
            super(message, position);
        }
    }
}
