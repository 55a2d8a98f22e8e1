package io.pgward.wire.auth;

import com.ongres.scram.client.ScramClient;
import com.ongres.scram.common.StringPreparation;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/** Clients for driving a {@link ScramServerExchange}: the SCRAM library pgjdbc uses, and a bare JDK one. */
final class ScramTestClient {

    private ScramTestClient() {
    }

    /** The client pgjdbc builds: no channel binding, PostgreSQL's SASLprep, the user name "*". */
    static ScramClient pgjdbcLike(String password) {
        return ScramClient.builder()
                .advertisedMechanisms(List.of("SCRAM-SHA-256"))
                .username("*")
                .password(password.toCharArray())
                .stringPreparation(StringPreparation.POSTGRESQL_PREPARATION)
                .build();
    }

    /** Runs a whole exchange and has the client verify the server's signature; throws on any failure. */
    static void authenticate(ScramClient client, ScramServerExchange exchange) throws Exception {
        byte[] serverFirst = exchange.serverFirst(bytes(client.clientFirstMessage().toString()));
        client.serverFirstMessage(text(serverFirst));
        byte[] serverFinal = exchange.serverFinal(bytes(client.clientFinalMessage().toString()));
        client.serverFinalMessage(text(serverFinal));
    }

    /** An ASCII password's ClientProof over {@code authMessage}, computed with the JDK alone. */
    static String proof(String password, String serverFirst, String authMessage) throws GeneralSecurityException {
        byte[] saltedPassword = saltedPassword(password, serverFirst);
        byte[] clientKey = hmac(saltedPassword, "Client Key");
        byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(clientKey);
        byte[] signature = hmac(storedKey, authMessage);
        for (int i = 0; i < clientKey.length; i++) {
            clientKey[i] ^= signature[i];
        }
        return Base64.getEncoder().encodeToString(clientKey);
    }

    /** The {@code v=} value a server that knows the password sends, computed with the JDK alone. */
    static String serverSignature(String password, String serverFirst, String authMessage)
            throws GeneralSecurityException {
        byte[] serverKey = hmac(saltedPassword(password, serverFirst), "Server Key");
        return Base64.getEncoder().encodeToString(hmac(serverKey, authMessage));
    }

    /** The value of attribute {@code name} (r, s, i) in a server-first-message. */
    static String attribute(String message, char name) {
        for (String part : message.split(",")) {
            if (part.charAt(0) == name && part.charAt(1) == '=') {
                return part.substring(2);
            }
        }
        throw new AssertionError("no " + name + "= in " + message);
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] saltedPassword(String password, String serverFirst) throws GeneralSecurityException {
        byte[] salt = Base64.getDecoder().decode(attribute(serverFirst, 's'));
        int iterations = Integer.parseInt(attribute(serverFirst, 'i'));
        PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
        return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    }

    private static byte[] hmac(byte[] key, String message) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
    }
}
