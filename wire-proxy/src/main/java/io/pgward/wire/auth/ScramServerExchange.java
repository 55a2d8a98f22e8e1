package io.pgward.wire.auth;

import io.pgward.scram.ScramCrypto;
import io.pgward.scram.ScramVerifier;
import io.pgward.wire.auth.ScramMessages.ClientFinal;
import io.pgward.wire.auth.ScramMessages.ClientFirst;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.Supplier;

/**
 * The server side of one SCRAM-SHA-256 exchange (RFC 5802, RFC 7677) as PostgreSQL runs it.
 *
 * <pre>
 *   client                                   pgward
 *     |  ←─ AuthenticationSASL [SCRAM-SHA-256]   {@link #mechanisms()}
 *     |  ─→ SASLInitialResponse client-first     {@link #serverFirst(byte[])}
 *     |  ←─ AuthenticationSASLContinue server-first  (r=cnonce+snonce,s=salt,i=iterations)
 *     |  ─→ SASLResponse client-final            {@link #serverFinal(byte[])}
 *     |  ←─ AuthenticationSASLFinal server-final (v=ServerSignature), then AuthenticationOk
 * </pre>
 *
 * <p>Invariants: one instance per attempt, used from one thread; each step runs at most once and in order,
 * and after a failure the exchange is finished. An authorization identity and mandatory extensions are refused;
 * the user name in client-first is ignored, as PostgreSQL ignores it in favour of the startup packet's.
 *
 * <p>Channel binding ({@code SCRAM-SHA-256-PLUS}, RFC 5802 section 6 with RFC 5929's {@code tls-server-end-point})
 * is offered, first, on a TLS connection, as PostgreSQL offers it: the client proves it saw the certificate pgward
 * presented, so a man in the middle who terminates TLS with another certificate cannot relay the login. The rules
 * of PostgreSQL's {@code read_client_first_message} hold: the gs2 flag must fit the chosen mechanism ({@code p}
 * for -PLUS, {@code n} or {@code y} without), and {@code y} (the client could bind but believes the server
 * cannot) fails when -PLUS was offered, since then someone removed it on the way.
 *
 * <p>An unknown user gets a doomed exchange, as in PostgreSQL's {@code mock_scram_secret}: a salt derived
 * from the user name and a server secret (so it is the same on every attempt, like a real one), the same
 * work, and a failure at the same step with the same client text as a wrong password.
 */
public final class ScramServerExchange {

    public static final String MECHANISM = "SCRAM-SHA-256";
    public static final String MECHANISM_PLUS = "SCRAM-SHA-256-PLUS";
    /** The one channel-binding type PostgreSQL supports. */
    static final String BINDING_TYPE = "tls-server-end-point";

    /** PostgreSQL's SCRAM_RAW_NONCE_LEN. */
    private static final int SERVER_NONCE_BYTES = 18;

    private enum Phase { AWAIT_CLIENT_FIRST, AWAIT_CLIENT_FINAL, FINISHED }

    private final String user;
    private final ScramVerifier verifier;
    private final boolean doomed;
    private final Supplier<String> serverNonces;
    /** The hash of the certificate presented on this connection, or null when -PLUS is not offered. */
    private final byte[] channelBinding;
    private boolean plusSelected;
    private Phase phase = Phase.AWAIT_CLIENT_FIRST;
    private ClientFirst clientFirst;
    private String nonce;
    private String serverFirst;

    /**
     * @param user the user name of the startup packet
     * @param verifier that user's stored verifier, or null when the user is unknown or has none (PostgreSQL also
     *                 dooms a user whose only password is md5, or expired)
     * @param mockSecret a secret of this pgward server, from which unknown users' fake salts are derived; keep it
     *                   the same across restarts (see {@link #newMockSecret()}) so fake salts never change
     */
    public ScramServerExchange(String user, ScramVerifier verifier, byte[] mockSecret) {
        this(user, verifier, mockSecret, null);
    }

    /**
     * @param channelBinding the {@code tls-server-end-point} data of this connection ({@link TlsServerEndPoint}),
     *                       or null on a connection without TLS: then -PLUS is not offered
     */
    public ScramServerExchange(String user, ScramVerifier verifier, byte[] mockSecret, byte[] channelBinding) {
        this(user, verifier, mockSecret, channelBinding,
                () -> Base64.getEncoder().encodeToString(ScramCrypto.randomBytes(SERVER_NONCE_BYTES)));
    }

    /** With the server's half of the nonce from {@code serverNonces}, so the RFC's example can be replayed. */
    ScramServerExchange(String user, ScramVerifier verifier, byte[] mockSecret, byte[] channelBinding,
                        Supplier<String> serverNonces) {
        if (user == null) {
            throw new IllegalArgumentException("user must not be null");
        }
        if (mockSecret == null || mockSecret.length < 16) {
            throw new IllegalArgumentException("the mock secret must have at least 16 bytes");
        }
        this.user = user;
        this.doomed = verifier == null;
        // Made for every user, kept for unknown ones: a known login must not reach AuthenticationSASL sooner
        // than an unknown one, or the time would tell which login names exist.
        ScramVerifier mock = mockVerifier(user, mockSecret);
        this.verifier = doomed ? mock : verifier;
        this.serverNonces = serverNonces;
        this.channelBinding = channelBinding == null ? null : channelBinding.clone();
    }

    /** 32 random bytes, for {@code mockSecret}. */
    public static byte[] newMockSecret() {
        return ScramCrypto.randomBytes(32);
    }

    /** The body of AuthenticationSASL: the offered mechanisms as C strings, then an empty one. */
    public byte[] mechanisms() {
        String offered = channelBinding == null ? MECHANISM + "\0" : MECHANISM_PLUS + "\0" + MECHANISM + "\0";
        return (offered + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    /** Takes the client's choice from SASLInitialResponse; false when it is not one of the offered mechanisms. */
    public boolean select(String mechanism) {
        plusSelected = channelBinding != null && MECHANISM_PLUS.equals(mechanism);
        return plusSelected || MECHANISM.equals(mechanism);
    }

    /**
     * Reads the client-first-message (the data of SASLInitialResponse) and returns the server-first-message to
     * send in AuthenticationSASLContinue. A SASLInitialResponse without data (length -1) is the caller's to
     * handle: PostgreSQL answers it with an empty AuthenticationSASLContinue and reads client-first from the
     * next SASLResponse.
     */
    public byte[] serverFirst(byte[] clientFirstMessage) throws AuthenticationFailed {
        advance(Phase.AWAIT_CLIENT_FIRST);
        try {
            clientFirst = ScramMessages.parseClientFirst(latin1(clientFirstMessage));
        } catch (IllegalArgumentException e) {
            throw new AuthenticationFailed(user, e.getMessage());
        }
        checkBindingFlag();
        nonce = clientFirst.clientNonce() + serverNonces.get();
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(verifier.salt())
                + ",i=" + verifier.iterations();
        phase = Phase.AWAIT_CLIENT_FINAL;
        return serverFirst.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Checks the client-final-message (the data of SASLResponse) and, when the client proved the password,
     * returns the server-final-message to send in AuthenticationSASLFinal, before AuthenticationOk.
     */
    public byte[] serverFinal(byte[] clientFinalMessage) throws AuthenticationFailed {
        advance(Phase.AWAIT_CLIENT_FINAL);
        ClientFinal clientFinal;
        try {
            clientFinal = ScramMessages.parseClientFinal(latin1(clientFinalMessage));
        } catch (IllegalArgumentException e) {
            throw new AuthenticationFailed(user, e.getMessage());
        }
        // Without channel binding, c= is the gs2 header itself, base64: "biws" for n,, and "eSws" for y,,; with it,
        // the header followed by the hash of the certificate the client saw.
        byte[] header = latin1(clientFirst.gs2Header());
        byte[] input = plusSelected ? concat(header, channelBinding) : header;
        String expectedBinding = Base64.getEncoder().encodeToString(input);
        if (!constantTimeEquals(expectedBinding, clientFinal.channelBinding())) {
            throw new AuthenticationFailed(user, "channel-binding data in client-final-message does not match");
        }
        if (!constantTimeEquals(nonce, clientFinal.nonce())) {
            throw new AuthenticationFailed(user, "SCRAM nonce mismatch");
        }
        byte[] authMessage = latin1(clientFirst.bare() + "," + serverFirst + "," + clientFinal.withoutProof());
        byte[] storedKey = verifier.storedKey();
        byte[] clientKey = ScramCrypto.xor(clientFinal.proof(), ScramCrypto.hmac(storedKey, authMessage));
        boolean proven = MessageDigest.isEqual(ScramCrypto.sha256(clientKey), storedKey);
        Arrays.fill(clientKey, (byte) 0);
        if (doomed) {
            throw new AuthenticationFailed(user, "no SCRAM verifier for this user (unknown user or no password)");
        }
        if (!proven) {
            throw new AuthenticationFailed(user, "wrong password: the SCRAM ClientProof does not verify");
        }
        byte[] serverSignature = ScramCrypto.hmac(verifier.serverKey(), authMessage);
        return ("v=" + Base64.getEncoder().encodeToString(serverSignature)).getBytes(StandardCharsets.US_ASCII);
    }

    /** PostgreSQL's checks of the gs2 flag against the chosen mechanism ({@code read_client_first_message}). */
    private void checkBindingFlag() throws AuthenticationFailed {
        switch (clientFirst.flag()) {
            case 'p' -> {
                if (!plusSelected) {
                    throw new AuthenticationFailed(user, "the client selected " + MECHANISM + " without channel "
                            + "binding, but the SCRAM message includes channel binding data");
                }
                if (!BINDING_TYPE.equals(clientFirst.bindingType())) {
                    throw new AuthenticationFailed(user, "unsupported SCRAM channel-binding type");
                }
            }
            case 'y' -> {
                if (channelBinding != null) {
                    throw new AuthenticationFailed(user, "SCRAM channel binding negotiation error: the client "
                            + "supports channel binding but thinks the server does not, and this server does");
                }
            }
            default -> {
                if (plusSelected) {
                    throw new AuthenticationFailed(user, "the client selected " + MECHANISM_PLUS + ", but the "
                            + "SCRAM message does not include channel binding data");
                }
            }
        }
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    /** Moves to FINISHED first, so a step that fails leaves nothing to retry. */
    private void advance(Phase expected) {
        if (phase != expected) {
            throw new IllegalStateException("SCRAM exchange expects " + expected + " but is " + phase);
        }
        phase = Phase.FINISHED;
    }

    /** A salt like a real one, stable per user and server, and keys nobody can prove knowledge of. */
    private static ScramVerifier mockVerifier(String user, byte[] mockSecret) {
        byte[] salt = Arrays.copyOf(ScramCrypto.hmac(mockSecret, user.getBytes(StandardCharsets.UTF_8)),
                ScramVerifier.DEFAULT_SALT_LENGTH);
        return new ScramVerifier(ScramVerifier.DEFAULT_ITERATIONS, salt,
                ScramCrypto.randomBytes(ScramCrypto.KEY_LENGTH), ScramCrypto.randomBytes(ScramCrypto.KEY_LENGTH));
    }

    private static boolean constantTimeEquals(String expected, String actual) {
        return MessageDigest.isEqual(latin1(expected), latin1(actual));
    }

    private static byte[] latin1(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String latin1(byte[] message) {
        if (message == null) {
            throw new IllegalArgumentException("SCRAM message must not be null");
        }
        return new String(message, StandardCharsets.ISO_8859_1);
    }
}
