package io.pgward.wire.protocol;

import java.util.Map;

/**
 * What a client sends before it is authenticated: {@code int32 len | int32 code | ...}, no type byte.
 */
public sealed interface StartupPacket {

    int SSL_REQUEST_CODE = 80877103;
    int GSSENC_REQUEST_CODE = 80877104;
    int CANCEL_REQUEST_CODE = 80877102;
    int PROTOCOL_3_0 = 196608;

    /** Wire: {@code int32 8 | int32 80877103}. Answered with one byte, 'S' or 'N'. */
    record SslRequest() implements StartupPacket {
    }

    /** Wire: {@code int32 8 | int32 80877104}. pgward answers 'N': it offers no GSSAPI encryption. */
    record GssEncRequest() implements StartupPacket {
    }

    /** Wire: {@code int32 16 | int32 80877102 | int32 pid | int32 secret}. */
    record CancelRequest(int processId, int secretKey) implements StartupPacket {
    }

    /**
     * Wire: {@code int32 len | int32 version | (cstring name, cstring value)* | 0}.
     *
     * @param parameters in the order the client sent them
     */
    record StartupMessage(int version, Map<String, String> parameters) implements StartupPacket {
        public int major() {
            return version >>> 16;
        }

        public int minor() {
            return version & 0xffff;
        }
    }
}
