package io.pgward.mcp;

import io.pgward.scram.ScramCrypto;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Maps a bearer token to the one login whose token hashes it matches. Checking a hash costs a PBKDF2 of 4096
 * rounds, so a token once proven is remembered by its SHA-256 (never the token itself) for the process's life,
 * bounded; unknown tokens are not remembered, so guessing stays as slow as the hash makes it.
 */
final class Callers {

    private static final int REMEMBERED = 1_000;

    private final Map<String, McpSettings.AgentLogin> logins;
    private final Map<String, String> proven = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED;
        }
    };

    Callers(Map<String, McpSettings.AgentLogin> logins) {
        this.logins = logins;
    }

    /** The login of {@code token}; empty for a token no login has, or for more than one (never a guess). */
    Optional<McpSettings.AgentLogin> loginOf(String token) {
        if (token == null || token.isEmpty() || token.length() > 512) {
            return Optional.empty();
        }
        String digest = HexFormat.of().formatHex(ScramCrypto.sha256(token.getBytes(StandardCharsets.UTF_8)));
        synchronized (proven) {
            String name = proven.get(digest);
            if (name != null) {
                return Optional.ofNullable(logins.get(name));
            }
        }
        McpSettings.AgentLogin found = null;
        for (McpSettings.AgentLogin login : logins.values()) {
            for (String hash : login.tokenHashes()) {
                if (TokenHash.matches(token, hash)) {
                    if (found != null && found != login) {
                        return Optional.empty();
                    }
                    found = login;
                }
            }
        }
        if (found != null) {
            synchronized (proven) {
                proven.put(digest, found.name());
            }
        }
        return Optional.ofNullable(found);
    }
}
