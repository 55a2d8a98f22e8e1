package io.pgward.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TokenHashTest {

    @Test
    void aHashMatchesItsTokenAndNoOther() {
        String token = TokenHash.newToken();
        String hash = TokenHash.hash(token);
        assertTrue(hash.startsWith("SCRAM-SHA-256$4096:"), hash);
        assertTrue(TokenHash.wellFormed(hash));
        assertTrue(TokenHash.matches(token, hash));
        assertFalse(TokenHash.matches(token + "x", hash));
        assertFalse(TokenHash.matches("", hash));
        assertFalse(TokenHash.matches(hash, hash));
        assertNotEquals(hash, TokenHash.hash(token), "a fresh salt each time");
    }

    @Test
    void newTokensCarry256RandomBitsAndAPrefix() {
        String token = TokenHash.newToken();
        assertTrue(token.matches("pgw_[A-Za-z0-9_-]{43}"), token);
        assertNotEquals(token, TokenHash.newToken());
    }

    @Test
    void onlyVerifiersAreWellFormed() {
        for (String text : List.of("", "pgw_abc", "SCRAM-SHA-256$4096:abc", "md5abcdef",
                "SCRAM-SHA-256$4096:c2FsdA==$c2hvcnQ=:c2hvcnQ=")) {
            assertFalse(TokenHash.wellFormed(text), text);
        }
    }

    @Test
    void callersMapATokenToItsLoginAndRefuseUnknownOrSharedOnes() {
        String analyst = TokenHash.newToken();
        String shared = TokenHash.newToken();
        Callers callers = new Callers(Map.of(
                "analyst", login("analyst", TokenHash.hash(analyst), TokenHash.hash(shared)),
                "app", login("app", TokenHash.hash(shared))));
        assertEquals("analyst", callers.loginOf(analyst).orElseThrow().name());
        assertEquals("analyst", callers.loginOf(analyst).orElseThrow().name(), "remembered");
        assertTrue(callers.loginOf(shared).isEmpty(), "a token of two logins is no login");
        assertTrue(callers.loginOf(TokenHash.newToken()).isEmpty());
        assertTrue(callers.loginOf(null).isEmpty());
        assertTrue(callers.loginOf("").isEmpty());
    }

    private static McpSettings.AgentLogin login(String name, String... hashes) {
        return new McpSettings.AgentLogin(name, true, false, List.of(hashes), List.of(), 0);
    }
}
