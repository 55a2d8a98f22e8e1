package io.pgward.guard.lexer;

/**
 * Text PostgreSQL's scanner would reject (an unterminated string, comment or quoted identifier, an invalid
 * escape). The guard refuses such text rather than guess how the server would read it.
 */
public final class LexerException extends Exception {

    private final int position;

    public LexerException(String message, int position) {
        super(message);
        this.position = position;
    }

    /** 0-based offset in the input where the problem starts. */
    public int position() {
        return position;
    }
}
