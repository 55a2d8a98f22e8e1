package io.pgward.mcp;

/** A call the tool answers with an error result ({@code isError: true}) carrying this text. */
final class ToolError extends RuntimeException {

    private final boolean quotesDatabase;

    ToolError(String message) {
        this(message, false);
    }

    private ToolError(String message, boolean quotesDatabase) {
        super(message, null, false, false);
        this.quotesDatabase = quotesDatabase;
    }

    /** PostgreSQL's or pgward's error for a statement: it may quote values and names from the database. */
    static ToolError fromDatabase(String message) {
        return new ToolError(message, true);
    }

    boolean quotesDatabase() {
        return quotesDatabase;
    }
}
