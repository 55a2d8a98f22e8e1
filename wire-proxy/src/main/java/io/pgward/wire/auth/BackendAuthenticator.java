package io.pgward.wire.auth;

import com.ongres.scram.client.ScramClient;
import com.ongres.scram.common.StringPreparation;
import com.ongres.scram.common.exception.ScramException;
import com.ongres.scram.common.exception.ScramInvalidServerSignatureException;
import com.ongres.scram.common.exception.ScramServerErrorException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * pgward logging in to its backend PostgreSQL as a client: turns each AuthenticationRequest ('R') into what
 * pgward answers, the body of a 'p' message.
 *
 * <pre>
 *   code  request                    answer (body of 'p')
 *    0    AuthenticationOk           nothing: {@link Authenticated}
 *    3    CleartextPassword          cstring password
 *    5    MD5Password | byte4 salt   cstring "md5" + md5hex(md5hex(password + user) + salt)
 *   10    SASL | cstring* | ""       SASLInitialResponse: cstring "SCRAM-SHA-256" | int32 len | client-first
 *   11    SASLContinue | server-first   SASLResponse: client-final
 *   12    SASLFinal | server-final   nothing: {@link AwaitNext}, once the server signature verifies
 * </pre>
 *
 * <p>Invariants: one instance per backend login, used from one thread. Once SCRAM has started, the backend
 * must prove in SASLFinal that it knows the password before AuthenticationOk is accepted: that proof is
 * what SCRAM adds over a password, and skipping it would let anything that answers on the backend's address
 * pass for PostgreSQL. Every fault is a {@link BackendAuthenticationException} whose message is for the
 * operator and never holds the password.
 */
public final class BackendAuthenticator {

    /** What to do after one AuthenticationRequest. */
    public sealed interface Step permits Respond, AwaitNext, Authenticated {
    }

    /** Send {@code payload} as the body of a 'p' message, then read the next 'R'. */
    public record Respond(byte[] payload) implements Step {
    }

    /** Send nothing; the next 'R' follows. */
    public record AwaitNext() implements Step {
    }

    /** AuthenticationOk: the backend accepted the login. */
    public record Authenticated() implements Step {
    }

    private enum Scram { NOT_STARTED, SENT_FIRST, SENT_FINAL, SERVER_VERIFIED }

    private final String user;
    private final String password;
    private ScramClient scramClient;
    private Scram scram = Scram.NOT_STARTED;

    /**
     * @param user the backend user, as in the startup packet
     * @param password its password, or null when none is configured (fine while the backend asks for none)
     */
    public BackendAuthenticator(String user, String password) {
        if (user == null || user.isEmpty()) {
            throw new IllegalArgumentException("backend user must not be empty");
        }
        this.user = user;
        this.password = password;
    }

    /**
     * @param code the int32 after the length of an 'R' message
     * @param payload the bytes after that code, possibly empty
     */
    public Step onRequest(int code, byte[] payload) {
        byte[] body = payload == null ? new byte[0] : payload;
        return switch (code) {
            case 0 -> authenticated();
            case 3 -> new Respond(cstring(requirePassword("password")));
            case 5 -> md5(body);
            case 10 -> saslStart(body);
            case 11 -> saslContinue(body);
            case 12 -> saslFinal(body);
            case 2 -> throw unsupported("Kerberos V5", code);
            case 6 -> throw unsupported("SCM credential", code);
            case 7, 8 -> throw unsupported("GSSAPI", code);
            case 9 -> throw unsupported("SSPI", code);
            default -> throw new BackendAuthenticationException(
                    "backend sent an unknown authentication request (code " + code + ") for user \"" + user + "\"");
        };
    }

    private Step authenticated() {
        if (scram != Scram.NOT_STARTED && scram != Scram.SERVER_VERIFIED) {
            throw new BackendAuthenticationException("backend accepted user \"" + user
                    + "\" without completing SCRAM: it never proved that it knows the password");
        }
        return new Authenticated();
    }

    private Step md5(byte[] salt) {
        if (salt.length != Md5Authentication.SALT_LENGTH) {
            throw new BackendAuthenticationException("backend sent an md5 request with a " + salt.length
                    + "-byte salt, not " + Md5Authentication.SALT_LENGTH);
        }
        return new Respond(cstring(Md5Authentication.clientResponse(user, requirePassword("md5"), salt)));
    }

    private Step saslStart(byte[] body) {
        expect(Scram.NOT_STARTED, "AuthenticationSASL");
        List<String> mechanisms = mechanisms(body);
        if (!mechanisms.contains(ScramServerExchange.MECHANISM)) {
            throw new BackendAuthenticationException("backend offers SASL mechanisms " + mechanisms
                    + " for user \"" + user + "\"; pgward supports only " + ScramServerExchange.MECHANISM);
        }
        String secret = requirePassword(ScramServerExchange.MECHANISM);
        // No channel binding (gs2 flag n): the backend connection's TLS, if any, is not tied to the exchange.
        // The user name is "*", as pgjdbc sends: PostgreSQL ignores it and uses the startup packet's.
        scramClient = ScramClient.builder()
                .advertisedMechanisms(List.of(ScramServerExchange.MECHANISM))
                .username("*")
                .password(secret.toCharArray())
                .stringPreparation(StringPreparation.POSTGRESQL_PREPARATION)
                .build();
        byte[] clientFirst = scramClient.clientFirstMessage().toString().getBytes(StandardCharsets.UTF_8);
        byte[] mechanism = cstring(ScramServerExchange.MECHANISM);
        scram = Scram.SENT_FIRST;
        return new Respond(ByteBuffer.allocate(mechanism.length + 4 + clientFirst.length)
                .put(mechanism).putInt(clientFirst.length).put(clientFirst).array());
    }

    private Step saslContinue(byte[] serverFirst) {
        expect(Scram.SENT_FIRST, "AuthenticationSASLContinue");
        try {
            scramClient.serverFirstMessage(new String(serverFirst, StandardCharsets.UTF_8));
            String clientFinal = scramClient.clientFinalMessage().toString();
            scram = Scram.SENT_FINAL;
            return new Respond(clientFinal.getBytes(StandardCharsets.UTF_8));
        } catch (ScramException | IllegalArgumentException e) {
            throw new BackendAuthenticationException(
                    "backend sent a malformed SCRAM server-first-message for user \"" + user + "\"", e);
        }
    }

    private Step saslFinal(byte[] serverFinal) {
        expect(Scram.SENT_FINAL, "AuthenticationSASLFinal");
        try {
            scramClient.serverFinalMessage(new String(serverFinal, StandardCharsets.UTF_8));
        } catch (ScramInvalidServerSignatureException e) {
            throw new BackendAuthenticationException("backend's SCRAM signature for user \"" + user
                    + "\" does not verify: it does not know the password, or it is not the expected server", e);
        } catch (ScramServerErrorException e) {
            throw new BackendAuthenticationException("backend ended SCRAM for user \"" + user + "\" with error "
                    + e.getServerError(), e);
        } catch (ScramException | IllegalArgumentException e) {
            throw new BackendAuthenticationException(
                    "backend sent a malformed SCRAM server-final-message for user \"" + user + "\"", e);
        }
        scram = Scram.SERVER_VERIFIED;
        return new AwaitNext();
    }

    private void expect(Scram expected, String request) {
        if (scram != expected) {
            throw new BackendAuthenticationException("backend sent " + request + " out of order (SCRAM state "
                    + scram + ") for user \"" + user + "\"");
        }
    }

    private String requirePassword(String method) {
        if (password == null || password.isEmpty()) {
            throw new BackendAuthenticationException("backend asks for " + method + " authentication, but no "
                    + "password is configured for backend user \"" + user + "\"");
        }
        return password;
    }

    private BackendAuthenticationException unsupported(String method, int code) {
        return new BackendAuthenticationException("backend asks for " + method + " authentication (request code "
                + code + ") for user \"" + user + "\", which pgward does not support; allow scram-sha-256, md5 or "
                + "password for pgward's connections in the backend's pg_hba.conf");
    }

    /** AuthenticationSASL body: mechanism names as C strings, ended by an empty one. */
    private List<String> mechanisms(byte[] body) {
        List<String> names = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < body.length; i++) {
            if (body[i] == 0) {
                if (i == start) {
                    return names;
                }
                names.add(new String(body, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        throw new BackendAuthenticationException("backend sent a malformed AuthenticationSASL mechanism list");
    }

    private static byte[] cstring(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
        out.write(0);
        return out.toByteArray();
    }
}
