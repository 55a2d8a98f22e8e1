package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.arango.ArangoAuth;
import io.pgward.arango.ArangoConfig;
import io.pgward.arango.FakeArango;
import io.pgward.guard.Verdict;
import io.pgward.wire.arango.ArangoServing;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.local.LocalDatabase;
import io.pgward.wire.local.LocalDatabaseException;
import io.pgward.wire.protocol.SqlState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A login's policy on an ArangoDB database as pgward starts it: what cannot apply stops the start, and what
 * can is applied to the statements of the login's sessions.
 */
class ArangoLoginPolicyIT {

    private FakeArango arango;
    private ArangoConfig config;

    @BeforeEach
    void start() {
        arango = FakeArango.start()
                .collection("users", 2, "[]").collection("knows", 3, "[]")
                .graph("""
                        {"_key":"social","name":"social","edgeDefinitions":[{"collection":"knows","from":["users"],
                         "to":["users"]}],"orphanCollections":[]}""");
        config = ArangoConfig.of("shopdocs", arango.endpoint(), "shop", new ArangoAuth.UserPassword("", ""));
    }

    @AfterEach
    void stop() {
        arango.close();
    }

    private static PgwardConfig.Login readOnly(String name, List<String> tables) {
        return new PgwardConfig.Login(name, PgwardConfig.AuthMethod.TRUST, null, null, name, null,
                new PgwardConfig.Policy(PgwardConfig.Mode.READ_ONLY, Duration.ofSeconds(3), 1, tables, null));
    }

    private String refusedAtStart(ArangoConfig entry, PgwardConfig.Login login) {
        return assertThrows(IllegalArgumentException.class,
                () -> ArangoServing.start(List.of(entry), List.of(login)).close()).getMessage();
    }

    @Test
    void aSelectedSystemCollectionStopsTheStart() {
        assertEquals("logins.analyst.tables: shopdocs._users is an ArangoDB system collection, which read-only "
                + "logins never read", refusedAtStart(config, readOnly("analyst", List.of("shopdocs._users"))));
    }

    @Test
    void aSelectedNamedGraphStopsTheStart() {
        assertEquals("logins.analyst.tables: shopdocs.social is a named graph; select its edge and vertex "
                + "collections instead", refusedAtStart(config, readOnly("analyst", List.of("shopdocs.social"))));
    }

    @Test
    void anEntryThatWouldFoldAwayFromTheDatabaseNameStopsTheStart() {
        ArangoConfig mixedCase = ArangoConfig.of("ShopDocs", arango.endpoint(), "shop",
                new ArangoAuth.UserPassword("", ""));
        assertTrue(refusedAtStart(mixedCase, readOnly("analyst", List.of("ShopDocs.users")))
                .contains("quote it: \"ShopDocs\".users"));
    }

    @Test
    void anAccountForALoginThatDoesNotExistStopsTheStart() {
        ArangoConfig withAccount = config.withLoginAuth(Map.of("bob", new ArangoAuth.UserPassword("bob", "pw")));
        assertEquals("arango.shopdocs.logins.bob: there is no login bob",
                refusedAtStart(withAccount, readOnly("analyst", List.of())));
    }

    @Test
    void theLoginsSelectionRowCapAndTimeoutApplyToItsStatements() throws Exception {
        arango.plan("FOR k IN knows RETURN k", """
                {"nodes":[{"type":"SingletonNode","id":1},
                  {"type":"EnumerateCollectionNode","id":2,"collection":"knows"},
                  {"type":"ReturnNode","id":3}],
                 "collections":[{"name":"knows","type":"read"}],"isModificationQuery":false}""");
        arango.plan("FOR u IN users RETURN u", """
                {"nodes":[{"type":"SingletonNode","id":1},
                  {"type":"EnumerateCollectionNode","id":2,"collection":"users"},
                  {"type":"ReturnNode","id":3}],
                 "collections":[{"name":"users","type":"read"}],"isModificationQuery":false}""")
                .rows("FOR u IN users RETURN u", "[{\"n\":1}]");
        PgwardConfig.Login analyst = readOnly("analyst", List.of("public.orders", "shopdocs.users"));
        try (ArangoServing serving = ArangoServing.start(List.of(config), List.of(analyst))) {
            LocalDatabase shopdocs = serving.localDatabases().get("shopdocs");

            CompletionException refused = assertThrows(CompletionException.class, () -> shopdocs.execute(
                    new LocalDatabase.Statement("FOR k IN knows RETURN k", List.of(), List.of(), "analyst",
                            analyst.policy(), "c1")).toCompletableFuture().join());
            LocalDatabaseException e = (LocalDatabaseException) refused.getCause();
            assertEquals(SqlState.INSUFFICIENT_PRIVILEGE, e.sqlState());
            assertEquals("AQL refused: knows is not among the collections and views login \"analyst\" may read",
                    e.getMessage());

            Verdict.Answer users = shopdocs.execute(new LocalDatabase.Statement("FOR u IN users RETURN u",
                    List.of(), List.of(), "analyst", analyst.policy(), "c1")).toCompletableFuture().join();
            assertEquals(List.of(List.of("1")), users.rows());
            var cursor = arango.cursorRequests("FOR u IN users RETURN u").getLast().body();
            assertEquals(3.0, cursor.path("options").path("maxRuntime").asDouble(), "the login's timeout");
        }
    }
}
