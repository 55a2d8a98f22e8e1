package io.pgward.mcp;

import io.pgward.scram.ScramCrypto;
import io.pgward.scram.ScramVerifier;
import java.util.Base64;
import java.util.Optional;

/**
 * Bearer tokens are stored as PostgreSQL stores passwords, a SCRAM-SHA-256 verifier
 * ({@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}), so the configuration never holds a token
 * that works. A token is checked by deriving its StoredKey with the verifier's salt and comparing in constant time.
 *
 * <p>A token's UTF-8 bytes are hashed as they are, without SASLprep ({@link ScramVerifier#fromUnpreparedSecret}):
 * that is how every token hash so far was made, and the tokens pgward makes are ASCII, where the two agree.
 */
public final class TokenHash {

    /**
     * Every match costs a PBKDF2 of the hash's iteration count, paid per request for an unknown token, so a hash
     * with more iterations than this is refused rather than let one request tie up a core.
     */
    private static final int MAX_ITERATIONS = 9_999_999;

    private TokenHash() {
    }

    /** A new token: 256 random bits, URL-safe, with a prefix that secret scanners can match. */
    public static String newToken() {
        return "pgw_" + Base64.getUrlEncoder().withoutPadding().encodeToString(ScramCrypto.randomBytes(32));
    }

    /** The verifier of {@code token}, with a fresh salt. */
    public static String hash(String token) {
        return ScramVerifier.fromUnpreparedSecret(token).encoded();
    }

    /** Whether {@code hash} is a verifier this class can check; the configuration refuses any other text. */
    public static boolean wellFormed(String hash) {
        return verifier(hash).isPresent();
    }

    /** Whether {@code token} is the one {@code hash} was made from. */
    public static boolean matches(String token, String hash) {
        return verifier(hash).map(v -> v.matchesUnpreparedSecret(token)).orElse(false);
    }

    private static Optional<ScramVerifier> verifier(String hash) {
        try {
            ScramVerifier verifier = ScramVerifier.parse(hash);
            return verifier.iterations() <= MAX_ITERATIONS ? Optional.of(verifier) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
