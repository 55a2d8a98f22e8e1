package io.pgward.scram;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stored SCRAM-SHA-256 secret in the text form PostgreSQL keeps in {@code pg_authid.rolpassword}:
 * {@code SCRAM-SHA-256$<iterations>:<base64 salt>$<base64 StoredKey>:<base64 ServerKey>}.
 *
 * <p>It holds no password: StoredKey = H(ClientKey) lets the server check a ClientProof, ServerKey lets it
 * sign its answer. Both still let whoever holds them impersonate the server to a client, so {@code toString}
 * and every parse error leave them out. The arrays are copied in and out, so an instance cannot change.
 *
 * @param iterations the PBKDF2 iteration count, positive
 * @param salt the salt, not empty
 * @param storedKey H(HMAC(SaltedPassword, "Client Key")), 32 bytes
 * @param serverKey HMAC(SaltedPassword, "Server Key"), 32 bytes
 */
public record ScramVerifier(int iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {

    /** What PostgreSQL uses unless {@code scram_iterations} says otherwise. */
    public static final int DEFAULT_ITERATIONS = 4096;
    /** The salt length PostgreSQL uses. */
    public static final int DEFAULT_SALT_LENGTH = 16;

    private static final String PREFIX = "SCRAM-SHA-256";
    private static final Pattern FORMAT = Pattern.compile(
            "SCRAM-SHA-256\\$([0-9]{1,10}):([A-Za-z0-9+/=]+)\\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)");

    public ScramVerifier {
        if (iterations <= 0) {
            throw new IllegalArgumentException("SCRAM iteration count must be positive, was " + iterations);
        }
        if (salt == null || salt.length == 0) {
            throw new IllegalArgumentException("SCRAM salt must not be empty");
        }
        requireKey("StoredKey", storedKey);
        requireKey("ServerKey", serverKey);
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
    }

    /**
     * Reads PostgreSQL's text form. The message of the exception names the part that is wrong and never
     * repeats the text, which holds the keys.
     */
    public static ScramVerifier parse(String text) {
        if (text == null || !text.startsWith(PREFIX + "$")) {
            throw new IllegalArgumentException("not a SCRAM-SHA-256 verifier: it must start with \"SCRAM-SHA-256$\"");
        }
        Matcher m = FORMAT.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("malformed SCRAM-SHA-256 verifier: expected "
                    + PREFIX + "$<iterations>:<salt>$<StoredKey>:<ServerKey>");
        }
        int iterations;
        try {
            iterations = Integer.parseInt(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed SCRAM-SHA-256 verifier: iteration count out of range");
        }
        return new ScramVerifier(iterations, decode("salt", m.group(2)), decode("StoredKey", m.group(3)),
                decode("ServerKey", m.group(4)));
    }

    /** A new verifier with a random 16-byte salt and 4096 iterations, as PostgreSQL makes one. */
    public static ScramVerifier fromPassword(String password) {
        return fromPassword(password, ScramCrypto.randomBytes(DEFAULT_SALT_LENGTH), DEFAULT_ITERATIONS);
    }

    /**
     * The verifier PostgreSQL derives from this password, salt and iteration count. The password goes through
     * SASLprep; where SASLprep prohibits it, its UTF-8 bytes are used unchanged, as PostgreSQL does.
     */
    public static ScramVerifier fromPassword(String password, byte[] salt, int iterations) {
        return fromSaltedPassword(ScramCrypto.saltedPassword(password, salt, iterations), salt, iterations);
    }

    /**
     * A new verifier, as {@link #fromPassword(String)} makes one, of a secret whose UTF-8 bytes are hashed as they
     * are, without SASLprep. For secrets pgward generates or stores itself (the MCP bearer tokens) rather than
     * passwords a PostgreSQL client prepares; for ASCII text without control characters the two agree.
     */
    public static ScramVerifier fromUnpreparedSecret(String secret) {
        byte[] salt = ScramCrypto.randomBytes(DEFAULT_SALT_LENGTH);
        return fromSaltedPassword(ScramCrypto.saltedUnprepared(secret, salt, DEFAULT_ITERATIONS), salt,
                DEFAULT_ITERATIONS);
    }

    /**
     * Whether {@code secret}, hashed as {@link #fromUnpreparedSecret} hashes it with this verifier's salt and
     * iteration count, gives this StoredKey. The keys are compared in constant time; an empty or null secret
     * matches nothing.
     */
    public boolean matchesUnpreparedSecret(String secret) {
        if (secret == null || secret.isEmpty()) {
            return false;
        }
        byte[] saltedPassword = ScramCrypto.saltedUnprepared(secret, salt, iterations);
        byte[] clientKey = ScramCrypto.hmac(saltedPassword, "Client Key");
        byte[] candidate = ScramCrypto.sha256(clientKey);
        Arrays.fill(saltedPassword, (byte) 0);
        Arrays.fill(clientKey, (byte) 0);
        return MessageDigest.isEqual(candidate, storedKey);
    }

    private static ScramVerifier fromSaltedPassword(byte[] saltedPassword, byte[] salt, int iterations) {
        byte[] clientKey = ScramCrypto.hmac(saltedPassword, "Client Key");
        byte[] serverKey = ScramCrypto.hmac(saltedPassword, "Server Key");
        ScramVerifier verifier = new ScramVerifier(iterations, salt, ScramCrypto.sha256(clientKey), serverKey);
        Arrays.fill(saltedPassword, (byte) 0);
        Arrays.fill(clientKey, (byte) 0);
        return verifier;
    }

    /** PostgreSQL's text form, ready for {@code pg_authid.rolpassword} or pgward's configuration. */
    public String encoded() {
        Base64.Encoder b64 = Base64.getEncoder();
        return PREFIX + "$" + iterations + ":" + b64.encodeToString(salt) + "$" + b64.encodeToString(storedKey)
                + ":" + b64.encodeToString(serverKey);
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] storedKey() {
        return storedKey.clone();
    }

    @Override
    public byte[] serverKey() {
        return serverKey.clone();
    }

    /** Same verifier, compared by content; keys are compared in constant time. */
    @Override
    public boolean equals(Object other) {
        return other instanceof ScramVerifier that
                && iterations == that.iterations
                && Arrays.equals(salt, that.salt)
                && MessageDigest.isEqual(storedKey, that.storedKey)
                && MessageDigest.isEqual(serverKey, that.serverKey);
    }

    @Override
    public int hashCode() {
        return 31 * iterations + Arrays.hashCode(salt);
    }

    @Override
    public String toString() {
        return "ScramVerifier[SCRAM-SHA-256, iterations=" + iterations + ", keys redacted]";
    }

    private static void requireKey(String name, byte[] key) {
        if (key == null || key.length != ScramCrypto.KEY_LENGTH) {
            throw new IllegalArgumentException("SCRAM " + name + " must be " + ScramCrypto.KEY_LENGTH + " bytes"
                    + (key == null ? "" : ", was " + key.length));
        }
    }

    private static byte[] decode(String part, String base64) {
        try {
            return Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed SCRAM-SHA-256 verifier: " + part + " is not valid base64");
        }
    }
}
