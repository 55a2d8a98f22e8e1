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
    }

    @Test
    void newTokensCarry256RandomBitsAndAPrefix() {
        String token = TokenHash.newToken();
        assertTrue(token.matches("pgw_[A-Za-z0-9_-]{43}"), token);
        assertNotEquals(token, TokenHash.newToken());
    }

    /** Printed by {@code pgward mcp-token --hash-stdin} before the verifier code moved to pgward-scram. */
    @Test
    void opensTheHashesEarlierReleasesPrinted() {
        String ascii = "pgw_4kQq2x0Zr8yTn1mVh6bWc3sLd9pEa5uJ7gFi0oKxYz";
        String asciiHash = "SCRAM-SHA-256$4096:Vnl1/HI6wp18wDpkaDOuSw==$7PBjQ/O/OQ2kj/4C9TT8uxIIyMixFZUvFu/3guDsfrc="
                + ":wu/k/etgF/fSzZI9E4QYPaRyrD6pW+y+KibK+GKjK+M=";
        assertTrue(TokenHash.matches(ascii, asciiHash));
        assertFalse(TokenHash.matches(ascii.substring(1), asciiHash));

        // A token of the operator's choosing, hashed from its UTF-8 bytes without SASLprep (which would drop the
        // soft hyphen and fold the fullwidth P): its SASLprep-equivalent spelling must not open it.
        String unicode = "\uFF30I\u00ADX-t\u00F6ken";
        String unicodeHash = "SCRAM-SHA-256$4096:V0jWSV8LTRk/C4zEh4iciw==$SIv8M1iqWGK5QVgzwhf9M+jcX10opwiLWoKwej8BolQ="
                + ":knUs72trZ0GsrfiFQKGJbt/VbRs0FKJwN8GbupYHnOY=";
        assertTrue(TokenHash.matches(unicode, unicodeHash));
        assertFalse(TokenHash.matches("PIX-t\u00F6ken", unicodeHash));
    }

    @Test
    void onlyVerifiersAreWellFormed() {
        String keys = "$7PBjQ/O/OQ2kj/4C9TT8uxIIyMixFZUvFu/3guDsfrc=:wu/k/etgF/fSzZI9E4QYPaRyrD6pW+y+KibK+GKjK+M=";
        for (String text : List.of("", "pgw_abc", "SCRAM-SHA-256$4096:abc", "md5abcdef",
                "SCRAM-SHA-256$4096:c2FsdA==$c2hvcnQ=:c2hvcnQ=",
                // more PBKDF2 rounds than a request may cost
                "SCRAM-SHA-256$10000000:Vnl1/HI6wp18wDpkaDOuSw==" + keys)) {
            assertFalse(TokenHash.wellFormed(text), text);
            assertFalse(TokenHash.matches("pgw_abc", text), text);
        }
        assertTrue(TokenHash.wellFormed("SCRAM-SHA-256$9999999:Vnl1/HI6wp18wDpkaDOuSw==" + keys));
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
