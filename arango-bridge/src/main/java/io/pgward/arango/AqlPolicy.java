package io.pgward.arango;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A login's policy as it applies to AQL on one ArangoDB database: which data sources it may read, and its own
 * row cap and statement timeout, which lower the database's limits and never raise them.
 *
 * <p>A read-only login never reads a system collection (a name starting with {@code _}: {@code _users},
 * {@code _aqlfunctions}, {@code _jobs}, ...), whatever its selection. With a selection, every collection and
 * view the plan names (including a traversal's edge and vertex collections, and a view's linked collections,
 * which the plan lists among its collections) must be in it; a named graph is walked only through collections
 * that are.
 *
 * @param login            the login's name, for refusal messages
 * @param selection        the collections and views the login may read; empty for every non-system one
 * @param rowCap           the most rows one result may have, 0 for only the database's limit
 * @param statementTimeout the longest one statement may run, null for only the database's limit
 */
public record AqlPolicy(String login, Optional<Set<String>> selection, long rowCap, Duration statementTimeout) {

    /** No selection and no limits of its own: the database's limits, and no system collections. */
    public static final AqlPolicy UNRESTRICTED = new AqlPolicy("", Optional.empty(), 0, null);

    public AqlPolicy {
        Objects.requireNonNull(login, "login");
        selection = selection.map(Set::copyOf);
        if (rowCap < 0) {
            throw new IllegalArgumentException("rowCap must be 0 (none) or positive, was " + rowCap);
        }
        if (statementTimeout != null && (statementTimeout.isNegative() || statementTimeout.isZero())) {
            throw new IllegalArgumentException("statementTimeout must be positive, was " + statementTimeout);
        }
    }

    /** The database's limits lowered by this login's row cap and timeout. */
    public AqlLimits applyTo(AqlLimits limits) {
        AqlLimits applied = limits;
        if (rowCap > 0 && rowCap < limits.maxRows()) {
            applied = applied.withMaxRows((int) rowCap);
        }
        if (statementTimeout != null && statementTimeout.compareTo(limits.maxRuntime()) < 0) {
            applied = applied.withMaxRuntime(statementTimeout);
        }
        return applied;
    }

    /** Empty when a read-only statement with these facts may run for this login; otherwise why not. */
    Optional<String> refusal(PlanFacts facts) {
        for (String source : new TreeSet<>(facts.dataSources())) {
            if (source.startsWith("_")) {
                return Optional.of("AQL refused: read-only logins may not read the system collection " + source);
            }
        }
        if (selection.isEmpty()) {
            return Optional.empty();
        }
        for (String source : new TreeSet<>(facts.dataSources())) {
            if (!selection.get().contains(source)) {
                return Optional.of("AQL refused: " + source + " is not among the collections and views "
                        + (login.isEmpty() ? "this login" : "login \"" + login + "\"") + " may read");
            }
        }
        return Optional.empty();
    }

    /** Whether the login may see a collection or view by this name (for the schema it is shown). */
    boolean mayRead(String dataSource) {
        return !dataSource.startsWith("_") && selection.map(s -> s.contains(dataSource)).orElse(true);
    }
}
