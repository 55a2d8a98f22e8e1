package io.pgward.mcp;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Bearer tokens are stored as PostgreSQL stores passwords, a SCRAM-SHA-256 verifier
 * ({@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}), so the configuration never holds a token
 * that works. A token is checked by deriving its StoredKey with the verifier's salt and comparing in constant time.
 */
public final class TokenHash {

    private static final Pattern FORM = Pattern.compile(
            "SCRAM-SHA-256\\$(\\d{1,7}):([A-Za-z0-9+/=]+)\\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)");
    private static final int ITERATIONS = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();

    private TokenHash() {
    }

    /** A new token: 256 random bits, URL-safe, with a prefix that secret scanners can match. */
    public static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "pgw_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The verifier of {@code token}, with a fresh salt. */
    public static String hash(String token) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        byte[] salted = salted(token, salt, ITERATIONS);
        Base64.Encoder b64 = Base64.getEncoder();
        return "SCRAM-SHA-256$" + ITERATIONS + ":" + b64.encodeToString(salt) + "$"
                + b64.encodeToString(sha256(hmac(salted, "Client Key"))) + ":"
                + b64.encodeToString(hmac(salted, "Server Key"));
    }

    /** Whether {@code hash} is a verifier this class can check; the configuration refuses any other text. */
    public static boolean wellFormed(String hash) {
        Matcher m = FORM.matcher(hash);
        if (!m.matches()) {
            return false;
        }
        try {
            Base64.getDecoder().decode(m.group(2));
            return Base64.getDecoder().decode(m.group(3)).length == 32 && Integer.parseInt(m.group(1)) >= 1;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Whether {@code token} is the one {@code hash} was made from. */
    public static boolean matches(String token, String hash) {
        Matcher m = FORM.matcher(hash);
        if (!m.matches() || token.isEmpty()) {
            return false;
        }
        byte[] salt = Base64.getDecoder().decode(m.group(2));
        byte[] storedKey = Base64.getDecoder().decode(m.group(3));
        byte[] derived = sha256(hmac(salted(token, salt, Integer.parseInt(m.group(1))), "Client Key"));
        return MessageDigest.isEqual(derived, storedKey);
    }

    private static byte[] salted(String token, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(token.toCharArray(), salt, iterations, 256);
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is part of every JDK", e);
        }
    }

    private static byte[] hmac(byte[] key, String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
