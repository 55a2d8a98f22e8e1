package io.pgward.arango;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe at start, and both ways of authenticating. */
class StartupProbeTest {

    @Test
    void aHealthyDatabaseAnswersVersionAndReturnOne() {
        try (FakeArango fake = FakeArango.start(); ArangoBridge bridge = BridgeFixture.start(fake)) {
            assertEquals(new ServerInfo("3.12.4", "community", "shop"), bridge.serverInfo());
            assertEquals(1, fake.requests("GET", "/_api/version").size());
            assertEquals("shop", fake.requests("GET", "/_api/version").getFirst().database());
            List<FakeArango.Recorded> probes = fake.requests("POST", "/_api/cursor");
            assertEquals(1, probes.size());
            assertEquals("RETURN 1", probes.getFirst().body().path("query").asText());
            assertEquals("shop", probes.getFirst().database());
        }
    }

    @Test
    void userAndPasswordAreSentAsBasicAuthentication() {
        try (FakeArango fake = FakeArango.start().reads("FOR u IN users RETURN u");
             ArangoBridge bridge = BridgeFixture.start(fake)) {
            bridge.run("FOR u IN users RETURN u", ExecutionMode.READ_ONLY);
            String expected = "Basic " + Base64.getEncoder().encodeToString("reader:s3cret".getBytes());
            assertTrue(fake.requests().stream().allMatch(r -> expected.equals(r.header("Authorization"))));
        }
    }

    @Test
    void aBlankUserIsRoot() {
        try (FakeArango fake = FakeArango.start().requireBasic("root", "pw");
             ArangoBridge bridge = ArangoBridge.start(ArangoConfig.of("docs", fake.endpoint(), "shop",
                     new ArangoAuth.UserPassword(" ", "pw")))) {
            assertEquals("3.12.4", bridge.serverInfo().version());
        }
    }

    @Test
    void aTokenIsSentAsBearerAuthentication() {
        String jwt = "eyJhbGciOiJIUzI1NiJ9.eyJwcmVmZXJyZWRfdXNlcm5hbWUiOiJyZWFkZXIifQ.c2lnbmF0dXJl";
        try (FakeArango fake = FakeArango.start().requireJwt(jwt).reads("FOR u IN users RETURN u");
             ArangoBridge bridge = ArangoBridge.start(ArangoConfig.of("docs", fake.endpoint(), "shop",
                     new ArangoAuth.Token(jwt)))) {
            assertEquals("SELECT 0", bridge.run("FOR u IN users RETURN u", ExecutionMode.READ_ONLY).commandTag());
            assertTrue(fake.requests().stream().allMatch(r -> r.header("Authorization").equalsIgnoreCase(
                    "bearer " + jwt)), "every request carries the token");
        }
    }

    @Test
    void aRefusedTokenNamesTheCredentialWithoutShowingIt() {
        try (FakeArango fake = FakeArango.start().requireJwt("the-right-token")) {
            ArangoStartupException e = assertThrows(ArangoStartupException.class, () -> ArangoBridge.start(
                    ArangoConfig.of("docs", fake.endpoint(), "shop", new ArangoAuth.Token("a-wrong-token"))));

            assertEquals(ArangoStartupException.Part.CREDENTIALS, e.part());
            assertTrue(e.getMessage().startsWith("arango.docs: ArangoDB at " + fake.endpoint()
                    + " refused the configured token for database 'shop'"), e.getMessage());
            assertFalse(e.getMessage().contains("a-wrong-token"));
        }
    }

    @Test
    void aRefusedPasswordNamesTheUser() {
        try (FakeArango fake = FakeArango.start().requireBasic("reader", "right")) {
            ArangoStartupException e = assertThrows(ArangoStartupException.class, () -> ArangoBridge.start(
                    ArangoConfig.of("docs", fake.endpoint(), "shop",
                            new ArangoAuth.UserPassword("reader", "Pa55-not-it"))));

            assertEquals(ArangoStartupException.Part.CREDENTIALS, e.part());
            assertTrue(e.getMessage().contains("refused user 'reader'"), e.getMessage());
            assertTrue(e.getMessage().contains("HTTP 401"), e.getMessage());
            assertFalse(e.getMessage().contains("Pa55-not-it"));
        }
    }

    @Test
    void aMissingDatabaseIsNamedToRoot() {
        try (FakeArango fake = FakeArango.start().withoutDatabase("shop").requireBasic("root", "pw")) {
            ArangoStartupException e = assertThrows(ArangoStartupException.class,
                    () -> ArangoBridge.start(ArangoConfig.of("shopdocs", fake.endpoint(), "shop",
                            new ArangoAuth.UserPassword("root", "pw"))));

            assertEquals(ArangoStartupException.Part.DATABASE, e.part());
            assertEquals("arango.shopdocs: database 'shop' does not exist on " + fake.endpoint(), e.getMessage());
        }
    }

    @Test
    void aMissingDatabaseOfAnotherUserIsIndistinguishableFromRefusedCredentials() {
        try (FakeArango fake = FakeArango.start().withoutDatabase("shop")) {
            ArangoStartupException e = assertThrows(ArangoStartupException.class,
                    () -> BridgeFixture.start(fake));

            assertEquals(ArangoStartupException.Part.CREDENTIALS, e.part());
            assertTrue(e.getMessage().contains("(HTTP 401, error 11: not authorized to execute this request)")
                    && e.getMessage().contains("or database 'shop' does not exist"), e.getMessage());
        }
    }

    @Test
    void credentialsWithoutRightsOnTheDatabaseAreNamed() {
        try (FakeArango fake = FakeArango.start().cursorError("RETURN 1", 403, 11, "forbidden")) {
            ArangoStartupException e = assertThrows(ArangoStartupException.class,
                    () -> BridgeFixture.start(fake));

            assertEquals(ArangoStartupException.Part.PERMISSION, e.part());
            assertEquals("arango.shopdocs: user 'reader' may not use database 'shop' (HTTP 403, error 11: forbidden)",
                    e.getMessage());
        }
    }

    @Test
    void anUnreachableEndpointIsNamed() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        String endpoint = "http://127.0.0.1:" + closedPort;

        ArangoStartupException e = assertThrows(ArangoStartupException.class, () -> ArangoBridge.start(
                ArangoConfig.of("docs", endpoint, "shop", new ArangoAuth.UserPassword("reader", "pw"))));

        assertEquals(ArangoStartupException.Part.ENDPOINT, e.part());
        assertTrue(e.getMessage().startsWith("arango.docs: endpoint " + endpoint + " cannot be reached ("),
                e.getMessage());
    }

    @Test
    void somethingThatIsNotArangoDbIsNamed() {
        try (FakeArango fake = FakeArango.start().versionBody("{\"name\":\"some other service\"}")) {
            ArangoStartupException e = assertThrows(ArangoStartupException.class,
                    () -> BridgeFixture.start(fake));

            assertEquals(ArangoStartupException.Part.ENDPOINT, e.part());
            assertTrue(e.getMessage().contains("does not answer like ArangoDB"), e.getMessage());
        }
    }

    @Test
    void theHttp2ProtocolCanBeChosen() {
        ArangoConfig config = ArangoConfig.of("docs", "https://arango.example:8530", "shop",
                new ArangoAuth.Token("t")).withProtocol(DriverProtocol.fromKey("http2"));

        assertEquals(DriverProtocol.HTTP2_JSON, config.protocol());
        assertTrue(config.tls());
        assertEquals(8530, config.port());
    }
}
