package io.pgward.wire.startup;

import io.pgward.scram.ScramVerifier;
import io.pgward.wire.config.PgwardConfig;
import java.util.HashMap;
import java.util.Map;

/**
 * The configured logins with their SCRAM verifiers computed once at load: a password in the file is hashed
 * into a verifier (random salt, 4096 iterations) so that authentication never needs it in clear again.
 */
public final class LoginDirectory {

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

    /** The login, or null for a name that is not configured. */
    Entry find(String name) {
        return entries.get(name);
    }
}
