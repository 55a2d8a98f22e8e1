package io.pgward.wire.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgward.scram.ScramVerifier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class Md5AuthenticationTest {

    /** md5hex("s3cret" + "alice") and md5hex(that + 01 02 fe ff), computed independently of pgward. */
    private static final String STORED = "md58213e4d0d5792b064442db7988e9f4c4";
    private static final byte[] SALT = {0x01, 0x02, (byte) 0xfe, (byte) 0xff};
    private static final String RESPONSE = "md5fbc8134dad4ad2bf7e3c0b08c38c31e8";

    @Test
    void storesMd5OfPasswordFollowedByUserName() {
        assertEquals(STORED, Md5Authentication.storedForm("alice", "s3cret"));
    }

    @Test
    void answersTheChallengeWithMd5OfTheStoredHashAndTheSaltBytes() {
        assertEquals(RESPONSE, Md5Authentication.clientResponse("alice", "s3cret", SALT));
    }

    @Test
    void acceptsTheRightResponseForThisSalt() {
        assertTrue(Md5Authentication.matches(STORED, SALT, RESPONSE));
    }

    @Test
    void refusesAWrongPasswordAnotherSaltAndAnotherUser() {
        assertFalse(Md5Authentication.matches(STORED, SALT, Md5Authentication.clientResponse("alice", "secret", SALT)));
        assertFalse(Md5Authentication.matches(STORED, new byte[] {1, 2, 3, 4}, RESPONSE));
        assertFalse(Md5Authentication.matches(Md5Authentication.storedForm("bob", "s3cret"), SALT, RESPONSE));
        assertFalse(Md5Authentication.matches(STORED, SALT, RESPONSE.toUpperCase()));
        assertFalse(Md5Authentication.matches(STORED, SALT, ""));
        assertFalse(Md5Authentication.matches(STORED, SALT, null));
    }

    @Test
    void makesAFreshFourByteSaltEachTime() {
        byte[][] salts = new byte[8][];
        for (int i = 0; i < salts.length; i++) {
            salts[i] = Md5Authentication.newSalt();
            assertEquals(4, salts[i].length);
        }
        assertNotEquals(1, Arrays.stream(salts).map(Arrays::toString).distinct().count());
    }

    @Test
    void recognisesOnlyTheStoredForm() {
        assertTrue(Md5Authentication.isStoredForm(STORED));
        assertFalse(Md5Authentication.isStoredForm("s3cret"));
        assertFalse(Md5Authentication.isStoredForm("md5" + "G".repeat(32)));
        assertFalse(Md5Authentication.isStoredForm(STORED + "0"));
        assertFalse(Md5Authentication.isStoredForm(ScramVerifier.fromPassword("pencil").encoded()));
        assertThrows(IllegalArgumentException.class, () -> Md5Authentication.matches("s3cret", SALT, RESPONSE));
    }

    @Test
    void refusesASaltThatIsNotFourBytes() {
        assertThrows(IllegalArgumentException.class,
                () -> Md5Authentication.clientResponse("alice", "s3cret", new byte[] {1, 2, 3}));
    }
}
