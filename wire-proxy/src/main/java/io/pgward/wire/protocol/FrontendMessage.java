package io.pgward.wire.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;

/**
 * A message from the client after startup: {@code byte type | int32 len | body}. Each record keeps the frame
 * exactly as it arrived ({@link #frame()}, type and length included) so that allowed messages are forwarded
 * as the same bytes; only the fields pgward inspects are decoded. The holder owns one reference to the frame.
 */
public sealed interface FrontendMessage extends ReferenceCounted {

    ByteBuf frame();

    @Override
    default int refCnt() {
        return frame().refCnt();
    }

    @Override
    default FrontendMessage retain() {
        frame().retain();
        return this;
    }

    @Override
    default FrontendMessage retain(int increment) {
        frame().retain(increment);
        return this;
    }

    @Override
    default FrontendMessage touch() {
        frame().touch();
        return this;
    }

    @Override
    default FrontendMessage touch(Object hint) {
        frame().touch(hint);
        return this;
    }

    @Override
    default boolean release() {
        return frame().release();
    }

    @Override
    default boolean release(int decrement) {
        return frame().release(decrement);
    }

    /** Simple query. Wire: {@code 'Q' | int32 len | cstring sql}. */
    record Query(String sql, ByteBuf frame) implements FrontendMessage {
    }

    /** Wire: {@code 'P' | int32 len | cstring name | cstring sql | int16 n | int32 oid * n}. */
    record Parse(String statement, String sql, int[] parameterTypes, ByteBuf frame) implements FrontendMessage {
    }

    /** Wire: {@code 'B' | int32 len | cstring portal | cstring statement | formats, values, result formats}. */
    record Bind(String portal, String statement, ByteBuf frame) implements FrontendMessage {
    }

    /** Wire: {@code 'D' | int32 len | byte 'S'/'P' | cstring name}. */
    record Describe(char kind, String name, ByteBuf frame) implements FrontendMessage {
    }

    /** Wire: {@code 'E' | int32 len | cstring portal | int32 maxRows}. */
    record Execute(String portal, int maxRows, ByteBuf frame) implements FrontendMessage {
    }

    /** Wire: {@code 'C' | int32 len | byte 'S'/'P' | cstring name}. */
    record Close(char kind, String name, ByteBuf frame) implements FrontendMessage {
    }

    /** Wire: {@code 'S' | int32 4}. */
    record Sync(ByteBuf frame) implements FrontendMessage {
    }

    /** Wire: {@code 'H' | int32 4}. */
    record Flush(ByteBuf frame) implements FrontendMessage {
    }

    /** Wire: {@code 'X' | int32 4}. */
    record Terminate(ByteBuf frame) implements FrontendMessage {
    }

    /** The fast-path function call. Wire: {@code 'F' | int32 len | int32 function oid | arguments}. */
    record FunctionCall(int functionOid, ByteBuf frame) implements FrontendMessage {
    }

    /**
     * PasswordMessage, SASLInitialResponse or SASLResponse: all are {@code 'p' | int32 len | body}, told apart
     * by the authentication step. {@link #body()} is the part after the length.
     */
    record AuthenticationResponse(ByteBuf frame) implements FrontendMessage {
        public ByteBuf body() {
            return frame.slice(5, frame.readableBytes() - 5);
        }
    }

    /** CopyData, CopyDone, CopyFail: forwarded untouched. */
    record Copy(char type, ByteBuf frame) implements FrontendMessage {
    }

    /**
     * A Query, Parse, Bind, Describe, Execute, Close or FunctionCall whose type and length are valid but whose body
     * does not read as the type's layout ({@link MalformedMessage}). Never forwarded: PostgreSQL's ERROR 08P01 with
     * {@code error} as its text answers it, and the session goes on.
     */
    record Malformed(char type, String error, ByteBuf frame) implements FrontendMessage {

        /** A malformed Query or FunctionCall ends its request with ReadyForQuery, as a well-formed one does. */
        public boolean endsRequest() {
            return type == 'Q' || type == 'F';
        }
    }
}
