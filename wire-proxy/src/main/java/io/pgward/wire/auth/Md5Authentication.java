package io.pgward.wire.auth;

import io.pgward.scram.ScramCrypto;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * PostgreSQL's md5 password method, both sides of it.
 *
 * <pre>
 *   stored form  = "md5" + md5hex(password + user)             (pg_authid.rolpassword, 35 characters)
 *   client sends = "md5" + md5hex(md5hex(password + user) + salt)   in a PasswordMessage, salt = 4 random bytes
 * </pre>
 *
 * The user name salts the stored hash, so a stored form belongs to one user name. Text is hashed as UTF-8,
 * which matches PostgreSQL when client and server encodings are UTF-8.
 */
public final class Md5Authentication {

    public static final int SALT_LENGTH = 4;
    private static final String PREFIX = "md5";
    private static final HexFormat HEX = HexFormat.of();

    private Md5Authentication() {
    }

    /** The 4 bytes to send in AuthenticationMD5Password; new for every attempt, so a response cannot be replayed. */
    public static byte[] newSalt() {
        return ScramCrypto.randomBytes(SALT_LENGTH);
    }

    /** {@code "md5" + md5hex(password + user)}, what PostgreSQL stores with {@code password_encryption = md5}. */
    public static String storedForm(String user, String password) {
        if (user == null || password == null) {
            throw new IllegalArgumentException("md5 needs a user name and a password");
        }
        return PREFIX + md5Hex(bytes(password + user));
    }

    /** Whether the text is a stored md5 form: "md5" and 32 lower-case hex digits. */
    public static boolean isStoredForm(String text) {
        return text != null && text.length() == 35 && text.startsWith(PREFIX)
                && text.substring(3).chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }

    /**
     * What a client answers to AuthenticationMD5Password (without the terminating NUL); pgward uses it towards
     * its backend.
     */
    public static String clientResponse(String user, String password, byte[] salt) {
        return responseFromStored(storedForm(user, password), salt);
    }

    /**
     * Whether a client's answer proves knowledge of the password behind {@code storedForm}. The comparison takes
     * the same time wherever the first difference is.
     *
     * @param storedForm the user's {@link #storedForm(String, String)}
     * @param salt the salt sent to this client
     * @param response the client's PasswordMessage text, without the NUL
     */
    public static boolean matches(String storedForm, byte[] salt, String response) {
        if (!isStoredForm(storedForm)) {
            throw new IllegalArgumentException("not a stored md5 password (\"md5\" and 32 hex digits)");
        }
        byte[] expected = bytes(responseFromStored(storedForm, salt));
        return response != null && MessageDigest.isEqual(expected, bytes(response));
    }

    private static String responseFromStored(String storedForm, byte[] salt) {
        if (salt == null || salt.length != SALT_LENGTH) {
            throw new IllegalArgumentException("an md5 salt has " + SALT_LENGTH + " bytes");
        }
        byte[] inner = bytes(storedForm.substring(PREFIX.length()));
        byte[] salted = new byte[inner.length + SALT_LENGTH];
        System.arraycopy(inner, 0, salted, 0, inner.length);
        System.arraycopy(salt, 0, salted, inner.length, SALT_LENGTH);
        return PREFIX + md5Hex(salted);
    }

    private static String md5Hex(byte[] data) {
        try {
            return HEX.formatHex(MessageDigest.getInstance("MD5").digest(data));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("MD5 is required of every Java platform", e);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
