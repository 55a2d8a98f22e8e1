package io.pgward.guard.classify;

import java.time.Duration;
import java.util.Objects;

/**
 * What L2 needs to know about a read-only login.
 *
 * @param login the pgward login, named in every refusal
 * @param statementTimeout the login's statement timeout, which pgward also starts the backend session with; a
 *                         client may lower it but not raise or remove it. {@code null} means no cap.
 * @param catalogFunctions how the {@code selection} and {@code gated} families of {@code denied-functions.txt}
 *                         apply to this login
 */
public record ReadOnlyPolicy(String login, Duration statementTimeout, CatalogFunctions catalogFunctions) {

    /** How the catalog helper functions a table selection restricts are judged at L2. */
    public enum CatalogFunctions {
        /** A selection and no catalog check behind L2: both families are refused, as the seed's reference does. */
        DENIED,
        /**
         * A selection whose reads the catalog check proves against the login's visible catalog: the {@code gated}
         * family is left to it (it refuses every call it cannot prove); the {@code selection} family is refused.
         */
        GATED,
        /** No selection: the login sees what its backend role may read, and neither family applies. */
        UNRESTRICTED
    }

    public ReadOnlyPolicy {
        Objects.requireNonNull(login, "login");
        Objects.requireNonNull(catalogFunctions, "catalogFunctions");
        if (statementTimeout != null && (statementTimeout.isNegative() || statementTimeout.isZero())) {
            throw new IllegalArgumentException("statementTimeout must be positive or null (no cap), was "
                    + statementTimeout);
        }
    }

    /** A policy that refuses both families: what a login with a selection and no catalog check gets. */
    public ReadOnlyPolicy(String login, Duration statementTimeout) {
        this(login, statementTimeout, CatalogFunctions.DENIED);
    }
}
