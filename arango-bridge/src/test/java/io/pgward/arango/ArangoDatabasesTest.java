package io.pgward.arango;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArangoDatabasesTest {

    @Test
    void bridgesAreFoundByTheirPgwardDatabaseName() {
        try (FakeArango one = FakeArango.start(); FakeArango two = FakeArango.start();
             ArangoDatabases databases = ArangoDatabases.start(List.of(
                     ArangoConfig.of("docs", one.endpoint(), "shop", new ArangoAuth.UserPassword("", "")),
                     ArangoConfig.of("graphs", two.endpoint(), "_system", new ArangoAuth.UserPassword("", ""))))) {
            assertEquals("shop", databases.get("docs").orElseThrow().config().database());
            assertEquals("_system", databases.get("graphs").orElseThrow().serverInfo().database());
            assertEquals(Optional.empty(), databases.get("postgres"));
            assertEquals(2, databases.all().size());
        }
    }

    @Test
    void theFirstFailingEntryStopsTheStart() {
        try (FakeArango good = FakeArango.start(); FakeArango missing = FakeArango.start().withoutDatabase("shop")) {
            ArangoStartupException e = assertThrows(ArangoStartupException.class, () -> ArangoDatabases.start(List.of(
                    ArangoConfig.of("docs", good.endpoint(), "shop", new ArangoAuth.UserPassword("", "")),
                    ArangoConfig.of("more", missing.endpoint(), "shop", new ArangoAuth.UserPassword("", "")))));

            assertTrue(e.getMessage().startsWith("arango.more: database 'shop' does not exist"), e.getMessage());
        }
    }

    @Test
    void aNameConfiguredTwiceIsRefusedBeforeConnecting() {
        ArangoConfig config = ArangoConfig.of("docs", "http://127.0.0.1:1", "shop", new ArangoAuth.Token("t"));

        assertEquals("arango.docs: configured twice", assertThrows(IllegalArgumentException.class,
                () -> ArangoDatabases.start(List.of(config, config))).getMessage());
    }
}
