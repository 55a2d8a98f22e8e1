package io.pgward.wire.startup;

import io.pgward.wire.auth.ScramVerifier;
import io.pgward.wire.config.PgwardConfig;
import java.util.HashMap;
import java.util.Map;

/**
 * The configured logins with their SCRAM verifiers computed once at load: a password in the file is hashed
 * into a verifier (random salt, 4096 iterations) so that authentication never needs it in clear again.
 */
final class LoginDirectory {

    record Entry(PgwardConfig.Login login, ScramVerifier verifier) {
    }

    private final Map<String, Entry> entries = new HashMap<>();

    LoginDirectory(Map<String, PgwardConfig.Login> logins) {
        logins.forEach((name, login) -> {
            ScramVerifier verifier = null;
            if (login.scramVerifier() != null) {
                verifier = ScramVerifier.parse(login.scramVerifier().value());
            } else if (login.password() != null) {
                verifier = ScramVerifier.fromPassword(login.password().value());
            }
            entries.put(name, new Entry(login, verifier));
        });
    }

    private LoginDirectory() {
    }

    /**
     * The logins {@code names} as the agent listener knows them: each one's only password is the process's agent
     * secret, so the secret opens no login on the clients' listener and a login's password opens nothing here.
     */
    static LoginDirectory forAgents(Map<String, PgwardConfig.Login> logins, java.util.Collection<String> names,
                                    String secret) {
        LoginDirectory directory = new LoginDirectory();
        ScramVerifier verifier = ScramVerifier.fromPassword(secret);
        names.forEach(name -> {
            PgwardConfig.Login login = logins.get(name);
            if (login != null) {
                directory.entries.put(name, new Entry(login, verifier));
            }
        });
        return directory;
    }

    /** The login, or null for a name that is not configured. */
    Entry find(String name) {
        return entries.get(name);
    }
}
