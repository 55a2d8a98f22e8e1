package io.pgward.wire.admin;

import io.pgward.guard.selection.RelationName;
import io.pgward.guard.selection.SelectedNames;
import io.pgward.wire.config.PgwardConfig;
import io.pgward.wire.protocol.PgError;
import io.pgward.wire.protocol.SqlState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Whether a running session may go on after a reload. It may when its login's new configuration is the same or
 * provably wider than the one it started with; every other change is a narrowing and ends it. Provably wider is
 * kept to a short list:
 * <ul>
 *   <li>{@code mode} read-only to read-write;</li>
 *   <li>{@code tables}: every entry kept (as PostgreSQL reads the names) and entries added, or the selection
 *       removed (every relation the role can read);</li>
 *   <li>{@code row_cap}: raised or removed;</li>
 *   <li>{@code statement_timeout}: raised (removing it is not: the server's default may be lower);</li>
 *   <li>{@code admin.logins}: the login added.</li>
 * </ul>
 * Anything else counts as narrowing: the login removed, {@code auth}, {@code password}, {@code scram_verifier},
 * {@code backend_user} or {@code backend_password} changed in any way, {@code rules} changed in any way, an entry
 * taken out of {@code tables} (even one another entry still covers), a lower cap or timeout, read-write to
 * read-only, and, for an admin console session, the login taken out of {@code admin.logins}.
 */
public final class PolicyChange {

    private PolicyChange() {
    }

    /**
     * Why a session that started as {@code running} cannot go on under {@code current}, or null when it can.
     *
     * @param current the login as now configured, null when it was removed
     * @param adminSession the session is on the admin console, which only {@code admin.logins} may use
     */
    public static String narrowing(PgwardConfig.Login running, PgwardConfig.Login current, boolean adminSession,
                                   boolean stillAdmin) {
        if (current == null) {
            return "login \"" + running.name() + "\" was removed";
        }
        if (adminSession && !stillAdmin) {
            return "login \"" + running.name() + "\" was taken out of admin.logins";
        }
        List<String> narrowed = new ArrayList<>();
        if (running.auth() != current.auth() || !Objects.equals(running.password(), current.password())
                || !Objects.equals(running.scramVerifier(), current.scramVerifier())) {
            narrowed.add("its authentication changed");
        }
        if (!running.backendUser().equals(current.backendUser())
                || !Objects.equals(running.backendPassword(), current.backendPassword())) {
            narrowed.add("its database role or password changed");
        }
        PgwardConfig.Policy was = running.policy();
        PgwardConfig.Policy now = current.policy();
        if (now.mode() == PgwardConfig.Mode.READ_WRITE) {
            // A read-write login is trusted with everything; its remaining keys (timeout) still count.
            if (was.mode() == PgwardConfig.Mode.READ_WRITE && !Objects.equals(was.rules(), now.rules())) {
                narrowed.add("its rules changed");
            }
        } else if (was.mode() == PgwardConfig.Mode.READ_WRITE) {
            narrowed.add("mode read-write became read-only");
        } else {
            if (!Objects.equals(was.rules(), now.rules())) {
                narrowed.add("its rules changed");
            }
            if (now.rowCap() != 0 && (was.rowCap() == 0 || now.rowCap() < was.rowCap())) {
                narrowed.add("its row cap became " + now.rowCap());
            }
            String tables = tablesNarrowing(running.name(), was.tables(), now.tables());
            if (tables != null) {
                narrowed.add(tables);
            }
        }
        if (timeoutNarrowed(was.statementTimeout(), now.statementTimeout())) {
            narrowed.add("its statement_timeout became " + (now.statementTimeout() == null ? "the server's"
                    : now.statementTimeout().toMillis() + " ms"));
        }
        return narrowed.isEmpty() ? null : "the policy of login \"" + running.name() + "\" was narrowed: "
                + String.join(", ", narrowed);
    }

    /**
     * The FATAL a session of a narrowed login ends with: PostgreSQL's own for a session an administrator ended
     * ({@code pg_terminate_backend}, 57P01), which drivers and poolers already read as "reconnect", with the reason
     * in DETAIL.
     */
    public static PgError ended(String reason) {
        return new PgError("FATAL", SqlState.ADMIN_SHUTDOWN, "terminating connection due to administrator command",
                "pgward's configuration was reloaded and " + reason + ".", null, 0);
    }

    private static boolean timeoutNarrowed(Duration was, Duration now) {
        if (Objects.equals(was, now)) {
            return false;
        }
        return was == null || now == null || now.compareTo(was) < 0;
    }

    private static String tablesNarrowing(String login, List<String> was, List<String> now) {
        if (now.isEmpty()) {
            return null;
        }
        if (was.isEmpty()) {
            return "a table selection was added";
        }
        String key = "logins." + login + ".tables";
        Set<RelationName> kept = new HashSet<>(SelectedNames.parse(key, now).names());
        SelectedNames before = SelectedNames.parse(key, was);
        List<String> removed = new ArrayList<>();
        for (int i = 0; i < before.names().size(); i++) {
            if (!kept.contains(before.names().get(i))) {
                removed.add(before.texts().get(i));
            }
        }
        return removed.isEmpty() ? null : "its table selection lost " + String.join(", ", removed);
    }
}
