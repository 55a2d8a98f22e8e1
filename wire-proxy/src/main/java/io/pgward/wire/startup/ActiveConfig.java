package io.pgward.wire.startup;

import io.pgward.wire.config.PgwardConfig;

/**
 * The configuration sessions start with, replaced whole by a reload: a session reads it once when it logs in, so it
 * sees the old configuration or the new one, never a mix of the two.
 *
 * @param config the configuration in force (what cannot change live is kept from the start)
 * @param logins its logins with their SCRAM verifiers
 */
public record ActiveConfig(PgwardConfig config, LoginDirectory logins) {

    /**
     * @throws IllegalArgumentException when a login's {@code scram_verifier} cannot be read
     */
    public static ActiveConfig of(PgwardConfig config) {
        return new ActiveConfig(config, new LoginDirectory(config.logins()));
    }

    /** The configured login of that name, or null. */
    public PgwardConfig.Login login(String name) {
        return config.logins().get(name);
    }
}
