package io.pgward.guard.classify;

import java.time.Duration;
import java.util.Objects;

/**
 * What L2 needs to know about a read-only login.
 *
 * @param login the pgward login, named in every refusal
 * @param statementTimeout the login's statement timeout, which pgward also starts the backend session with; a
 *                         client may lower it but not raise or remove it. {@code null} means no cap.
 */
public record ReadOnlyPolicy(String login, Duration statementTimeout) {

    public ReadOnlyPolicy {
        Objects.requireNonNull(login, "login");
        if (statementTimeout != null && (statementTimeout.isNegative() || statementTimeout.isZero())) {
            throw new IllegalArgumentException("statementTimeout must be positive or null (no cap), was "
                    + statementTimeout);
        }
    }
}
