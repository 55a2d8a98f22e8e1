package io.pgward.wire.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.scram.ScramVerifier;
import io.pgward.wire.auth.BackendAuthenticator.AwaitNext;
import io.pgward.wire.auth.BackendAuthenticator.Authenticated;
import io.pgward.wire.auth.BackendAuthenticator.Respond;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** pgward as the client of a backend, with {@link ScramServerExchange} playing PostgreSQL. */
class BackendAuthenticatorTest {

    private static final byte[] SECRET = ScramServerExchange.newMockSecret();
    private static final byte[] NONE = new byte[0];
    private static final byte[] SCRAM_ONLY = "SCRAM-SHA-256\0\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @Test
    void logsInWithScramAndChecksTheServerSignature() throws Exception {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "db pass");
        ScramServerExchange backend = new ScramServerExchange("app", ScramVerifier.fromPassword("db pass"), SECRET);

        byte[] clientFirst = initialResponse(pgward.onRequest(10, backend.mechanisms()));
        byte[] clientFinal = payload(pgward.onRequest(11, backend.serverFirst(clientFirst)));
        byte[] serverFinal = backend.serverFinal(clientFinal);

        assertInstanceOf(AwaitNext.class, pgward.onRequest(12, serverFinal));
        assertInstanceOf(Authenticated.class, pgward.onRequest(0, NONE));
    }

    @Test
    void sendsAClientFirstMessageWithoutChannelBindingOrAuthzid() {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "db pass");
        byte[] body = payload(pgward.onRequest(10, cstrings("SCRAM-SHA-256-PLUS", "SCRAM-SHA-256")));

        ByteBuffer buffer = ByteBuffer.wrap(body);
        byte[] mechanism = new byte["SCRAM-SHA-256\0".length()];
        buffer.get(mechanism);
        assertEquals("SCRAM-SHA-256\0", new String(mechanism, StandardCharsets.US_ASCII));
        int length = buffer.getInt();
        assertEquals(buffer.remaining(), length, "int32 length of the client-first-message");
        String clientFirst = StandardCharsets.UTF_8.decode(buffer).toString();
        assertTrue(clientFirst.startsWith("n,,n=*,r="), clientFirst);
    }

    @Test
    void fallsShortOfLoginWhenTheBackendHasAnotherPassword() throws Exception {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "stale pass");
        ScramServerExchange backend = new ScramServerExchange("app", ScramVerifier.fromPassword("db pass"), SECRET);

        byte[] clientFirst = initialResponse(pgward.onRequest(10, backend.mechanisms()));
        byte[] clientFinal = payload(pgward.onRequest(11, backend.serverFirst(clientFirst)));
        assertThrows(AuthenticationFailed.class, () -> backend.serverFinal(clientFinal));
    }

    @Test
    void refusesABackendWhoseSignatureDoesNotVerify() throws Exception {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "db pass");
        ScramServerExchange backend = new ScramServerExchange("app", ScramVerifier.fromPassword("db pass"), SECRET);
        byte[] clientFirst = initialResponse(pgward.onRequest(10, backend.mechanisms()));
        String genuine = new String(
                backend.serverFinal(payload(pgward.onRequest(11, backend.serverFirst(clientFirst)))),
                StandardCharsets.US_ASCII);
        byte[] signature = Base64.getDecoder().decode(genuine.substring(2));
        signature[0] ^= 1;
        byte[] serverFinal = ("v=" + Base64.getEncoder().encodeToString(signature)).getBytes(StandardCharsets.US_ASCII);

        BackendAuthenticationException e = assertThrows(BackendAuthenticationException.class,
                () -> pgward.onRequest(12, serverFinal));
        assertTrue(e.getMessage().contains("signature"), e.getMessage());
    }

    @Test
    void refusesAuthenticationOkBeforeTheBackendProvedItKnowsThePassword() throws Exception {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "db pass");
        ScramServerExchange backend = new ScramServerExchange("app", ScramVerifier.fromPassword("db pass"), SECRET);
        byte[] clientFirst = initialResponse(pgward.onRequest(10, backend.mechanisms()));
        pgward.onRequest(11, backend.serverFirst(clientFirst));

        assertThrows(BackendAuthenticationException.class, () -> pgward.onRequest(0, NONE));
    }

    @Test
    void refusesSaslMessagesOutOfOrder() {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "db pass");
        assertThrows(BackendAuthenticationException.class, () -> pgward.onRequest(11, "r=x,s=eA==,i=1".getBytes()));
        assertThrows(BackendAuthenticationException.class, () -> pgward.onRequest(12, "v=AAAA".getBytes()));
    }

    @Test
    void refusesSaslWithoutScramSha256() {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "db pass");
        BackendAuthenticationException e = assertThrows(BackendAuthenticationException.class,
                () -> pgward.onRequest(10, cstrings("SCRAM-SHA-256-PLUS")));
        assertTrue(e.getMessage().contains("[SCRAM-SHA-256-PLUS]"), e.getMessage());
    }

    @Test
    void refusesAMechanismListWithoutItsTerminator() {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "db pass");
        assertThrows(BackendAuthenticationException.class,
                () -> pgward.onRequest(10, "SCRAM-SHA-256\0".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void answersMd5WithTheHandComputedResponse() {
        BackendAuthenticator pgward = new BackendAuthenticator("alice", "s3cret");
        byte[] salt = {0x01, 0x02, (byte) 0xfe, (byte) 0xff};
        // "md5" + md5hex(md5hex("s3cretalice") + salt), computed independently, then the NUL of a C string.
        assertArrayEquals("md5fbc8134dad4ad2bf7e3c0b08c38c31e8\0".getBytes(StandardCharsets.US_ASCII),
                payload(pgward.onRequest(5, salt)));
    }

    @Test
    void refusesAnMd5RequestWithoutAFourByteSalt() {
        BackendAuthenticator pgward = new BackendAuthenticator("alice", "s3cret");
        assertThrows(BackendAuthenticationException.class, () -> pgward.onRequest(5, new byte[] {1, 2}));
    }

    @Test
    void answersCleartextWithThePasswordAndANul() {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "pässword");
        assertArrayEquals("pässword\0".getBytes(StandardCharsets.UTF_8), payload(pgward.onRequest(3, NONE)));
    }

    @Test
    void isAuthenticatedAtOnceByATrustingBackend() {
        assertInstanceOf(Authenticated.class, new BackendAuthenticator("app", null).onRequest(0, NONE));
    }

    @Test
    void namesTheUserWhenNoPasswordIsConfigured() {
        for (int code : new int[] {3, 5, 10}) {
            byte[] body = code == 5 ? new byte[4] : code == 10 ? SCRAM_ONLY : NONE;
            BackendAuthenticationException e = assertThrows(BackendAuthenticationException.class,
                    () -> new BackendAuthenticator("app", null).onRequest(code, body));
            assertTrue(e.getMessage().contains("no password is configured for backend user \"app\""), e.getMessage());
        }
    }

    @Test
    void namesTheMethodItDoesNotSupport() {
        BackendAuthenticator pgward = new BackendAuthenticator("app", "db pass");
        assertTrue(assertThrows(BackendAuthenticationException.class, () -> pgward.onRequest(7, NONE))
                .getMessage().contains("GSSAPI"));
        assertTrue(assertThrows(BackendAuthenticationException.class, () -> pgward.onRequest(9, NONE))
                .getMessage().contains("SSPI"));
        assertTrue(assertThrows(BackendAuthenticationException.class, () -> pgward.onRequest(2, NONE))
                .getMessage().contains("Kerberos"));
        assertTrue(assertThrows(BackendAuthenticationException.class, () -> pgward.onRequest(42, NONE))
                .getMessage().contains("42"));
    }

    private static byte[] payload(BackendAuthenticator.Step step) {
        return assertInstanceOf(Respond.class, step).payload();
    }

    /** The client-first-message inside a SASLInitialResponse body. */
    private static byte[] initialResponse(BackendAuthenticator.Step step) {
        byte[] body = payload(step);
        int start = "SCRAM-SHA-256\0".length() + 4;
        assertEquals(body.length - start, ByteBuffer.wrap(body, start - 4, 4).getInt());
        return Arrays.copyOfRange(body, start, body.length);
    }

    private static byte[] cstrings(String... names) {
        return (String.join("\0", names) + "\0\0").getBytes(StandardCharsets.US_ASCII);
    }
}
