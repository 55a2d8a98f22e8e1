package io.pgward.arango;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArangoConfigTest {

    @Test
    void defaultsAreHttp1ThirtySecondsOneGibibyteAnd25000Rows() {
        ArangoConfig config = ArangoConfig.of("docs", "http://localhost", null, new ArangoAuth.UserPassword("", ""));

        assertEquals(DriverProtocol.HTTP1_JSON, config.protocol());
        assertEquals(Duration.ofSeconds(30), config.limits().maxRuntime());
        assertEquals(1L << 30, config.limits().memoryLimitBytes());
        assertEquals(25_000, config.limits().maxRows());
        assertEquals(8529, config.port());
        assertEquals("_system", config.database());
        assertEquals("root", ((ArangoAuth.UserPassword) config.auth()).user());
        assertFalse(config.tls());
    }

    @Test
    void secretsNeverReachToString() {
        ArangoConfig basic = ArangoConfig.of("docs", "http://localhost", "shop",
                new ArangoAuth.UserPassword("reader", "hunter2"));
        ArangoConfig token = basic.withAuth(new ArangoAuth.Token("eyJ.secret.jwt"));

        assertFalse(basic.toString().contains("hunter2"), basic.toString());
        assertTrue(basic.toString().contains("reader"));
        assertFalse(token.toString().contains("eyJ.secret.jwt"), token.toString());
    }

    @Test
    void eachInvalidValueIsReportedWithItsKey() {
        ArangoAuth auth = new ArangoAuth.UserPassword("u", "p");
        assertEquals("endpoint: must start with http:// or https://, was \"tcp://h:8529\"",
                assertThrows(IllegalArgumentException.class,
                        () -> ArangoConfig.of("docs", "tcp://h:8529", "shop", auth)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> ArangoConfig.of("docs", "http://root:pw@h:8529", "shop", auth)).getMessage()
                .startsWith("endpoint: only scheme, host and port"));
        assertFalse(assertThrows(IllegalArgumentException.class,
                () -> ArangoConfig.of("docs", "http://root:pw@h:8529", "shop", auth)).getMessage().contains("pw"));
        assertEquals("protocol: must be one of http1, http2, was \"vst\"",
                assertThrows(IllegalArgumentException.class, () -> DriverProtocol.fromKey("vst")).getMessage());
        assertEquals("limits.rows: must be a positive number, was 0",
                assertThrows(IllegalArgumentException.class, () -> AqlLimits.DEFAULTS.withMaxRows(0)).getMessage());
        assertEquals("token: must not be empty when auth is token",
                assertThrows(IllegalArgumentException.class, () -> new ArangoAuth.Token(" ")).getMessage());
        assertEquals("name: the pgward database name must not be empty",
                assertThrows(IllegalArgumentException.class, () -> ArangoConfig.of("", "http://h", "s", auth))
                        .getMessage());
    }
}
