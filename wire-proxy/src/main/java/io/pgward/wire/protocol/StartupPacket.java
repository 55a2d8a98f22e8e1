package io.pgward.wire.protocol;

import java.util.LinkedHashMap;
import java.util.List;
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
     * @param parameters by name, the last value of a name sent twice, in the order the names first came
     * @param pairs every pair exactly as sent, repeats included: PostgreSQL applies them in this order, so a
     *              setting sent twice (or under two spellings) takes the value of the last one
     */
    record StartupMessage(int version, Map<String, String> parameters, List<Map.Entry<String, String>> pairs)
            implements StartupPacket {

        public StartupMessage {
            parameters = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
            pairs = List.copyOf(pairs);
        }

        /** A message without repeated names. */
        public StartupMessage(int version, Map<String, String> parameters) {
            this(version, parameters, parameters.entrySet().stream().map(e -> Map.entry(e.getKey(), e.getValue()))
                    .toList());
        }

        public int major() {
            return version >>> 16;
        }

        public int minor() {
            return version & 0xffff;
        }
    }
}
