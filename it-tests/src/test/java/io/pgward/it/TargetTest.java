package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.junit.jupiter.api.Test;

class TargetTest {

    private final Target target = new Target("postgres", "127.0.0.1", 5432, "shop db", "ana lyst", "s3/cr@t");

    @Test
    void uriEncodesEveryPart() {
        assertEquals("postgresql://ana%20lyst:s3%2Fcr%40t@127.0.0.1:5432/shop%20db", target.uri());
    }

    @Test
    void neverPrintsThePassword() {
        assertFalse(target.toString().contains("s3/cr@t"), target.toString());
        assertFalse(target.named("pgward").toString().contains("s3/cr@t"));
        assertEquals(List.of("psql", "postgresql://ana%20lyst:***@127.0.0.1:5432/shop%20db", "-c", "select 1"),
                RealClients.redacted(List.of("psql", target.uri(), "-c", "select 1")));
    }
}
