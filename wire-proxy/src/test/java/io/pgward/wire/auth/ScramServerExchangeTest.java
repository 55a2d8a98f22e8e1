package io.pgward.wire.auth;

import static io.pgward.wire.auth.ScramTestClient.attribute;
import static io.pgward.wire.auth.ScramTestClient.authenticate;
import static io.pgward.wire.auth.ScramTestClient.bytes;
import static io.pgward.wire.auth.ScramTestClient.pgjdbcLike;
import static io.pgward.wire.auth.ScramTestClient.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ongres.scram.client.ScramClient;
import com.ongres.scram.common.StringPreparation;
import io.pgward.scram.ScramVerifier;
import io.pgward.wire.protocol.SqlState;
import java.util.Base64;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ScramServerExchangeTest {

    private static final byte[] SECRET = "a mock secret of thirty-two bytes".getBytes();
    private static final ScramVerifier ALICE = ScramVerifier.fromPassword("correct horse");
    private static final ScramVerifier PENCIL = ScramVerifier.fromPassword("pencil");
    private static final String CLIENT_NONCE = "fyko+d2lbbFgONRv9qkxdawL";

    private static ScramServerExchange exchangeFor(ScramVerifier verifier) {
        return new ScramServerExchange("alice", verifier, SECRET);
    }

    private static final byte[] CERTIFICATE_HASH = {1, 2, 3, 4, 5, 6, 7, 8};

    private static ScramServerExchange overTls(ScramVerifier verifier) {
        return new ScramServerExchange("alice", verifier, SECRET, CERTIFICATE_HASH);
    }

    private static ScramClient binding(String advertised, byte[] certificateHash) {
        return ScramClient.builder().advertisedMechanisms(List.of(advertised))
                .username("*").password("correct horse".toCharArray())
                .channelBinding("tls-server-end-point", certificateHash)
                .stringPreparation(StringPreparation.POSTGRESQL_PREPARATION).build();
    }

    @Test
    void offersOnlyScramSha256WithoutTls() {
        assertArrayEquals("SCRAM-SHA-256\0\0".getBytes(), exchangeFor(ALICE).mechanisms());
    }

    @Test
    void offersChannelBindingFirstOverTls() {
        assertArrayEquals("SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0\0".getBytes(), overTls(ALICE).mechanisms());
    }

    @Test
    void authenticatesAClientThatBindsTheCertificateItSaw() {
        ScramServerExchange exchange = overTls(ALICE);
        assertTrue(exchange.select("SCRAM-SHA-256-PLUS"));
        assertDoesNotThrow(() -> authenticate(binding("SCRAM-SHA-256-PLUS", CERTIFICATE_HASH), exchange));
    }

    @Test
    void refusesAClientThatSawAnotherCertificate() throws Exception {
        // A man in the middle terminated TLS with a certificate of its own: the client binds that one.
        ScramServerExchange exchange = overTls(ALICE);
        assertTrue(exchange.select("SCRAM-SHA-256-PLUS"));
        AuthenticationFailed failed = failsAtServerFinal(binding("SCRAM-SHA-256-PLUS", new byte[] {9, 9, 9}),
                exchange);
        assertTrue(failed.getMessage().contains("channel-binding data"), failed.getMessage());
    }

    @Test
    void refusesAClientThatCouldBindButWasToldTheServerCannotWhenItCan() {
        // Someone removed -PLUS from the offer on the way: the client says "y", and the server knows better.
        ScramServerExchange exchange = overTls(ALICE);
        assertTrue(exchange.select("SCRAM-SHA-256"));
        String clientFirst = binding("SCRAM-SHA-256", CERTIFICATE_HASH).clientFirstMessage().toString();
        assertTrue(clientFirst.startsWith("y,,"), clientFirst);
        AuthenticationFailed failed = assertThrows(AuthenticationFailed.class,
                () -> exchange.serverFirst(bytes(clientFirst)));
        assertTrue(failed.getMessage().contains("negotiation"), failed.getMessage());
    }

    @Test
    void acceptsAClientWithoutChannelBindingOverTls() {
        ScramServerExchange exchange = overTls(ALICE);
        assertTrue(exchange.select("SCRAM-SHA-256"));
        assertDoesNotThrow(() -> authenticate(pgjdbcLike("correct horse"), exchange));
    }

    @Test
    void refusesAGs2FlagThatDoesNotFitTheChosenMechanism() {
        ScramServerExchange plusWithoutBinding = overTls(ALICE);
        assertTrue(plusWithoutBinding.select("SCRAM-SHA-256-PLUS"));
        assertThrows(AuthenticationFailed.class, () -> plusWithoutBinding.serverFirst(bytes("n,,n=,r=abc")));

        ScramServerExchange bindingWithoutPlus = overTls(ALICE);
        assertTrue(bindingWithoutPlus.select("SCRAM-SHA-256"));
        assertThrows(AuthenticationFailed.class,
                () -> bindingWithoutPlus.serverFirst(bytes("p=tls-server-end-point,,n=,r=abc")));

        ScramServerExchange otherType = overTls(ALICE);
        assertTrue(otherType.select("SCRAM-SHA-256-PLUS"));
        assertThrows(AuthenticationFailed.class, () -> otherType.serverFirst(bytes("p=tls-unique,,n=,r=abc")));
    }

    @Test
    void acceptsOnlyTheOfferedMechanisms() {
        assertTrue(exchangeFor(ALICE).select("SCRAM-SHA-256"));
        assertFalse(exchangeFor(ALICE).select("SCRAM-SHA-256-PLUS"), "-PLUS is not offered without TLS");
        assertFalse(overTls(ALICE).select("SCRAM-SHA-1"));
    }

    @Test
    void authenticatesAClientThatKnowsThePasswordAndProvesItselfToIt() {
        assertDoesNotThrow(() -> authenticate(pgjdbcLike("correct horse"), exchangeFor(ALICE)));
    }

    @Test
    void answersRfc7677ExampleByteForByte() throws Exception {
        ScramVerifier pencil = ScramVerifier.fromPassword("pencil",
                Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
        ScramServerExchange exchange = new ScramServerExchange("user", pencil, SECRET, null,
                () -> "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");

        byte[] serverFirst = exchange.serverFirst(bytes("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
        assertEquals("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
                text(serverFirst));
        byte[] serverFinal = exchange.serverFinal(bytes("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="));
        assertEquals("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", text(serverFinal));
    }

    @Test
    void acceptsLibpqMessagesWithAnEmptyUserName() throws Exception {
        ScramServerExchange exchange = exchangeFor(PENCIL);
        String clientFirstBare = "n=,r=" + CLIENT_NONCE;
        String serverFirst = text(exchange.serverFirst(bytes("n,," + clientFirstBare)));
        String withoutProof = "c=biws,r=" + attribute(serverFirst, 'r');
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;

        byte[] serverFinal = exchange.serverFinal(
                bytes(withoutProof + ",p=" + ScramTestClient.proof("pencil", serverFirst, authMessage)));

        assertEquals("v=" + ScramTestClient.serverSignature("pencil", serverFirst, authMessage), text(serverFinal));
    }

    @Test
    void ignoresTheUserNameInClientFirstAndChecksTheStartupUsersVerifier() {
        ScramClient mallory = ScramClient.builder().advertisedMechanisms(List.of("SCRAM-SHA-256"))
                .username("mallory").password("correct horse".toCharArray()).build();
        assertDoesNotThrow(() -> authenticate(mallory, exchangeFor(ALICE)));
    }

    @Test
    void makesAFreshServerNonceOfAtLeastEighteenBytesEachTime() throws Exception {
        String clientFirst = "n,,n=,r=abcdef";
        String first = attribute(text(exchangeFor(ALICE).serverFirst(bytes(clientFirst))), 'r');
        String second = attribute(text(exchangeFor(ALICE).serverFirst(bytes(clientFirst))), 'r');
        assertTrue(first.startsWith("abcdef"));
        assertTrue(Base64.getDecoder().decode(first.substring(6)).length >= 18, first);
        assertNotEquals(first, second);
    }

    @Test
    void refusesAWrongPasswordAtTheFinalStep() throws Exception {
        AuthenticationFailed failed = failsAtServerFinal(pgjdbcLike("wrong horse"), exchangeFor(ALICE));
        assertEquals(SqlState.INVALID_PASSWORD, failed.sqlState());
        assertEquals("password authentication failed for user \"alice\"", failed.clientMessage());
    }

    @Test
    void failsAnUnknownUserAtTheSameStepWithTheSameAnswerAsAWrongPassword() throws Exception {
        AuthenticationFailed wrongPassword = failsAtServerFinal(pgjdbcLike("wrong horse"), exchangeFor(ALICE));
        AuthenticationFailed unknownUser = failsAtServerFinal(pgjdbcLike("correct horse"), exchangeFor(null));

        assertEquals(wrongPassword.sqlState(), unknownUser.sqlState());
        assertEquals(wrongPassword.clientMessage(), unknownUser.clientMessage());
        assertNotEquals(wrongPassword.getMessage(), unknownUser.getMessage(), "the log tells them apart");
    }

    @Test
    void offersAnUnknownUserAStableSaltShapedLikeARealOne() throws Exception {
        String clientFirst = "n,,n=,r=abcdef";
        String first = text(new ScramServerExchange("ghost", null, SECRET).serverFirst(bytes(clientFirst)));
        String again = text(new ScramServerExchange("ghost", null, SECRET).serverFirst(bytes(clientFirst)));
        String otherUser = text(new ScramServerExchange("phantom", null, SECRET).serverFirst(bytes(clientFirst)));
        String otherServer = text(new ScramServerExchange("ghost", null, ScramServerExchange.newMockSecret())
                .serverFirst(bytes(clientFirst)));

        assertEquals(16, Base64.getDecoder().decode(attribute(first, 's')).length);
        assertEquals("4096", attribute(first, 'i'));
        assertEquals(attribute(first, 's'), attribute(again, 's'));
        assertNotEquals(attribute(first, 's'), attribute(otherUser, 's'));
        assertNotEquals(attribute(first, 's'), attribute(otherServer, 's'));
    }

    @Test
    void refusesAFinalMessageWhoseNonceIsNotTheOneIssued() throws Exception {
        assertSignedFinalFails(withoutProof -> withoutProof.replaceFirst(",r=(.*)$", ",r=$1x"));
    }

    @Test
    void refusesAFinalMessageThatReplaysOnlyTheClientNonce() throws Exception {
        assertSignedFinalFails(withoutProof -> withoutProof.replaceFirst(",r=.*$", ",r=" + CLIENT_NONCE));
    }

    @Test
    void refusesAChannelBindingEchoThatIsNotTheGs2Header() throws Exception {
        assertSignedFinalFails(withoutProof -> withoutProof.replaceFirst("^c=biws", "c=eSws"));
    }

    @Test
    void refusesATamperedProof() throws Exception {
        assertTamperedFinalFails(message -> {
            int at = message.indexOf(",p=") + 3;
            byte[] proof = Base64.getDecoder().decode(message.substring(at));
            proof[0] ^= 1;
            return message.substring(0, at) + Base64.getEncoder().encodeToString(proof);
        });
    }

    @Test
    void refusesAProofThatIsNotLast() throws Exception {
        assertTamperedFinalFails(message -> message + ",x=1");
    }

    @Test
    void acceptsAClientThatCouldBindTheChannelButSeesNoPlusMechanism() throws Exception {
        ScramClient client = ScramClient.builder().advertisedMechanisms(List.of("SCRAM-SHA-256"))
                .username("*").password("correct horse".toCharArray())
                .channelBinding("tls-server-end-point", new byte[] {1, 2, 3}).build();
        ScramServerExchange exchange = exchangeFor(ALICE);
        String clientFirst = client.clientFirstMessage().toString();
        assertTrue(clientFirst.startsWith("y,,"), clientFirst);

        client.serverFirstMessage(text(exchange.serverFirst(bytes(clientFirst))));
        String clientFinal = client.clientFinalMessage().toString();
        assertTrue(clientFinal.startsWith("c=eSws,"), clientFinal);
        assertDoesNotThrow(() -> client.serverFinalMessage(text(exchange.serverFinal(bytes(clientFinal)))));
    }

    @Test
    void refusesAClientThatRequiresChannelBinding() {
        ScramClient client = ScramClient.builder().advertisedMechanisms(List.of("SCRAM-SHA-256-PLUS"))
                .username("*").password("correct horse".toCharArray())
                .channelBinding("tls-server-end-point", new byte[] {1, 2, 3})
                .stringPreparation(StringPreparation.POSTGRESQL_PREPARATION).build();
        String clientFirst = client.clientFirstMessage().toString();
        assertTrue(clientFirst.startsWith("p=tls-server-end-point,,"), clientFirst);

        AuthenticationFailed failed = assertThrows(AuthenticationFailed.class,
                () -> exchangeFor(ALICE).serverFirst(bytes(clientFirst)));
        assertTrue(failed.getMessage().contains("channel binding"), failed.getMessage());
        assertEquals("password authentication failed for user \"alice\"", failed.clientMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "n,,",
        "x,,n=,r=abc",
        "n,a=bob,n=,r=abc",
        "n,,m=ext,n=,r=abc",
        "n,,r=abc",
        "n,,n=,r=",
        "n,,n=,r=ab c",
        "n,,n=,r=ab\0c",
        "n=,r=abc",
    })
    void refusesAMalformedOrUnsupportedClientFirstMessage(String clientFirst) {
        assertThrows(AuthenticationFailed.class, () -> exchangeFor(ALICE).serverFirst(bytes(clientFirst)));
    }

    @Test
    void runsEachStepOnceAndInOrder() throws Exception {
        ScramServerExchange exchange = exchangeFor(ALICE);
        assertThrows(IllegalStateException.class, () -> exchange.serverFinal(bytes("c=biws,r=abc,p=AAAA")));

        ScramServerExchange started = exchangeFor(ALICE);
        started.serverFirst(bytes("n,,n=,r=abc"));
        assertThrows(IllegalStateException.class, () -> started.serverFirst(bytes("n,,n=,r=abc")));
    }

    @Test
    void endsTheExchangeAtTheFirstFailure() {
        ScramServerExchange exchange = exchangeFor(ALICE);
        assertThrows(AuthenticationFailed.class, () -> exchange.serverFirst(bytes("p=x,,n=,r=abc")));
        assertThrows(IllegalStateException.class, () -> exchange.serverFirst(bytes("n,,n=,r=abc")));
    }

    /**
     * The client signs exactly what it sends, so the proof is right for the changed message and only the check
     * under test can refuse it. The unchanged message must pass, so the change alone makes the difference.
     */
    private static void assertSignedFinalFails(UnaryOperator<String> tamper) throws Exception {
        for (boolean tampered : new boolean[] {false, true}) {
            ScramServerExchange exchange = exchangeFor(PENCIL);
            String bare = "n=,r=" + CLIENT_NONCE;
            String serverFirst = text(exchange.serverFirst(bytes("n,," + bare)));
            String honest = "c=biws,r=" + attribute(serverFirst, 'r');
            String withoutProof = tampered ? tamper.apply(honest) : honest;
            String authMessage = bare + "," + serverFirst + "," + withoutProof;
            String proof = ScramTestClient.proof("pencil", serverFirst, authMessage);
            byte[] clientFinal = bytes(withoutProof + ",p=" + proof);
            if (tampered) {
                assertNotEquals(honest, withoutProof);
                AuthenticationFailed failed = assertThrows(AuthenticationFailed.class,
                        () -> exchange.serverFinal(clientFinal));
                assertEquals("password authentication failed for user \"alice\"", failed.clientMessage());
            } else {
                assertDoesNotThrow(() -> exchange.serverFinal(clientFinal));
            }
        }
    }

    private static AuthenticationFailed failsAtServerFinal(ScramClient client, ScramServerExchange exchange)
            throws Exception {
        client.serverFirstMessage(text(exchange.serverFirst(bytes(client.clientFirstMessage().toString()))));
        byte[] clientFinal = bytes(client.clientFinalMessage().toString());
        return assertThrows(AuthenticationFailed.class, () -> exchange.serverFinal(clientFinal));
    }

    /** Proves that the untampered message passes, so the tampering alone makes the difference. */
    private static void assertTamperedFinalFails(UnaryOperator<String> tamper) throws Exception {
        for (boolean tampered : new boolean[] {false, true}) {
            ScramClient client = pgjdbcLike("correct horse");
            ScramServerExchange exchange = exchangeFor(ALICE);
            client.serverFirstMessage(text(exchange.serverFirst(bytes(client.clientFirstMessage().toString()))));
            String clientFinal = client.clientFinalMessage().toString();
            if (tampered) {
                String changed = tamper.apply(clientFinal);
                assertNotEquals(clientFinal, changed);
                AuthenticationFailed failed = assertThrows(AuthenticationFailed.class,
                        () -> exchange.serverFinal(bytes(changed)));
                assertEquals("password authentication failed for user \"alice\"", failed.clientMessage());
            } else {
                assertDoesNotThrow(() -> exchange.serverFinal(bytes(clientFinal)));
            }
        }
    }
}
