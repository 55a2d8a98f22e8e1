package io.pgward.scram;

import com.ongres.scram.common.ScramFunctions;
import com.ongres.scram.common.ScramMechanism;
import com.ongres.scram.common.StringPreparation;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/** The SCRAM-SHA-256 primitives of RFC 5802 section 3, on the JDK's providers. */
public final class ScramCrypto {

    /** The length of every SHA-256 key and proof: StoredKey, ServerKey, ClientProof. */
    public static final int KEY_LENGTH = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private ScramCrypto() {
    }

    /**
     * SaltedPassword := Hi(SASLprep(password), salt, i). PostgreSQL's preparation: SASLprep, except that a
     * password SASLprep prohibits is used as it is (as UTF-8 bytes) instead of being refused.
     */
    static byte[] saltedPassword(String password, byte[] salt, int iterations) {
        requireSecret(password);
        return ScramFunctions.saltedPassword(ScramMechanism.SCRAM_SHA_256, StringPreparation.POSTGRESQL_PREPARATION,
                password.toCharArray(), salt, iterations);
    }

    /** SaltedPassword := Hi(secret, salt, i) over the secret's UTF-8 bytes as they are, without SASLprep. */
    static byte[] saltedUnprepared(String secret, byte[] salt, int iterations) {
        requireSecret(secret);
        try {
            PBEKeySpec spec = new PBEKeySpec(secret.toCharArray(), salt, iterations, KEY_LENGTH * 8);
            try {
                return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
            } finally {
                spec.clearPassword();
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is required of every Java platform", e);
        }
    }

    public static byte[] hmac(byte[] key, byte[] message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every Java platform", e);
        }
    }

    public static byte[] hmac(byte[] key, String message) {
        return hmac(key, message.getBytes(StandardCharsets.US_ASCII));
    }

    public static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    public static byte[] xor(byte[] a, byte[] b) {
        byte[] result = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            result[i] = (byte) (a[i] ^ b[i]);
        }
        return result;
    }

    public static byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private static void requireSecret(String secret) {
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("a SCRAM password must not be empty");
        }
    }
}
