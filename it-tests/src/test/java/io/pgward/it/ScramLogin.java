package io.pgward.it;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The client side of a SCRAM-SHA-256 exchange (RFC 5802, without channel binding), so that {@link RawClient} can log
 * in to PostgreSQL itself and a test can send it the same bytes as pgward. The password is used as it is, without
 * SASLprep: test passwords are ASCII.
 */
final class ScramLogin {

    private final String password;
    private final String clientFirstBare;

    ScramLogin(String password) {
        byte[] nonce = new byte[18];
        new SecureRandom().nextBytes(nonce);
        this.password = password;
        // PostgreSQL takes the user from the startup packet and ignores the name here, as libpq leaves it empty.
        this.clientFirstBare = "n=,r=" + Base64.getEncoder().encodeToString(nonce);
    }

    /** client-first-message: no channel binding, no authorization identity. */
    String clientFirst() {
        return "n,," + clientFirstBare;
    }

    /** client-final-message for the server's server-first-message {@code r=...,s=...,i=...}. */
    String clientFinal(String serverFirst) {
        Map<Character, String> fields = new LinkedHashMap<>();
        for (String field : serverFirst.split(",")) {
            fields.put(field.charAt(0), field.substring(2));
        }
        byte[] salted = salted(Base64.getDecoder().decode(fields.get('s')), Integer.parseInt(fields.get('i')));
        byte[] clientKey = hmac(salted, "Client Key");
        String withoutProof = "c=biws,r=" + fields.get('r');
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] signature = hmac(sha256(clientKey), authMessage);
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        return withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof);
    }

    private byte[] salted(byte[] salt, int iterations) {
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                    .generateSecret(new PBEKeySpec(password.toCharArray(), salt, iterations, 256)).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] hmac(byte[] key, String message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(message.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
