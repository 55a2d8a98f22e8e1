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

    /**
     * The policy layer L2 judges with. Without a selection the login sees what its backend role may read, so the
     * functions a selection restricts are not refused; with one, the gated functions are left to the catalog check
     * when one follows, and refused when none does.
     *
     * @param catalogCheck every statement L2 allows is then proven by the catalog check (layer L3)
     */
    public ReadOnlyPolicy readOnlyPolicy(boolean catalogCheck) {
        ReadOnlyPolicy.CatalogFunctions functions = tables.isEmpty() ? ReadOnlyPolicy.CatalogFunctions.UNRESTRICTED
                : catalogCheck ? ReadOnlyPolicy.CatalogFunctions.GATED : ReadOnlyPolicy.CatalogFunctions.DENIED;
        return new ReadOnlyPolicy(name, statementTimeout, functions);
    }

    @Override
    public String toString() {
        return "LoginPolicy[name=" + name + ", backendUser=" + backendUser + ", backendPassword="
                + (backendPassword == null ? "none" : "***") + ", tables=" + tables + ", statementTimeout="
                + statementTimeout + "]";
    }
}
