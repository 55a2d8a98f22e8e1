package io.pgward.scram;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ScramVerifierTest {

    /** Password "pencil" with the salt of RFC 7677's example; keys computed independently of pgward. */
    private static final String STORED_KEY = "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=";
    private static final String SERVER_KEY = "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=";
    static final String PENCIL = "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$" + STORED_KEY + ":" + SERVER_KEY;
    static final byte[] RFC_SALT = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
    private static final byte[] SALT = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    @Test
    void encodesAParsedVerifierBackToTheSameText() {
        ScramVerifier verifier = ScramVerifier.parse(PENCIL);
        assertEquals(4096, verifier.iterations());
        assertArrayEquals(RFC_SALT, verifier.salt());
        assertEquals(PENCIL, verifier.encoded());
        assertEquals(verifier, ScramVerifier.parse(verifier.encoded()));
    }

    @Test
    void derivesTheKeysPostgresDerivesFromAPassword() {
        assertEquals(PENCIL, ScramVerifier.fromPassword("pencil", RFC_SALT, 4096).encoded());
    }

    @Test
    void makesANewSixteenByteSaltAndUsesPostgresIterationCount() {
        ScramVerifier first = ScramVerifier.fromPassword("pencil");
        ScramVerifier second = ScramVerifier.fromPassword("pencil");
        assertEquals(4096, first.iterations());
        assertEquals(16, first.salt().length);
        assertNotEquals(first, second);
        assertEquals(first, ScramVerifier.fromPassword("pencil", first.salt(), first.iterations()));
    }

    @Test
    void appliesSaslPrepToNonAsciiPasswords() {
        // U+00AD SOFT HYPHEN maps to nothing and U+FF30 FULLWIDTH P is NFKC-normalized to P.
        assertEquals(ScramVerifier.fromPassword("PIX", SALT, 4096),
                ScramVerifier.fromPassword("\uFF30I\u00ADX", SALT, 4096));
    }

    @Test
    void usesThePasswordBytesUnchangedWhereSaslPrepProhibitsIt() {
        // U+0080 is a control character SASLprep prohibits; PostgreSQL then hashes the raw UTF-8 bytes.
        // StoredKey computed independently for PBKDF2(UTF-8 "pass\u0080word", "0123456789abcdef", 4096).
        assertEquals("oX+DSO2DCoWd5huljjZL6zF46Ooe4GWXvJGkmSGUTtI=", Base64.getEncoder().encodeToString(
                ScramVerifier.fromPassword("pass\u0080word", SALT, 4096).storedKey()));
    }

    @Test
    void refusesAnEmptyPassword() {
        assertThrows(IllegalArgumentException.class, () -> ScramVerifier.fromPassword(""));
    }

    @Test
    void matchesAnUnpreparedSecretOnlyByItsOwnText() {
        ScramVerifier verifier = ScramVerifier.fromUnpreparedSecret("pgw_secret");
        assertEquals(4096, verifier.iterations());
        assertEquals(16, verifier.salt().length);
        assertTrue(verifier.matchesUnpreparedSecret("pgw_secret"));
        assertFalse(verifier.matchesUnpreparedSecret("pgw_secreT"));
        assertFalse(verifier.matchesUnpreparedSecret(""));
        assertFalse(verifier.matchesUnpreparedSecret(null));
        assertFalse(ScramVerifier.parse(verifier.encoded()).matchesUnpreparedSecret(verifier.encoded()));
        assertNotEquals(verifier, ScramVerifier.fromUnpreparedSecret("pgw_secret"), "a fresh salt each time");
    }

    @Test
    void hashesAnUnpreparedSecretAsAPasswordWhereSaslPrepLeavesItAlone() {
        // The RFC 7677 keys: for printable ASCII, SASLprep changes nothing.
        assertTrue(ScramVerifier.parse(PENCIL).matchesUnpreparedSecret("pencil"));
    }

    @Test
    void skipsSaslPrepForAnUnpreparedSecret() {
        ScramVerifier prepared = ScramVerifier.fromPassword("\uFF30I\u00ADX", SALT, 4096);
        assertTrue(prepared.matchesUnpreparedSecret("PIX"));
        assertFalse(prepared.matchesUnpreparedSecret("\uFF30I\u00ADX"));
    }

    @Test
    void refusesAnEmptyUnpreparedSecret() {
        assertThrows(IllegalArgumentException.class, () -> ScramVerifier.fromUnpreparedSecret(""));
    }

    static Stream<String> malformed() {
        String salt = "W22ZaJ0SNY7soEsUEjb6gQ==";
        return Stream.of(
                "",
                "md5a3556571e93b0d20722ba62be61e8c2d",
                "SCRAM-SHA-1$4096:" + salt + "$" + STORED_KEY + ":" + SERVER_KEY,
                "SCRAM-SHA-256$4096:" + salt + "$" + STORED_KEY,
                "SCRAM-SHA-256$0:" + salt + "$" + STORED_KEY + ":" + SERVER_KEY,
                "SCRAM-SHA-256$-1:" + salt + "$" + STORED_KEY + ":" + SERVER_KEY,
                "SCRAM-SHA-256$9999999999:" + salt + "$" + STORED_KEY + ":" + SERVER_KEY,
                "SCRAM-SHA-256$4096:$" + STORED_KEY + ":" + SERVER_KEY,
                "SCRAM-SHA-256$4096:W22Z*J0SNY7soEsUEjb6gQ==$" + STORED_KEY + ":" + SERVER_KEY,
                "SCRAM-SHA-256$4096:" + salt + "$" + STORED_KEY.substring(4) + ":" + SERVER_KEY,
                "SCRAM-SHA-256$4096:" + salt + "$" + STORED_KEY + ":AAAA",
                "SCRAM-SHA-256$4096:" + salt + "$" + STORED_KEY + ":" + SERVER_KEY.replace('=', '*'),
                " " + PENCIL,
                PENCIL + "\n");
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void refusesMalformedTextWithoutRepeatingIt(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ScramVerifier.parse(text));
        assertFalse(e.getMessage().contains(STORED_KEY.substring(0, 8)), e.getMessage());
        assertFalse(e.getMessage().contains(SERVER_KEY.substring(0, 8)), e.getMessage());
    }

    @Test
    void refusesNull() {
        assertThrows(IllegalArgumentException.class, () -> ScramVerifier.parse(null));
    }

    @Test
    void keepsItsKeysOutOfToString() {
        String text = ScramVerifier.parse(PENCIL).toString();
        assertTrue(text.contains("4096"), text);
        assertFalse(text.contains("WG5d8oPm"), text);
        assertFalse(text.contains("wfPLwcE6"), text);
    }

    @Test
    void cannotBeChangedThroughItsArrays() {
        ScramVerifier verifier = ScramVerifier.parse(PENCIL);
        verifier.storedKey()[0] ^= 1;
        verifier.salt()[0] ^= 1;
        assertEquals(PENCIL, verifier.encoded());
    }
}
