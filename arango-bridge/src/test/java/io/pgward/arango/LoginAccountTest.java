package io.pgward.arango;

import org.junit.jupiter.api.Test;

import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A login with an ArangoDB account of its own: its EXPLAINs and cursors carry that account, probed at start. */
class LoginAccountTest {

    private static final AqlPolicy ANALYST = new AqlPolicy("analyst", Optional.empty(), 0, null);

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes());
    }

    @Test
    void aLoginsStatementsRunAsItsOwnAccountAndOthersAsTheEntrys() {
        String aql = "FOR u IN users RETURN u";
        try (FakeArango fake = FakeArango.start().allowBasic("analyst_ro", "ro-pass").reads(aql)) {
            fake.requireBasic(BridgeFixture.USER, BridgeFixture.PASSWORD);
            try (ArangoBridge bridge = ArangoBridge.start(BridgeFixture.config(fake).withLoginAuth(
                    Map.of("analyst", new ArangoAuth.UserPassword("analyst_ro", "ro-pass"))))) {
                bridge.run(aql, ExecutionMode.READ_ONLY, ANALYST);
                bridge.run("INSERT {a: 1} INTO users", ExecutionMode.RAW,
                        new AqlPolicy("analyst", Optional.empty(), 0, null));
                bridge.run(aql, ExecutionMode.READ_ONLY, new AqlPolicy("viewer", Optional.empty(), 0, null));
            }
            String own = basic("analyst_ro", "ro-pass");
            String entry = basic(BridgeFixture.USER, BridgeFixture.PASSWORD);
            assertEquals(own, fake.explains(aql).getFirst().header("Authorization"));
            assertEquals(List.of(own, entry), fake.cursorRequests(aql).stream().map(r -> r.header("Authorization"))
                    .toList());
            assertEquals(own, fake.cursorRequests("INSERT {a: 1} INTO users").getFirst().header("Authorization"));
            assertTrue(fake.requests("GET", "/_api/version").stream()
                    .anyMatch(r -> own.equals(r.header("Authorization"))), "the login's account is probed at start");
        }
    }

    @Test
    void aRefusedLoginAccountStopsTheStartNamingTheLoginButNotThePassword() {
        try (FakeArango fake = FakeArango.start().allowBasic("analyst_ro", "ro-pass")) {
            fake.requireBasic(BridgeFixture.USER, BridgeFixture.PASSWORD);
            ArangoStartupException e = assertThrows(ArangoStartupException.class, () -> ArangoBridge.start(
                    BridgeFixture.config(fake).withLoginAuth(Map.of("analyst",
                            new ArangoAuth.UserPassword("analyst_ro", "Not-Its-Pass")))));

            assertEquals(ArangoStartupException.Part.CREDENTIALS, e.part());
            assertTrue(e.getMessage().startsWith("arango.shopdocs.logins.analyst: ArangoDB at " + fake.endpoint()
                    + " refused user 'analyst_ro' for database 'shop'"), e.getMessage());
            assertFalse(e.getMessage().contains("Not-Its-Pass"));
        }
    }

    @Test
    void anAccountRefusedAtRunTimeIsAnAccessError() {
        String aql = "FOR u IN users RETURN u";
        try (FakeArango fake = FakeArango.start().allowBasic("analyst_ro", "ro-pass");
             ArangoBridge bridge = ArangoBridge.start(BridgeFixture.config(
                     fake.requireBasic(BridgeFixture.USER, BridgeFixture.PASSWORD)).withLoginAuth(
                     Map.of("analyst", new ArangoAuth.UserPassword("analyst_ro", "ro-pass"))))) {
            fake.explainError(aql, 401, 11, "not authorized to execute this request");

            AqlException e = assertThrows(AqlException.class,
                    () -> bridge.run(aql, ExecutionMode.READ_ONLY, ANALYST));

            assertEquals(AqlException.Reason.ACCESS, e.reason());
            assertEquals("28000", e.sqlState());
        }
    }
}
