package io.pgward.arango;

import com.arangodb.ArangoDB;

/**
 * Builds the driver from a configuration. The request timeout is the runtime limit plus a margin, so a slow
 * statement ends with ArangoDB's own "query killed" error rather than a client-side timeout.
 */
final class DriverFactory {

    private static final int TIMEOUT_MARGIN_MILLIS = 15_000;

    private DriverFactory() {
    }

    static ArangoDB build(ArangoConfig config) {
        ArangoDB.Builder builder = new ArangoDB.Builder()
                .host(config.host(), config.port())
                .protocol(config.protocol().driverProtocol())
                .useSsl(config.tls())
                .timeout(Math.toIntExact(Math.min(Integer.MAX_VALUE,
                        config.limits().maxRuntime().toMillis() + TIMEOUT_MARGIN_MILLIS)));
        switch (config.auth()) {
            case ArangoAuth.UserPassword p -> builder.user(p.user()).password(p.password());
            case ArangoAuth.Token t -> builder.jwt(t.jwt());
        }
        return builder.build();
    }
}
