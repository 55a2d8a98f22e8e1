package io.pgward.guard.policy;

import io.pgward.guard.classify.ReadOnlyPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What the guard needs to know of one read-only login: its name, the PostgreSQL role its catalog reads use, and its
 * policy. The backend password is redacted in {@link #toString()}.
 *
 * @param backendPassword null when the role logs in without one
 * @param tables the selected relations as the security team wrote them; empty for no selection
 * @param tablesKey the configuration key of {@code tables}, named in the errors about them
 */
public record LoginPolicy(String name, String backendUser, String backendPassword, List<String> tables,
                          String tablesKey, Duration statementTimeout) {

    public LoginPolicy {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(backendUser, "backendUser");
        tables = List.copyOf(tables);
        Objects.requireNonNull(tablesKey, "tablesKey");
    }

    /** The policy layer L2 judges with. */
    public ReadOnlyPolicy readOnlyPolicy() {
        return new ReadOnlyPolicy(name, statementTimeout);
    }

    @Override
    public String toString() {
        return "LoginPolicy[name=" + name + ", backendUser=" + backendUser + ", backendPassword="
                + (backendPassword == null ? "none" : "***") + ", tables=" + tables + ", statementTimeout="
                + statementTimeout + "]";
    }
}
