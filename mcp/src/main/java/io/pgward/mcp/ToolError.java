package io.pgward.mcp;

/** A call the tool answers with an error result ({@code isError: true}) carrying this text. */
final class ToolError extends RuntimeException {

    ToolError(String message) {
        super(message, null, false, false);
    }
}
