package io.pgward.wire.auth;

import io.pgward.scram.ScramCrypto;
import java.util.Base64;

/**
 * Reads the two SCRAM messages a client sends (RFC 5802 section 7) the way PostgreSQL's
 * {@code read_client_first_message} and {@code read_client_final_message} do. Messages are held as
 * ISO-8859-1 strings, one char per byte, so the AuthMessage rebuilt from them has exactly the bytes the
 * client signed, whatever encoding its user name is in.
 *
 * <p>Every method throws {@link IllegalArgumentException} with a reason for the log.
 */
final class ScramMessages {

    /**
     * {@code gs2-header client-first-message-bare}.
     *
     * @param gs2Header {@code "n,,"}, {@code "y,,"} or {@code "p=<cb-name>,,"}: what the client must echo, base64,
     *                  in {@code c=} (followed by the channel-binding data for {@code p})
     * @param flag the gs2 channel-binding flag: {@code n} (no binding), {@code y} (the client could bind but thinks
     *             the server cannot), {@code p} (the client binds, with {@code bindingType})
     * @param bindingType the channel-binding type after {@code p=}; null for the other flags
     * @param bare the client-first-message-bare, the first part of the AuthMessage
     * @param clientNonce the client's half of the nonce
     */
    record ClientFirst(String gs2Header, char flag, String bindingType, String bare, String clientNonce) {
    }

    /**
     * {@code c=... ,r=... [,extensions] ,p=...}.
     *
     * @param channelBinding the base64 text after {@code c=}
     * @param nonce the client nonce followed by the server nonce
     * @param proof the decoded ClientProof, 32 bytes
     * @param withoutProof the message up to {@code ,p=}, the last part of the AuthMessage
     */
    record ClientFinal(String channelBinding, String nonce, byte[] proof, String withoutProof) {
    }

    private ScramMessages() {
    }

    /** Layout: {@code n|y|p=<cb-name> , [a=<authzid>] , [m=<ext>,] n=<user> , r=<nonce> [,<ext>]*}. */
    static ClientFirst parseClientFirst(String message) {
        requireNoNul(message);
        char flag = message.isEmpty() ? 0 : message.charAt(0);
        int afterFlag;
        String bindingType = null;
        if (flag == 'p' && message.startsWith("p=")) {
            afterFlag = message.indexOf(',');
            if (afterFlag < 0) {
                throw new IllegalArgumentException("malformed client-first-message: bad gs2 header");
            }
            bindingType = message.substring(2, afterFlag);
        } else if (flag == 'n' || flag == 'y') {
            afterFlag = 1;
        } else {
            throw new IllegalArgumentException("malformed client-first-message: unexpected channel-binding flag");
        }
        if (!message.startsWith(",", afterFlag)) {
            throw new IllegalArgumentException("malformed client-first-message: bad gs2 header");
        }
        if (message.startsWith("a=", afterFlag + 1)) {
            throw new IllegalArgumentException("client uses an authorization identity, which is not supported");
        }
        if (!message.startsWith(",", afterFlag + 1)) {
            throw new IllegalArgumentException("malformed client-first-message: bad gs2 header");
        }
        String gs2Header = message.substring(0, afterFlag + 2);
        String bare = message.substring(afterFlag + 2);
        String[] attributes = bare.split(",", -1);
        if (attributes[0].startsWith("m=")) {
            throw new IllegalArgumentException("client requires an unsupported SCRAM extension");
        }
        // The user name is read and ignored: PostgreSQL authenticates the user of the startup packet.
        if (attributes.length < 2 || !attributes[0].startsWith("n=") || !attributes[1].startsWith("r=")) {
            throw new IllegalArgumentException("malformed client-first-message: expected n=<user>,r=<nonce>");
        }
        String nonce = attributes[1].substring(2);
        if (nonce.isEmpty() || !isPrintable(nonce)) {
            throw new IllegalArgumentException("malformed client-first-message: empty or non-printable nonce");
        }
        return new ClientFirst(gs2Header, flag, bindingType, bare, nonce);
    }

    /** Layout: {@code c=<base64 cbind-input> , r=<nonce> [,<ext>]* , p=<base64 proof>}; the proof comes last. */
    static ClientFinal parseClientFinal(String message) {
        requireNoNul(message);
        int proofAt = message.lastIndexOf(",p=");
        if (proofAt < 0) {
            throw new IllegalArgumentException("malformed client-final-message: no proof");
        }
        String withoutProof = message.substring(0, proofAt);
        String[] attributes = withoutProof.split(",", -1);
        if (attributes.length < 2 || !attributes[0].startsWith("c=") || !attributes[1].startsWith("r=")) {
            throw new IllegalArgumentException("malformed client-final-message: expected c=<binding>,r=<nonce>");
        }
        for (int i = 2; i < attributes.length; i++) {
            if (attributes[i].length() < 2 || attributes[i].charAt(1) != '=' || !isAlpha(attributes[i].charAt(0))) {
                throw new IllegalArgumentException("malformed client-final-message: bad attribute");
            }
        }
        byte[] proof;
        try {
            proof = Base64.getDecoder().decode(message.substring(proofAt + 3));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed client-final-message: proof is not base64 (or is not last)");
        }
        if (proof.length != ScramCrypto.KEY_LENGTH) {
            throw new IllegalArgumentException("malformed client-final-message: proof is " + proof.length
                    + " bytes, not " + ScramCrypto.KEY_LENGTH);
        }
        return new ClientFinal(attributes[0].substring(2), attributes[1].substring(2), proof, withoutProof);
    }

    /** RFC 5802 {@code printable}: %x21-2B / %x2D-7E, every visible ASCII character except the comma. */
    private static boolean isPrintable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x21 || c > 0x7E || c == ',') {
                return false;
            }
        }
        return true;
    }

    private static boolean isAlpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    /** PostgreSQL reads SASL data as a C string; a NUL inside would make it see a different message. */
    private static void requireNoNul(String message) {
        if (message.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("malformed SCRAM message: contains a NUL byte");
        }
    }
}
