package io.pgward.arango;

import com.arangodb.Protocol;

/**
 * The driver's wire protocol. JSON bodies only: VelocyPack needs a serde module pgward does not ship. HTTP/1.1 is
 * the default because it passes through every proxy and load balancer; HTTP/2 (cleartext with prior knowledge,
 * or ALPN over TLS) multiplexes requests on fewer connections.
 */
public enum DriverProtocol {
    HTTP1_JSON("http1", Protocol.HTTP_JSON),
    HTTP2_JSON("http2", Protocol.HTTP2_JSON);

    private final String key;
    private final Protocol driverProtocol;

    DriverProtocol(String key, Protocol driverProtocol) {
        this.key = key;
        this.driverProtocol = driverProtocol;
    }

    /** The value written in the configuration file. */
    public String key() {
        return key;
    }

    Protocol driverProtocol() {
        return driverProtocol;
    }

    public static DriverProtocol fromKey(String key) {
        for (DriverProtocol p : values()) {
            if (p.key.equalsIgnoreCase(key)) {
                return p;
            }
        }
        throw new IllegalArgumentException("protocol: must be one of http1, http2, was \"" + key + "\"");
    }
}
