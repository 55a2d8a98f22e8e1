package io.pgward.wire.protocol;

import io.netty.buffer.ByteBuf;

/**
 * What the backend decoder hands on: either one message pgward inspects, or a run of consecutive messages it
 * only forwards (DataRow, RowDescription, CommandComplete, ...) as a single slice of the bytes that arrived.
 */
public sealed interface BackendMessage {

    ByteBuf bytes();

    /**
     * One inspected message, type and length included.
     *
     * @param type ReadyForQuery 'Z', ErrorResponse 'E', ParameterStatus 'S', BackendKeyData 'K',
     *             Authentication 'R', CommandComplete 'C', PortalSuspended 's', NegotiateProtocolVersion 'v',
     *             ParseComplete '1' or CloseComplete '3' (one that pgward's own Parse or Close caused is dropped)
     */
    record Frame(char type, ByteBuf bytes) implements BackendMessage {
        /** The message body after type and length. */
        public ByteBuf body() {
            return bytes.slice(bytes.readerIndex() + 5, bytes.readableBytes() - 5);
        }
    }

    /**
     * Consecutive forwarded-only messages.
     *
     * @param dataRows how many rows the run holds: DataRow messages, and CopyData, which the server sends one per
     *                 row in COPY TO STDOUT (for row caps)
     */
    record Run(ByteBuf bytes, int dataRows) implements BackendMessage {
    }

    static boolean inspected(char type) {
        return switch (type) {
            case 'Z', 'E', 'S', 'K', 'R', 'C', 's', 'v', '1', '3' -> true;
            default -> false;
        };
    }

    /** DataRow, or CopyData from the server: one row of a result. */
    static boolean isRow(char type) {
        return type == 'D' || type == 'd';
    }
}
